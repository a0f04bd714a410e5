kernel void evaluate(
    int row1,
    int col1,
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    int row2,
    int col2,
    global const float* restrict m2,
    int m2_rows,
    int m2_view,
    float s1,
    int rows,
    int cols) {
  const int i = get_global_id(0);
  const int j = get_global_id(1) + get_global_size(1) * get_global_id(2);
  if (i < rows && j < cols) {
    const float v1 = m1[(i + row2) + (long)(j + col2) * m1_rows];
    const float v2 = m2[i + (long)j * m2_rows];
    const float v3 = fmax(v2, s1);
    const float v4 = v1 + v3;
    m1[(i + row1) + (long)(j + col1) * m1_rows] = (float)v4;
  }
}
