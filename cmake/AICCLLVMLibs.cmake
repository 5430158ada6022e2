# AICC_LLVM_LIBS: what every compiler library and tool links for LLVM/MLIR.
#
# Default: Debian's shared libMLIR.so and libLLVM.so (the imported targets MLIR and LLVM).
#
# -DAICC_LINK_LLVM_STATIC=ON: LLVM's and MLIR's static archives instead (every libMLIR*.a and
# libLLVM*.a of the install, one rescanned link group; -Wl,--gc-sections keeps what is
# reachable), so that aicc-compile, aicc-opt and the Python extension carry their own copy
# and need no LLVM install where they run: the GPU machine, which has none
# (scripts/make-compiler-gpu-payload.sh). Every archive must be position-independent (Debian's
# are). Only for executables and the extension module: libaicc_compiler.so keeps linking the
# shared libraries (the installed package is built against them).
option(AICC_LINK_LLVM_STATIC
       "Link LLVM/MLIR's static archives into the tools and the Python extension" OFF)

if(NOT AICC_LINK_LLVM_STATIC)
  set(AICC_LLVM_LIBS MLIR LLVM)
  return()
endif()

file(GLOB _aicc_mlir_archives "${LLVM_LIBRARY_DIR}/libMLIR*.a")
file(GLOB _aicc_llvm_archives "${LLVM_LIBRARY_DIR}/libLLVM*.a")
# The C API's archives define the same entry points as the C++ ones they wrap at times; no
# tool of aicc uses them.
list(FILTER _aicc_mlir_archives EXCLUDE REGEX "/libMLIRCAPI[^/]*\\.a$")
if(NOT _aicc_mlir_archives OR NOT _aicc_llvm_archives)
  message(FATAL_ERROR "AICC_LINK_LLVM_STATIC: no libMLIR*.a / libLLVM*.a in ${LLVM_LIBRARY_DIR}")
endif()
list(LENGTH _aicc_mlir_archives _n_mlir)
list(LENGTH _aicc_llvm_archives _n_llvm)
message(STATUS "AICC_LINK_LLVM_STATIC: ${_n_mlir} MLIR and ${_n_llvm} LLVM archives")

add_library(AICCStaticLLVM INTERFACE)
target_link_libraries(AICCStaticLLVM INTERFACE
  "$<LINK_GROUP:RESCAN,${_aicc_mlir_archives},${_aicc_llvm_archives}>"
  ZLIB::ZLIB ${CMAKE_DL_LIBS} pthread)
# What LLVM's own static archives reference (LLVMSupport: zstd, terminfo; WindowsManifest:
# libxml2), each only where the install has it.
foreach(_lib zstd tinfo xml2)
  find_library(_aicc_sys_${_lib} ${_lib})
  if(_aicc_sys_${_lib})
    target_link_libraries(AICCStaticLLVM INTERFACE ${_aicc_sys_${_lib}})
  endif()
endforeach()
target_link_options(AICCStaticLLVM INTERFACE -Wl,--gc-sections)
set(AICC_LLVM_LIBS AICCStaticLLVM)
