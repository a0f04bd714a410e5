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
  const int j = get_global_id(1);
  if (i < rows && j < cols) {
    const float v1 = (i == j || (i > j ? (m2_view & 1) : (m2_view & 2))) ? m2[i + (long)j * m2_rows] : 0;
    const float v2 = (i == j || (i > j ? (m3_view & 1) : (m3_view & 2))) ? m3[i + (long)j * m3_rows] : 0;
    const float v3 = v1 + v2;
    const float v4 = (i == j || (i > j ? (m4_view & 1) : (m4_view & 2))) ? m4[i + (long)j * m4_rows] : 0;
    const float v5 = (i == j || (i > j ? (m5_view & 1) : (m5_view & 2))) ? m5[i + (long)j * m5_rows] : 0;
    const float v6 = v4 - v5;
    const float v7 = v3 * v6;
    const float v8 = v7 * s1;
    const float v9 = exp(v1);
    const float v10 = v8 + v9;
    m1[i + (long)j * m1_rows] = (float)v10;
  }
}
