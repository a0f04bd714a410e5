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
  const int j = get_global_id(1) + get_global_size(1) * get_global_id(2);
  if (i < rows && j < cols) {
    const float v1 = m3[i + (long)j * m3_rows];
    const float v2 = m4[i + (long)j * m4_rows];
    const float v3 = v1 + v2;
    const bool v4 = v1 < v2;
    const bool v5 = v2 < s1;
    const bool v6 = v4 && v5;
    m1[i + (long)j * m1_rows] = (float)v3;
    m2[i + (long)j * m2_rows] = (float)v6;
  }
}
