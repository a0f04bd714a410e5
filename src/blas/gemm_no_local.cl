// no_local: register blocking without local memory. Each work-item accumulates an
// ITEM_ROWS x ITEM_COLS block of C in registers, reading op(A) in vectors of VW rows and
// op(B) as scalars straight from global memory (caches do the reuse); K is unrolled by
// K_TILE. Two layouts of a work-item's block inside the work-group's
// (ITEM_ROWS * WG_ROWS) x (ITEM_COLS * WG_COLS) block:
//   no_local (IS_NO_LOCAL_FULL 0): row vectors strided by WG_ROWS * VW, columns strided by WG_COLS,
//     so neighbouring work-items touch neighbouring memory;
//   no_local_full (IS_NO_LOCAL_FULL 1): rows are one vector (ITEM_ROWS == VW), columns contiguous, so a
//     work-item's block is one dense tile (what a CPU's SIMD registers want).
// Work-items whose block crosses the edge of C clamp their loads and guard their stores.

#define MWG (ITEM_ROWS * WG_ROWS)
#define NWG (ITEM_COLS * WG_COLS)
#define RV (ITEM_ROWS / VW)

// Offset inside the work-group block of row vector v and column j of work-item (lr, lc).
#define ITEM_ROW(lr, v) ((v) * (WG_ROWS * VW) + (lr) * VW)
#if IS_NO_LOCAL_FULL
#define ITEM_COL(lc, j) ((lc) * ITEM_COLS + (j))
#else
#define ITEM_COL(lc, j) ((j) * WG_COLS + (lc))
#endif

// One step of K: acc += op(A)(rows, k) * op(B)(k, cols).
GEMM_INLINE void gemm_no_local_step(realv acc[ITEM_COLS][RV], const global real* restrict A, const int lda,
                                    const global real* restrict B, const int ldb, const int k, const int m0,
                                    const int n0, const int lr, const int lc, const int M, const int N,
                                    const bool inside) {
  realv a[RV];
#pragma unroll
  for (int v = 0; v < RV; ++v) {
    const int r = m0 + ITEM_ROW(lr, v);
#if TRANS_A
    real t[VW];
#pragma unroll
    for (int e = 0; e < VW; ++e) t[e] = A[A_INDEX(inside ? r + e : min(r + e, M - 1), k)];
    a[v] = JOIN_VEC(t, 0);
#else
    if (inside) {
#if A_ALIGNED
      a[v] = VLOAD_ALIGNED(A + A_INDEX(r, k));
#else
      a[v] = VLOAD_ANY(A + A_INDEX(r, k));
#endif
    } else {
      real t[VW];
#pragma unroll
      for (int e = 0; e < VW; ++e) t[e] = A[A_INDEX(min(r + e, M - 1), k)];
      a[v] = JOIN_VEC(t, 0);
    }
#endif
  }
  real b[ITEM_COLS];
#pragma unroll
  for (int j = 0; j < ITEM_COLS; ++j) {
    const int c = n0 + ITEM_COL(lc, j);
    b[j] = B[B_INDEX(k, inside ? c : min(c, N - 1))];
  }
#pragma unroll
  for (int j = 0; j < ITEM_COLS; ++j)
#pragma unroll
    for (int v = 0; v < RV; ++v) acc[j][v] = GEMM_MAD(a[v], (realv)(b[j]), acc[j][v]);
}

GEMM_INLINE void gemm_no_local_accumulate(realv acc[ITEM_COLS][RV], const global real* restrict A,
                                          const int lda, const global real* restrict B, const int ldb,
                                          const int K, const int m0, const int n0, const int lr, const int lc,
                                          const int M, const int N, const bool inside) {
  int k = 0;
#if K_TILE > 1
  for (; k + K_TILE <= K; k += K_TILE) {
#pragma unroll
    for (int kk = 0; kk < K_TILE; ++kk)
      gemm_no_local_step(acc, A, lda, B, ldb, k + kk, m0, n0, lr, lc, M, N, inside);
  }
#endif
  for (; k < K; ++k) gemm_no_local_step(acc, A, lda, B, ldb, k, m0, n0, lr, lc, M, N, inside);
}

kernel __attribute__((reqd_work_group_size(WG_ROWS, WG_COLS, WG_BATCH)))
void tessera_gemm(GEMM_PARAMETERS) {
  const int batch = (int)get_global_id(2);
  if (batch >= batch_count) return;
  GEMM_BATCH_POINTERS(batch);
  GEMM_THREAD_COORDS(lr, lc);
  const int m0 = (int)get_group_id(0) * MWG;
  const int n0 = (int)get_group_id(1) * NWG;

  realv acc[ITEM_COLS][RV];
#pragma unroll
  for (int j = 0; j < ITEM_COLS; ++j)
#pragma unroll
    for (int v = 0; v < RV; ++v) acc[j][v] = (realv)0;

  // The last row and column of the block are its largest: test them for the edge of C.
  const bool inside = m0 + ITEM_ROW(lr, RV - 1) + VW <= M && n0 + ITEM_COL(lc, ITEM_COLS - 1) < N;
  if (inside)
    gemm_no_local_accumulate(acc, A, lda, B, ldb, K, m0, n0, lr, lc, M, N, true);
  else
    gemm_no_local_accumulate(acc, A, lda, B, ldb, K, m0, n0, lr, lc, M, N, false);

#pragma unroll
  for (int j = 0; j < ITEM_COLS; ++j) {
    const int c = n0 + ITEM_COL(lc, j);
#pragma unroll
    for (int v = 0; v < RV; ++v) {
      const int r = m0 + ITEM_ROW(lr, v);
      if (inside)
        gemm_store_vector(C, C_INDEX(r, c), r, c, acc[j][v], alpha, beta GEMM_EPILOGUE_ARGUMENTS);
      else
        gemm_store_vector_guarded(C, ldc, M, N, r, c, acc[j][v], alpha, beta GEMM_EPILOGUE_ARGUMENTS);
    }
  }
}
