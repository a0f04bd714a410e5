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
    global const float* restrict m5,
    int m5_rows,
    int m5_view,
    float s1,
    int rows,
    int cols) {
  const int i = get_global_id(0);
  const int j = get_global_id(1) + get_global_size(1) * get_global_id(2);
  if (i < rows && j < cols) {
    const float v1 = m2[i + (long)j * m2_rows];
    const float v2 = m3[i + (long)j * m3_rows];
    const float v3 = v1 + v2;
    const float v4 = m4[i + (long)j * m4_rows];
    const float v5 = m5[i + (long)j * m5_rows];
    const float v6 = v4 - v5;
    const float v7 = v3 * v6;
    const float v8 = v7 * s1;
    const float v9 = exp(v1);
    const float v10 = v8 + v9;
    m1[i + (long)j * m1_rows] = (float)v10;
  }
}
