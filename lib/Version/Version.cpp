//===- Version.cpp - aicc's version and commit ----------------------------===//
#include "aicc/Version.h"

// AICC_GIT_COMMIT: written at build time by cmake/AICCGitCommit.cmake.
#include "VersionCommit.inc"

const char *aicc::getVersion() { return AICC_VERSION_STRING; }

const char *aicc::getCommit() { return AICC_GIT_COMMIT; }

const char *aicc::getVersionLine() {
  return "aicc " AICC_VERSION_STRING " (commit " AICC_GIT_COMMIT ")";
}
