// naive: one work-item per element of C, operands read straight from global memory.
// The reference the other families are measured against, and the fallback that fits
// every device (a work-group of WG_ROWS x WG_COLS x WG_BATCH, no local memory).

kernel __attribute__((reqd_work_group_size(WG_ROWS, WG_COLS, WG_BATCH)))
void tessera_gemm(GEMM_PARAMETERS) {
  const int batch = (int)get_global_id(2);
  const int row = (int)get_global_id(0);
  const int col = (int)get_global_id(1);
  if (batch >= batch_count || row >= M || col >= N) return;
  GEMM_BATCH_POINTERS(batch);
  real sum = (real)0;
  for (int k = 0; k < K; ++k) sum = mad(A[A_INDEX(row, k)], B[B_INDEX(k, col)], sum);
  gemm_store_element(C, C_INDEX(row, col), row, col, sum, alpha, beta GEMM_EPILOGUE_ARGUMENTS);
}
