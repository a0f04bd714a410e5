// Row sums of a column-major rows x cols matrix, each work-item R consecutive rows (Kahan or not).
kernel void row_sums(global const float* restrict a, global float* restrict out, int rows, int cols) {
  const int i0 = get_global_id(0) * R;
  const int parts = get_global_size(1), part = get_global_id(1);
  const int per = (cols + parts - 1) / parts, k0 = part * per, k1 = min(cols, k0 + per);
  float acc[R], c[R];
  for (int r = 0; r < R; ++r) { acc[r] = 0; c[r] = 0; }
  if (i0 + R <= rows) {
    for (int k = k0; k < k1; ++k) {
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
