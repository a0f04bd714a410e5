kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    global const float* restrict m2,
    int m2_rows,
    int m2_view,
    global const float* restrict m3,
    int m3_rows,
    int m3_view,
    global const float* restrict m4,
    int m4_rows,
    int m4_view,
    int rows,
    int cols,
    int item_step) {
  const int i = get_global_id(0);
  const int j = get_global_id(1) + get_global_size(1) * get_global_id(2);
  if (i < rows) {
    const int j0 = j;
    const int j0_in = min(j0, cols - 1);
    const int j1 = j + 1 * item_step;
    const int j1_in = min(j1, cols - 1);
    const int j2 = j + 2 * item_step;
    const int j2_in = min(j2, cols - 1);
    const int j3 = j + 3 * item_step;
    const int j3_in = min(j3, cols - 1);
    const float v1 = m2[i + (long)j0_in * m2_rows];
    const float v2 = m3[i + (long)j0_in * m3_rows];
    const float v3 = m4[i + (long)j0_in * m4_rows];
    const float v4 = v2 + v3;
    const float v5 = v1 * v4;
    const float v6 = m2[i + (long)j1_in * m2_rows];
    const float v7 = m3[i + (long)j1_in * m3_rows];
    const float v8 = m4[i + (long)j1_in * m4_rows];
    const float v9 = v7 + v8;
    const float v10 = v6 * v9;
    const float v11 = m2[i + (long)j2_in * m2_rows];
    const float v12 = m3[i + (long)j2_in * m3_rows];
    const float v13 = m4[i + (long)j2_in * m4_rows];
    const float v14 = v12 + v13;
    const float v15 = v11 * v14;
    const float v16 = m2[i + (long)j3_in * m2_rows];
    const float v17 = m3[i + (long)j3_in * m3_rows];
    const float v18 = m4[i + (long)j3_in * m4_rows];
    const float v19 = v17 + v18;
    const float v20 = v16 * v19;
    if (j0 < cols) {
      m1[i + (long)j0_in * m1_rows] = (float)v5;
    }
    if (j1 < cols) {
      m1[i + (long)j1_in * m1_rows] = (float)v10;
    }
    if (j2 < cols) {
      m1[i + (long)j2_in * m1_rows] = (float)v15;
    }
    if (j3 < cols) {
      m1[i + (long)j3_in * m1_rows] = (float)v20;
    }
  }
}
