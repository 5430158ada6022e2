# Finds what the Python package (python/, docs/python.md) needs: a Python 3 interpreter
# with its module development headers, and pybind11. Sets AICC_BUILD_PYTHON.
#
# The interpreter: -DPython_EXECUTABLE=... when given (scikit-build-core passes the one
# `pip install .` runs under), else Debian's /usr/bin/python3 where it exists (setup.sh
# installs numpy, onnx, torch and pytest for it: the tests run under it), else the first
# python3 on PATH. The extension is built for that interpreter's version and ABI only.
set(AICC_BUILD_PYTHON OFF)
if(NOT DEFINED Python_EXECUTABLE AND NOT DEFINED SKBUILD AND EXISTS /usr/bin/python3)
  set(Python_EXECUTABLE /usr/bin/python3)
endif()
find_package(Python 3.8 COMPONENTS Interpreter Development.Module)
if(NOT Python_FOUND)
  message(STATUS "aicc: Python package off (no Python 3 with development headers; "
                 "Debian: python3-dev)")
  return()
endif()
if(NOT DEFINED pybind11_DIR)
  execute_process(COMMAND ${Python_EXECUTABLE} -m pybind11 --cmakedir
                  OUTPUT_VARIABLE aicc_pybind11_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET RESULT_VARIABLE aicc_pybind11_rc)
  if(aicc_pybind11_rc EQUAL 0)
    set(pybind11_DIR ${aicc_pybind11_dir})
  endif()
endif()
find_package(pybind11 2.10 CONFIG QUIET)
if(NOT pybind11_FOUND)
  message(STATUS "aicc: Python package off (no pybind11 for ${Python_EXECUTABLE}; "
                 "Debian: python3-pybind11)")
  return()
endif()
set(AICC_BUILD_PYTHON ON)
message(STATUS "aicc: Python package for ${Python_EXECUTABLE} (${Python_VERSION}), "
               "pybind11 ${pybind11_VERSION}")
