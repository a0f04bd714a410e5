kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    int length1,
    int row1,
    int col1,
    global const float* restrict m2,
    int m2_rows,
    int m2_view,
    int rows,
    int cols) {
  const int i = get_global_id(0);
  const int j = get_global_id(1) + get_global_size(1) * get_global_id(2);
  if (i < rows && j < cols) {
    float r1 = 0;
    float r1_c = 0;
    for (int k1 = 0; k1 < length1; ++k1) {
      const float v1 = m2[(k1 + row1) + (long)(j + col1) * m2_rows];
      const float r1_y = v1 - r1_c;
      const float r1_t = r1 + r1_y;
      r1_c = (r1_t - r1) - r1_y;
      r1 = r1_t;
    }
    m1[i + (long)j * m1_rows] = (float)r1;
  }
}
