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
  const int j = get_global_id(1);
  if (i < rows && j < cols) {
    const double v1 = (j == i || (j > i ? (m2_view & 1) : (m2_view & 2))) ? m2[j + (long)i * m2_rows] : 0;
    const double v2 = (i == j || (i > j ? (m3_view & 1) : (m3_view & 2))) ? m3[i + (long)j * m3_rows] : 0;
    const bool v3 = v1 > v2;
    const double v4 = (1 / (1 + exp(-v2)));
    const double v5 = (i == j || (i > j ? (m2_view & 1) : (m2_view & 2))) ? m2[i + (long)j * m2_rows] : 0;
    const double v6 = -v5;
    const double v7 = v3 ? v4 : v6;
    m1[i + (long)j * m1_rows] = (double)v7;
  }
}
