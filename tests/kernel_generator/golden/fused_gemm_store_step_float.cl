#define GEMM_EPILOGUE_PARAMETERS , global float* m1, int m1_rows, int m1_view, float s1, global const float* m2, int m2_rows, int m2_view, global const float* m3, int m3_rows, int m3_view, global const float* m4, int m4_rows, int m4_view, int rows, int cols
#define GEMM_EPILOGUE_ARGUMENTS , m1, m1_rows, m1_view, s1, m2, m2_rows, m2_view, m3, m3_rows, m3_view, m4, m4_rows, m4_view, rows, cols
#define GEMM_EPILOGUE(value, row, col) tessera_epilogue((value), (row), (col) GEMM_EPILOGUE_ARGUMENTS)
inline REAL tessera_epilogue(const REAL gemm_value, const int i, const int j,
    global float* m1,
    int m1_rows,
    int m1_view,
    float s1,
    global const float* m2,
    int m2_rows,
    int m2_view,
    global const float* m3,
    int m3_rows,
    int m3_view,
    global const float* m4,
    int m4_rows,
    int m4_view,
    int rows,
    int cols) {
  const float v1 = s1 * gemm_value;
  const float v2 = m4[i + (long)0 * m4_rows];
  const float v3 = v1 + v2;
  const float v4 = (v3 > 0 ? v3 : 0);
  return (REAL)v4;
}
