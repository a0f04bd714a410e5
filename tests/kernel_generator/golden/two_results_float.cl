kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    global float* restrict m2,
    int m2_rows,
    int m2_view,
    global const float* restrict m3,
    int m3_rows,
    int m3_view,
    global const float* restrict m4,
    int m4_rows,
    int m4_view,
    float s1,
    int rows,
    int cols) {
  const int i = get_global_id(0);
  const int j = get_global_id(1);
  if (i < rows && j < cols) {
    const float v1 = (i == j || (i > j ? (m3_view & 1) : (m3_view & 2))) ? m3[i + (long)j * m3_rows] : 0;
    const float v2 = (i == j || (i > j ? (m4_view & 1) : (m4_view & 2))) ? m4[i + (long)j * m4_rows] : 0;
    const float v3 = v1 + v2;
    const bool v4 = v1 < v2;
    const bool v5 = v2 < s1;
    const bool v6 = v4 && v5;
    m1[i + (long)j * m1_rows] = (float)v3;
    m2[i + (long)j * m2_rows] = (float)v6;
  }
}
