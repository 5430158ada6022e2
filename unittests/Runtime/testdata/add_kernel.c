/* CPU kernels for the runtime unit tests, in the calling convention of
 * docs/bundle-format.md: void NAME_entry(void **args, const int64_t *pid,
 * const int64_t *grid). Built as a MODULE library at test build time. */
#include <stdint.h>

#define N 1000
#define BLOCK 256

/* c[i] = a[i] + b[i] for the 256-element block pid[0] of 1000 f32 elements. */
void add_entry(void **args, const int64_t *pid, const int64_t *grid) {
  const float *a = (const float *)args[0];
  const float *b = (const float *)args[1];
  float *c = (float *)args[2];
  (void)grid;
  for (int64_t i = pid[0] * BLOCK; i < (pid[0] + 1) * BLOCK && i < N; ++i)
    c[i] = a[i] + b[i];
}

#define ROWS 4
#define COLS 250
#define COL_BLOCK 128

/* y[r][c] = x[r][c] * w[c] for x, y f32[4,250] and w f32[250]; a 2-D grid:
 * pid[0] picks a 128-column block, pid[1] the row. */
void mul_rows_entry(void **args, const int64_t *pid, const int64_t *grid) {
  const float *x = (const float *)args[0];
  const float *w = (const float *)args[1];
  float *y = (float *)args[2];
  int64_t r = pid[1];
  if (grid[1] != ROWS || r >= ROWS)
    return;
  for (int64_t c = pid[0] * COL_BLOCK; c < (pid[0] + 1) * COL_BLOCK && c < COLS;
       ++c)
    y[r * COLS + c] = x[r * COLS + c] * w[c];
}
