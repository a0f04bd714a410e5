#pragma OPENCL EXTENSION cl_khr_fp64 : enable

kernel void evaluate(
    global double* restrict m1,
    int m1_rows,
    int m1_view,
    global const double* restrict m2,
    int m2_rows,
    int m2_view,
    global const double* restrict m3,
    int m3_rows,
    int m3_view,
    int rows,
    int cols) {
  const int i = get_global_id(0);
  const int j = get_global_id(1) + get_global_size(1) * get_global_id(2);
  if (i < rows && j < cols) {
    const double v1 = m2[j + (long)i * m2_rows];
    const double v2 = (j == i || (j > i ? (m2_view & 1) : (m2_view & 2))) ? v1 : 0;
    const double v3 = m3[i + (long)j * m3_rows];
    const bool v4 = v2 > v3;
    const double v5 = (1 / (1 + exp(-v3)));
    const double v6 = m2[i + (long)j * m2_rows];
    const double v7 = (i == j || (i > j ? (m2_view & 1) : (m2_view & 2))) ? v6 : 0;
    const double v8 = -v7;
    const double v9 = v4 ? v5 : v8;
    m1[i + (long)j * m1_rows] = (double)v9;
  }
}
