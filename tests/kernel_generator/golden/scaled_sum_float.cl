kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    float s1,
    global const float* restrict m2,
    int m2_rows,
    int m2_view,
    global const float* restrict m3,
    int m3_rows,
    int m3_view,
    int rows,
    int cols) {
  const int i = get_global_id(0);
  const int j = get_global_id(1) + get_global_size(1) * get_global_id(2);
  if (i < rows && j < cols) {
    const float v1 = m2[i + (long)j * m2_rows];
    const float v2 = m3[i + (long)j * m3_rows];
    const float v3 = v1 + v2;
    const float v4 = s1 * v3;
    m1[i + (long)j * m1_rows] = (float)v4;
  }
}
