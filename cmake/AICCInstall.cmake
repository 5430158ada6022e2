# `cmake --install BUILD [--prefix P]`: what a program built against aicc needs, and the tools.
#   lib/libaicc_runtime.so.*   the runtime (no LLVM; aicc::runtime)
#   lib/libaicc_compiler.so.*  the compiler (links Debian's libMLIR/libLLVM; aicc::compiler)
#   include/aicc/...           the public headers only (below): Compiler.h and what it includes,
#                              Runtime/*.h, Version.h; self-contained (test/Install)
#   lib/cmake/aicc/            aiccConfig.cmake, aiccConfigVersion.cmake, aiccTargets.cmake
#   bin/                       aicc-compile, aicc-opt, aicc-run, aicc-run-reference
# A consumer: find_package(aicc REQUIRED) and target_link_libraries(app aicc::compiler
# aicc::runtime) (examples/consumer, built against an installed tree by test/Install).
include(CMakePackageConfigHelpers)
set(AICC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/aicc)

set(AICC_INSTALL_TARGETS aicc_runtime)
set(AICC_INSTALL_TOOLS aicc-run)
# The runtime's public headers: no MLIR, no LLVM, no protobuf (ONNXData.h is aicc-run's).
set(AICC_PUBLIC_HEADERS
  Runtime/Bundle.h Runtime/Limits.h Runtime/MemoryPlan.h Runtime/Model.h Runtime/ReadFile.h
  Runtime/Session.h Runtime/Status.h Runtime/XXHash64.h)
if(AICC_ENABLE_COMPILER)
  list(APPEND AICC_INSTALL_TARGETS aicc_compiler)
  list(APPEND AICC_INSTALL_TOOLS aicc-compile aicc-opt aicc-run-reference)
  # Compiler.h and what it includes; it needs LLVM's headers (llvm::Expected, StringRef),
  # never MLIR's.
  list(APPEND AICC_PUBLIC_HEADERS Compiler.h Pipelines/PipelineConfig.h
       Pipelines/PipelineOptions.def Support/CheckedSize.h)
  foreach(tool ${AICC_INSTALL_TOOLS})
    set_target_properties(${tool} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  endforeach()
endif()

foreach(header ${AICC_PUBLIC_HEADERS})
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${AICC_SOURCE_DIR}/include/aicc/${header}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/aicc/${dir} COMPONENT aicc)
endforeach()
install(FILES ${AICC_BINARY_DIR}/include/aicc/Version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/aicc COMPONENT aicc)

install(TARGETS ${AICC_INSTALL_TARGETS} EXPORT aiccTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT aicc NAMELINK_COMPONENT aicc
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ${AICC_INSTALL_TOOLS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT aicc)
install(EXPORT aiccTargets NAMESPACE aicc:: FILE aiccTargets.cmake
        DESTINATION ${AICC_INSTALL_CMAKEDIR} COMPONENT aicc)

# aicc::compiler's headers use LLVM's (llvm::Expected, StringRef) and its users call into
# libLLVM (llvm::toString(Error)): aiccConfig.cmake adds the LLVM this build used, by path.
# (Not find_dependency(LLVM): LLVM's CMake package needs the C language enabled and pulls in
# every LLVM target.)
set(AICC_PACKAGE_HAS_COMPILER ${AICC_ENABLE_COMPILER})
set(AICC_PACKAGE_LLVM_INCLUDE_DIRS "")
set(AICC_PACKAGE_LLVM_LIBRARY "")
if(AICC_ENABLE_COMPILER)
  set(AICC_PACKAGE_LLVM_INCLUDE_DIRS "${LLVM_INCLUDE_DIRS}")
  get_target_property(AICC_PACKAGE_LLVM_LIBRARY LLVM LOCATION)
endif()
configure_package_config_file(${AICC_SOURCE_DIR}/cmake/aiccConfig.cmake.in
  ${AICC_BINARY_DIR}/aiccConfig.cmake INSTALL_DESTINATION ${AICC_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so only the same MAJOR.MINOR is compatible.
write_basic_package_version_file(${AICC_BINARY_DIR}/aiccConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${AICC_BINARY_DIR}/aiccConfig.cmake ${AICC_BINARY_DIR}/aiccConfigVersion.cmake
        DESTINATION ${AICC_INSTALL_CMAKEDIR} COMPONENT aicc)
