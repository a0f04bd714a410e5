// Row sums of a column-major rows x cols matrix, each work-item R consecutive rows (Kahan or not),
// STEP columns a step (1, 2 or 4; Kahan only: each row's accumulator held in a variable across the
// step, the columns added in order, so the same bits as a column a step).
kernel void row_sums(global const float* restrict a, global float* restrict out, int rows, int cols) {
  const int i0 = get_global_id(0) * R;
  const int parts = get_global_size(1), part = get_global_id(1);
  const int per = (cols + parts - 1) / parts, k0 = part * per, k1 = min(cols, k0 + per);
  float acc[R], c[R];
  for (int r = 0; r < R; ++r) { acc[r] = 0; c[r] = 0; }
  if (i0 + R <= rows) {
    int k = k0;
#if KAHAN && STEP > 1
    for (; k < k1 - (STEP - 1); k += STEP) {
      global const float* col0 = a + i0 + (long)k * rows;
      global const float* col1 = col0 + rows;
#if STEP == 4
      global const float* col2 = col1 + rows;
      global const float* col3 = col2 + rows;
#endif
      for (int r = 0; r < R; ++r) {
        float s = acc[r], cc = c[r];
        float y = col0[r] - cc; float t = s + y; cc = (t - s) - y; s = t;
        y = col1[r] - cc; t = s + y; cc = (t - s) - y; s = t;
#if STEP == 4
        y = col2[r] - cc; t = s + y; cc = (t - s) - y; s = t;
        y = col3[r] - cc; t = s + y; cc = (t - s) - y; s = t;
#endif
        acc[r] = s; c[r] = cc;
      }
    }
#endif
    for (; k < k1; ++k) {
      global const float* col = a + i0 + (long)k * rows;
      for (int r = 0; r < R; ++r) {
#if KAHAN
        const float y = col[r] - c[r]; const float t = acc[r] + y; c[r] = (t - acc[r]) - y; acc[r] = t;
#else
        acc[r] += col[r];
#endif
      }
    }
  }
  for (int r = 0; r < R; ++r) if (i0 + r < rows) out[(long)part * rows + i0 + r] = acc[r] - c[r];
}
