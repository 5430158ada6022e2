/* A shared object that crashes while dlopen runs it (its constructor raises
 * SIGSEGV), as a corrupt code section can crash inside ld.so. The runtime tests
 * load it as a bundle's code section in a child process and check that no
 * temporary file is left behind (docs/bundle-format.md, "Trust model"). */
#include <signal.h>
#include <stdint.h>

__attribute__((constructor)) static void crashWhileLoading(void) { raise(SIGSEGV); }

void add_entry(void **args, const int64_t *pid, const int64_t *grid) {
  (void)args;
  (void)pid;
  (void)grid;
}
