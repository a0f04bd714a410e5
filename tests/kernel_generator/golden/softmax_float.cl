kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    global const float* restrict m2,
    int m2_rows,
    int m2_view,
    int length1,
    int length2,
    int rows,
    int cols) {
  const int i = get_global_id(0);
  const int j = get_global_id(1) + get_global_size(1) * get_global_id(2);
  if (i < rows && j < cols) {
    const float v1 = m2[i + (long)j * m2_rows];
    float r1 = -INFINITY;
    for (int k1 = 0; k1 < length1; ++k1) {
      const float v2 = m2[i + (long)k1 * m2_rows];
      r1 = v2 > r1 ? v2 : r1;
    }
    const float v3 = v1 - r1;
    const float v4 = exp(v3);
    float r2 = 0;
    float r2_c = 0;
    for (int k2 = 0; k2 < length2; ++k2) {
      const float v5 = m2[i + (long)k2 * m2_rows];
      const float v6 = v5 - r1;
      const float v7 = exp(v6);
      const float r2_y = v7 - r2_c;
      const float r2_t = r2 + r2_y;
      r2_c = (r2_t - r2) - r2_y;
      r2 = r2_t;
    }
    const float v8 = v4 / r2;
    m1[i + (long)j * m1_rows] = (float)v8;
  }
}
