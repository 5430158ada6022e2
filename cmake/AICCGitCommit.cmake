# Script mode (cmake -P): writes OUT, one line `#define AICC_GIT_COMMIT "<hash>"`, from the git
# checkout at SOURCE_DIR: the abbreviated commit, "-dirty" when tracked files differ from it,
# "unknown" outside a git checkout (a source tarball). The file is rewritten only when the
# line changes, so a build after a commit recompiles lib/Version/Version.cpp and relinks,
# and nothing else.
set(commit "unknown")
find_program(GIT_EXECUTABLE git)
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE hash RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  if(rc EQUAL 0 AND hash)
    set(commit ${hash})
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} diff-index --quiet HEAD --
                    RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(line "#define AICC_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
else()
  set(old "")
endif()
if(NOT old STREQUAL line)
  file(WRITE ${OUT} "${line}")
endif()
