// local: tiling through local memory. A work-group computes an MWG x NWG block of C
// (MWG = ITEM_ROWS * WG_ROWS, NWG = ITEM_COLS * WG_COLS); per step of K_TILE it stages
// op(A)'s MWG x K_TILE tile and op(B)'s K_TILE x NWG tile in local memory, both stored
// K-major (a_tile[k][m], b_tile[k][n]) so that the inner loop reads them as vectors.
// Each work-item accumulates ITEM_ROWS x ITEM_COLS values in registers: row vectors
// v * (WG_ROWS * VW) + lr * VW and column vectors u * (WG_COLS * VW) + lc * VW, i.e.
// VW consecutive elements per vector and neighbouring work-items on neighbouring vectors
// (conflict-free local reads, coalesced stores).
// Global -> local: each work-item moves an equal share of vectors; operands contiguous in
// M or N are loaded and stored as vectors, operands contiguous in K are loaded as vectors
// along K and scattered. DOUBLE_BUFFER prefetches the next tiles into registers while the
// current ones are multiplied, with two local buffers and one barrier per step.
// STAGES > 1 (NVIDIA, compute capability 8.0 and up) copies the tiles with cp.async instead,
// global -> local without registers, into STAGES sets of local tiles: the copies of the next
// STAGES - 1 tiles are in flight while the current one is multiplied, one barrier per step.
// PAD_A / PAD_B (elements, multiples of VW) lengthen the local rows against bank conflicts.
// Tiles crossing the edge of op(A), op(B) are loaded element by element with zeros outside.
// SPLIT_K > 1 (split-K): work-group z = batch * SPLIT_K + slice computes its block over one
// slice of the K tiles (slices of ceil(tiles / SPLIT_K) tiles, in order) and writes the raw
// partial block to the workspace W (one M x N matrix per batch entry and slice, leading
// dimension M, the slices of a batch entry consecutive). tessera_gemm_split_k_reduce then sums
// each element's slices in the order 0 .. SPLIT_K - 1, the same order on every run (so the same
// bits), and stores the sum through gemm_store_element (alpha, beta, the epilogue).

#define MWG (ITEM_ROWS * WG_ROWS)
#define NWG (ITEM_COLS * WG_COLS)
#define NT (WG_ROWS * WG_COLS)
#define KT K_TILE
#define LA (MWG + PAD_A)
#define LB (NWG + PAD_B)
#define RV (ITEM_ROWS / VW)
#define CV (ITEM_COLS / VW)
#define A_LOADS ((MWG * KT) / (VW * NT))
#define B_LOADS ((NWG * KT) / (VW * NT))
// Vectors in the local tiles (at multiples of VW elements of VW-aligned arrays). vloadN and
// vstoreN, not casts to vector pointers: as fast on NVIDIA's compiler (42.9 against 42.0
// TFLOP/s at 4096^3 on an H200), and PoCL 3.1 miscompiled the cast form of one TT tile shape.
#if VW == 1
#define LOCAL_VLOAD(p) (*(p))
#define LOCAL_VSTORE(v, p) (*(p) = (v))
#else
#define LOCAL_VLOAD(p) GEMM_CAT(vload, VW)(0, (p))
#define LOCAL_VSTORE(v, p) GEMM_CAT(vstore, VW)((v), 0, (p))
#endif
#if STAGES > 1
#define NBUF STAGES
#elif DOUBLE_BUFFER
#define NBUF 2
#else
#define NBUF 1
#endif

// ---- global -> registers ---------------------------------------------------------------------
inline void gemm_load_a(realv regs[A_LOADS], const global real* restrict A, const int lda, const int M,
                        const int K, const int m0, const int k0, const int tid, const bool full) {
#pragma unroll
  for (int s = 0; s < A_LOADS; ++s) {
    const int v = tid + s * NT;
#if TRANS_A  // contiguous in K: vectors along K
    const int m = m0 + v / (KT / VW);
    const int k = k0 + (v % (KT / VW)) * VW;
    if (full) {
#if A_ALIGNED
      regs[s] = VLOAD_ALIGNED(A + A_INDEX(m, k));
#else
      regs[s] = VLOAD_ANY(A + A_INDEX(m, k));
#endif
    } else {
      real t[VW];
#pragma unroll
      for (int e = 0; e < VW; ++e) t[e] = (m < M && k + e < K) ? A[A_INDEX(m, k + e)] : (real)0;
      regs[s] = JOIN_VEC(t, 0);
    }
#else  // contiguous in M: vectors along M
    const int m = m0 + (v % (MWG / VW)) * VW;
    const int k = k0 + v / (MWG / VW);
    if (full) {
#if A_ALIGNED
      regs[s] = VLOAD_ALIGNED(A + A_INDEX(m, k));
#else
      regs[s] = VLOAD_ANY(A + A_INDEX(m, k));
#endif
    } else {
      real t[VW];
#pragma unroll
      for (int e = 0; e < VW; ++e) t[e] = (m + e < M && k < K) ? A[A_INDEX(m + e, k)] : (real)0;
      regs[s] = JOIN_VEC(t, 0);
    }
#endif
  }
}

inline void gemm_load_b(realv regs[B_LOADS], const global real* restrict B, const int ldb, const int N,
                        const int K, const int n0, const int k0, const int tid, const bool full) {
#pragma unroll
  for (int s = 0; s < B_LOADS; ++s) {
    const int v = tid + s * NT;
#if TRANS_B  // contiguous in N: vectors along N
    const int n = n0 + (v % (NWG / VW)) * VW;
    const int k = k0 + v / (NWG / VW);
    if (full) {
#if B_ALIGNED
      regs[s] = VLOAD_ALIGNED(B + B_INDEX(k, n));
#else
      regs[s] = VLOAD_ANY(B + B_INDEX(k, n));
#endif
    } else {
      real t[VW];
#pragma unroll
      for (int e = 0; e < VW; ++e) t[e] = (n + e < N && k < K) ? B[B_INDEX(k, n + e)] : (real)0;
      regs[s] = JOIN_VEC(t, 0);
    }
#else  // contiguous in K: vectors along K
    const int n = n0 + v / (KT / VW);
    const int k = k0 + (v % (KT / VW)) * VW;
    if (full) {
#if B_ALIGNED
      regs[s] = VLOAD_ALIGNED(B + B_INDEX(k, n));
#else
      regs[s] = VLOAD_ANY(B + B_INDEX(k, n));
#endif
    } else {
      real t[VW];
#pragma unroll
      for (int e = 0; e < VW; ++e) t[e] = (n < N && k + e < K) ? B[B_INDEX(k + e, n)] : (real)0;
      regs[s] = JOIN_VEC(t, 0);
    }
#endif
  }
}

// ---- registers -> local tiles (K-major) -----------------------------------------------------
inline void gemm_store_a(local real* a_tile, const realv regs[A_LOADS], const int tid) {
#pragma unroll
  for (int s = 0; s < A_LOADS; ++s) {
    const int v = tid + s * NT;
#if TRANS_A
    const int m = v / (KT / VW);
    const int k = (v % (KT / VW)) * VW;
    real t[VW];
    SPLIT_VEC(regs[s], t, 0)
#pragma unroll
    for (int e = 0; e < VW; ++e) a_tile[(k + e) * LA + m] = t[e];
#else
    const int mv = v % (MWG / VW);
    const int k = v / (MWG / VW);
    LOCAL_VSTORE(regs[s], a_tile + k * LA + mv * VW);
#endif
  }
}

inline void gemm_store_b(local real* b_tile, const realv regs[B_LOADS], const int tid) {
#pragma unroll
  for (int s = 0; s < B_LOADS; ++s) {
    const int v = tid + s * NT;
#if TRANS_B
    const int nv = v % (NWG / VW);
    const int k = v / (NWG / VW);
    LOCAL_VSTORE(regs[s], b_tile + k * LB + nv * VW);
#else
    const int n = v / (KT / VW);
    const int k = (v % (KT / VW)) * VW;
    real t[VW];
    SPLIT_VEC(regs[s], t, 0)
#pragma unroll
    for (int e = 0; e < VW; ++e) b_tile[(k + e) * LB + n] = t[e];
#endif
  }
}

#if STAGES > 1
// ---- global -> local tiles with cp.async (STAGES > 1) ----------------------------------------
// A vector (along M or N) is one copy where the operand is aligned to vectors (A_ALIGNED,
// B_ALIGNED: VW x the element size, at most 16 bytes by gemm_rules.def) and the tile lies inside
// the matrices; otherwise each element is one copy, zero-filled outside. An operand contiguous
// in K lands scattered in the K-major tile, one element per copy: consecutive work-items take
// runs of SECTOR_RUN consecutive K (32 bytes, one memory sector) of neighbouring rows, so that
// a warp reads whole sectors and, with the rows padded to 4 (mod 32) words, writes 32 banks.
#if IS_DOUBLE
#define CP_ASYNC_ELEMENT gemm_cp_async8
#define ELEMENT_BYTES 8u
#else
#define CP_ASYNC_ELEMENT gemm_cp_async4
#define ELEMENT_BYTES 4u
#endif
#if VW * ELEMENT_BYTES == 16
#define CP_ASYNC_VECTOR gemm_cp_async16
#elif VW * ELEMENT_BYTES == 8
#define CP_ASYNC_VECTOR gemm_cp_async8
#else
#define CP_ASYNC_VECTOR gemm_cp_async4
#endif
#define SECTOR_RUN (KT % (32 / ELEMENT_BYTES) == 0 ? (32 / ELEMENT_BYTES) : KT)
#define A_ELEMENT_COPIES ((MWG * KT) / NT)
#define B_ELEMENT_COPIES ((NWG * KT) / NT)

// One vector of VW elements along M or N into dst from src (contiguous there); `inside` of them
// lie in the matrix (0 .. VW: the edge tiles), `whole` when all do and the operand is aligned.
#define CP_ASYNC_ROW_VECTOR(dst, src, inside, whole)                                  \
  if (whole) {                                                                        \
    CP_ASYNC_VECTOR((dst), (src), VW * ELEMENT_BYTES);                                \
  } else {                                                                            \
    _Pragma("unroll") for (int e = 0; e < VW; ++e) {                                  \
      const bool in_ = e < (inside);                                                  \
      CP_ASYNC_ELEMENT((dst) + e, in_ ? (src) + e : (src), in_ ? ELEMENT_BYTES : 0u); \
    }                                                                                 \
  }

inline void gemm_copy_a(local real* a_tile, const global real* restrict A, const int lda, const int M,
                        const int K, const int m0, const int k0, const int tid, const bool full) {
#if TRANS_A  // contiguous in K: one element per copy
#pragma unroll
  for (int s = 0; s < A_ELEMENT_COPIES; ++s) {
    const int v = tid + s * NT;
    const int k = (v / (SECTOR_RUN * MWG)) * SECTOR_RUN + v % SECTOR_RUN;
    const int m = (v / SECTOR_RUN) % MWG;
    const bool inside = full || (m0 + m < M && k0 + k < K);
    CP_ASYNC_ELEMENT(a_tile + k * LA + m, inside ? A + A_INDEX(m0 + m, k0 + k) : A, inside ? ELEMENT_BYTES : 0u);
  }
#else  // contiguous in M: vectors along M
#pragma unroll
  for (int s = 0; s < A_LOADS; ++s) {
    const int v = tid + s * NT;
    const int m = (v % (MWG / VW)) * VW;
    const int k = v / (MWG / VW);
    const int inside = full ? VW : (k0 + k < K ? clamp(M - (m0 + m), 0, VW) : 0);
    CP_ASYNC_ROW_VECTOR(a_tile + k * LA + m, A + A_INDEX(m0 + min(m, M - 1 - m0), k0 + min(k, K - 1 - k0)), inside,
                        full && A_ALIGNED)
  }
#endif
}

inline void gemm_copy_b(local real* b_tile, const global real* restrict B, const int ldb, const int N,
                        const int K, const int n0, const int k0, const int tid, const bool full) {
#if TRANS_B  // contiguous in N: vectors along N
#pragma unroll
  for (int s = 0; s < B_LOADS; ++s) {
    const int v = tid + s * NT;
    const int n = (v % (NWG / VW)) * VW;
    const int k = v / (NWG / VW);
    const int inside = full ? VW : (k0 + k < K ? clamp(N - (n0 + n), 0, VW) : 0);
    CP_ASYNC_ROW_VECTOR(b_tile + k * LB + n, B + B_INDEX(k0 + min(k, K - 1 - k0), n0 + min(n, N - 1 - n0)), inside,
                        full && B_ALIGNED)
  }
#else  // contiguous in K: one element per copy
#pragma unroll
  for (int s = 0; s < B_ELEMENT_COPIES; ++s) {
    const int v = tid + s * NT;
    const int k = (v / (SECTOR_RUN * NWG)) * SECTOR_RUN + v % SECTOR_RUN;
    const int n = (v / SECTOR_RUN) % NWG;
    const bool inside = full || (n0 + n < N && k0 + k < K);
    CP_ASYNC_ELEMENT(b_tile + k * LB + n, inside ? B + B_INDEX(k0 + k, n0 + n) : B, inside ? ELEMENT_BYTES : 0u);
  }
#endif
}
#endif

// ---- the multiply of one pair of tiles --------------------------------------------------------
inline void gemm_multiply_tiles(realv acc[ITEM_COLS][RV], const local real* a_tile,
                                const local real* b_tile, const int lr, const int lc) {
#if DEVICE_IS_CPU
  // On a CPU the sums live in a private copy for the tile: acc is live across the K loop's
  // barriers, so PoCL keeps it in memory, and could not keep it in registers here (it could not
  // tell it apart from the local tiles): every product was stored back at once (1024^3 on 2 AVX2
  // cores: 24 -> 39 GFLOP/s with the copy).
  realv sums[ITEM_COLS][RV];
#pragma unroll
  for (int j = 0; j < ITEM_COLS; ++j)
#pragma unroll
    for (int v = 0; v < RV; ++v) sums[j][v] = acc[j][v];
#else
  realv (*sums)[RV] = acc;
#endif
#pragma unroll
  for (int k = 0; k < KT; ++k) {
    realv a[RV];
#pragma unroll
    for (int v = 0; v < RV; ++v) a[v] = LOCAL_VLOAD(a_tile + k * LA + (v * WG_ROWS + lr) * VW);
    real b[ITEM_COLS];
#pragma unroll
    for (int u = 0; u < CV; ++u) {
      const realv bv = LOCAL_VLOAD(b_tile + k * LB + (u * WG_COLS + lc) * VW);
      SPLIT_VEC(bv, b, u * VW)
    }
#pragma unroll
    for (int j = 0; j < ITEM_COLS; ++j)
#pragma unroll
      for (int v = 0; v < RV; ++v) sums[j][v] = GEMM_MAD(a[v], (realv)(b[j]), sums[j][v]);
  }
#if DEVICE_IS_CPU
#pragma unroll
  for (int j = 0; j < ITEM_COLS; ++j)
#pragma unroll
    for (int v = 0; v < RV; ++v) acc[j][v] = sums[j][v];
#endif
}

// One vector of the block of C, at row r and column c, through alpha, beta and the epilogue: the
// store of the k-groups' sum. gemm_local_store keeps the same branch in its own body: calling
// this instead, PoCL 3.1 stored past the end of C (local item=4x4 wg=8x8 vector_width=2 at 37 x 29).
inline void gemm_local_store_vector(global real* C, const int ldc, const int M, const int N, const int r,
                                    const int c, const bool full_block, const realv value, const real alpha,
                                    const real beta GEMM_EPILOGUE_PARAMETERS) {
  // Whole vectors also where a block crossing the edge of C holds them whole: tiny batched
  // products are edge blocks throughout (H200, 111 x 29 x 19 NT, batch 3627: 1.6x with them).
  // Not on CPUs: PoCL 3.1 compiled this branch, for local item=2x2 wg=8x8 vector_width=2, into
  // stores past the end of C (tests/blas: GemmAllSizesEveryFamily, m = 1).
  if (full_block || (!DEVICE_IS_CPU && r + VW <= M && c < N))
    gemm_store_vector(C, C_INDEX(r, c), r, c, value, alpha, beta GEMM_EPILOGUE_ARGUMENTS);
  else
    gemm_store_vector_guarded(C, ldc, M, N, r, c, value, alpha, beta GEMM_EPILOGUE_ARGUMENTS);
}

// The store of the work-item's block of C. Positions are recomputed from the work-item ids
// rather than carried across the K loop's barriers (less state for PoCL's work-item loops).
inline void gemm_local_store(const realv acc[ITEM_COLS][RV], global real* C, const int ldc, const int M,
                             const int N, const real alpha, const real beta GEMM_EPILOGUE_PARAMETERS) {
  GEMM_THREAD_COORDS(lr, lc);
  const int m0 = (int)get_group_id(0) * MWG;
  const int n0 = (int)get_group_id(1) * NWG;
  const bool full_block = m0 + MWG <= M && n0 + NWG <= N;
#pragma unroll
  for (int j = 0; j < ITEM_COLS; ++j) {
    const int c = n0 + (j / VW) * (WG_COLS * VW) + lc * VW + j % VW;
#pragma unroll
    for (int v = 0; v < RV; ++v) {
      const int r = m0 + v * (WG_ROWS * VW) + lr * VW;
      if (full_block || (!DEVICE_IS_CPU && r + VW <= M && c < N))
        gemm_store_vector(C, C_INDEX(r, c), r, c, acc[j][v], alpha, beta GEMM_EPILOGUE_ARGUMENTS);
      else
        gemm_store_vector_guarded(C, ldc, M, N, r, c, acc[j][v], alpha, beta GEMM_EPILOGUE_ARGUMENTS);
    }
  }
}

#if SPLIT_K > 1
// One vector of the raw partial block (no alpha, beta or epilogue: the reduction applies them
// once, to the sum) into its slice of the workspace W.
inline void gemm_store_partial_vector(global real* W, const int M, const int N, const int r, const int c,
                                      const bool full_block, const realv value) {
  if (full_block) {
    VSTORE_ANY(value, W + (ulong)r + (ulong)c * (ulong)M);
  } else {
    real e[VW];
    SPLIT_VEC(value, e, 0)
#pragma unroll
    for (int i = 0; i < VW; ++i)
      if (r + i < M && c < N) W[(ulong)(r + i) + (ulong)c * (ulong)M] = e[i];
  }
}

// The work-item's raw partial block (no alpha, beta or epilogue: the reduction applies them once,
// to the sum) into its slice of the workspace.
inline void gemm_store_partial(const realv acc[ITEM_COLS][RV], global real* W, const int M, const int N) {
  GEMM_THREAD_COORDS(lr, lc);
  const int m0 = (int)get_group_id(0) * MWG;
  const int n0 = (int)get_group_id(1) * NWG;
  const bool full_block = m0 + MWG <= M && n0 + NWG <= N;
#pragma unroll
  for (int j = 0; j < ITEM_COLS; ++j) {
    const int c = n0 + (j / VW) * (WG_COLS * VW) + lc * VW + j % VW;
#pragma unroll
    for (int v = 0; v < RV; ++v) {
      const int r = m0 + v * (WG_ROWS * VW) + lr * VW;
      gemm_store_partial_vector(W, M, N, r, c, full_block, acc[j][v]);
    }
  }
}

// One work-item per element of C: the slices' sum in a fixed order, then the one store.
kernel void tessera_gemm_split_k_reduce(GEMM_PARAMETERS, const global real* restrict W) {
  const int m = (int)get_global_id(0), n = (int)get_global_id(1), batch = (int)get_global_id(2);
  if (m >= M || n >= N || batch >= batch_count) return;
  global real* C = C_base + c_offset + (ulong)batch * c_stride;
  const ulong slice_elements = (ulong)M * (ulong)N;
  const global real* w = W + (ulong)batch * SPLIT_K * slice_elements + (ulong)m + (ulong)n * (ulong)M;
  real sum = w[0];
  for (int s = 1; s < SPLIT_K; ++s) sum += w[(ulong)s * slice_elements];
  gemm_store_element(C, C_INDEX(m, n), m, n, sum, alpha, beta GEMM_EPILOGUE_ARGUMENTS);
}
#define GEMM_SPLIT_K_PARAMETERS , global real* restrict W
#else
#define GEMM_SPLIT_K_PARAMETERS
#endif

// K_GROUPS > 1 (sliced K): the work-group is K_GROUPS grids of WG_ROWS x WG_COLS work-items,
// stacked along local dimension 1, that share one block of C. Group g multiplies the K tiles g,
// g + K_GROUPS, ... of the block's range (its slice's, with split-K) in local tiles of its own; at
// the end the groups' blocks are summed through local memory in the order 0 .. K_GROUPS - 1 (the
// same bits on every run) and stored by all the work-items. For narrow outputs, whose few blocks
// leave compute units idle: more work-items a block without split-K's partial tiles written,
// read back and summed by a second kernel.
#define KG K_GROUPS
#define GROUP_TILE_ELEMENTS (NBUF * KT * (LA + LB))
#if KG > 1
#define GROUP_SUM_ELEMENTS (KG * MWG * NWG)
#define LOCAL_ELEMENTS (KG * GROUP_TILE_ELEMENTS > GROUP_SUM_ELEMENTS ? KG * GROUP_TILE_ELEMENTS : GROUP_SUM_ELEMENTS)
#endif

kernel __attribute__((reqd_work_group_size(WG_ROWS, WG_COLS * KG, 1)))
void tessera_gemm(GEMM_PARAMETERS GEMM_SPLIT_K_PARAMETERS) {
#if KG > 1
  local real group_tiles[LOCAL_ELEMENTS] __attribute__((aligned(VW * sizeof(real))));
  const int kg = (int)get_local_id(1) / WG_COLS;
  local real* a_tiles = group_tiles + kg * GROUP_TILE_ELEMENTS;
  local real* b_tiles = a_tiles + NBUF * KT * LA;
#else
  local real a_tiles[NBUF * KT * LA] __attribute__((aligned(VW * sizeof(real))));
  local real b_tiles[NBUF * KT * LB] __attribute__((aligned(VW * sizeof(real))));
#endif

  // One batch entry (and, split, one slice of K) per work-group: uniform.
  const int all_tiles = (K + KT - 1) / KT;
#if SPLIT_K > 1
  const int batch = (int)get_group_id(2) / SPLIT_K;
  const int slice = (int)get_group_id(2) % SPLIT_K;
  const int slice_tiles = (all_tiles + SPLIT_K - 1) / SPLIT_K;
  const int first_tile = min(all_tiles, slice * slice_tiles);
  const int tiles = min(all_tiles, first_tile + slice_tiles) - first_tile;
  const int k_begin = first_tile * KT;
// This work-group's slice of the workspace W (one M x N matrix per batch entry and slice).
#define SLICE_WORKSPACE (W + (ulong)(batch * SPLIT_K + slice) * (ulong)M * (ulong)N)
#else
  const int batch = (int)get_global_id(2);
  const int tiles = all_tiles;
  const int k_begin = 0;
#endif
  if (batch >= batch_count) return;
  GEMM_BATCH_POINTERS(batch);
  GEMM_THREAD_COORDS(lr, lc);
  const int tid = (int)get_local_id(0) + GEMM_LOCAL_COL * WG_ROWS;
  const int m0 = (int)get_group_id(0) * MWG;
  const int n0 = (int)get_group_id(1) * NWG;
  const bool full_block = m0 + MWG <= M && n0 + NWG <= N;

  realv acc[ITEM_COLS][RV];
#pragma unroll
  for (int j = 0; j < ITEM_COLS; ++j)
#pragma unroll
    for (int v = 0; v < RV; ++v) acc[j][v] = (realv)0;

  // This group's steps: its tiles are step x KG + kg; every group takes the same number of steps
  // (the barriers), the last ones possibly without a tile of their own.
#if KG > 1
  const int steps = (tiles + KG - 1) / KG;
#define GROUP_TILE(step) ((step) * KG + kg)
#define GROUP_HAS_TILE(step) (GROUP_TILE(step) < tiles)
#else
  const int steps = tiles;
#define GROUP_TILE(step) (step)
#define GROUP_HAS_TILE(step) true
#endif
#if STAGES > 1
  // cp.async: the copies of the first STAGES - 1 steps' tiles, then per step: wait for the
  // current step's copies (at most STAGES - 2 groups left pending), a barrier (everyone's copies
  // landed, and everyone is done with the stage the last step read), the copy of the step
  // STAGES - 1 ahead into that stage, and the multiply. Every work-item commits one group per
  // step, with or without copies, so that the counts agree.
#define STAGE_A(stage) (a_tiles + (stage) * (KT * LA))
#define STAGE_B(stage) (b_tiles + (stage) * (KT * LB))
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < steps && GROUP_HAS_TILE(s)) {
      const int k0 = k_begin + GROUP_TILE(s) * KT;
      const bool full = full_block && k0 + KT <= K;
      gemm_copy_a(STAGE_A(s), A, lda, M, K, m0, k0, tid, full);
      gemm_copy_b(STAGE_B(s), B, ldb, N, K, n0, k0, tid, full);
    }
    GEMM_CP_ASYNC_COMMIT();
  }
  int read_stage = 0, write_stage = STAGES - 1;
  for (int t = 0; t < steps; ++t) {
    GEMM_CP_ASYNC_WAIT(STAGES - 2);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int ahead = t + STAGES - 1;
    if (ahead < steps && GROUP_HAS_TILE(ahead)) {
      const int k0 = k_begin + GROUP_TILE(ahead) * KT;
      const bool full = full_block && k0 + KT <= K;
      gemm_copy_a(STAGE_A(write_stage), A, lda, M, K, m0, k0, tid, full);
      gemm_copy_b(STAGE_B(write_stage), B, ldb, N, K, n0, k0, tid, full);
    }
    GEMM_CP_ASYNC_COMMIT();
    if (GROUP_HAS_TILE(t)) gemm_multiply_tiles(acc, STAGE_A(read_stage), STAGE_B(read_stage), lr, lc);
    read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
  }
  GEMM_CP_ASYNC_WAIT(0);
#if KG > 1
  // The loop ends after a multiply, not a barrier: the k-groups' sums below reuse the tiles.
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
#undef STAGE_A
#undef STAGE_B
#else
  realv a_regs[A_LOADS];
  realv b_regs[B_LOADS];
  if (steps > 0 && GROUP_HAS_TILE(0)) {
    const int k0 = k_begin + GROUP_TILE(0) * KT;
    const bool full = full_block && k0 + KT <= K;
    gemm_load_a(a_regs, A, lda, M, K, m0, k0, tid, full);
    gemm_load_b(b_regs, B, ldb, N, K, n0, k0, tid, full);
    gemm_store_a(a_tiles, a_regs, tid);
    gemm_store_b(b_tiles, b_regs, tid);
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int t = 0; t < steps; ++t) {
    const int k_next = k_begin + GROUP_TILE(t + 1) * KT;
    const bool has_next = t + 1 < steps && GROUP_HAS_TILE(t + 1);
    const bool full_next = full_block && k_next + KT <= K;
#if DOUBLE_BUFFER
    const int cur = t & 1;
    if (has_next) {
      gemm_load_a(a_regs, A, lda, M, K, m0, k_next, tid, full_next);
      gemm_load_b(b_regs, B, ldb, N, K, n0, k_next, tid, full_next);
    }
    if (GROUP_HAS_TILE(t)) gemm_multiply_tiles(acc, a_tiles + cur * (KT * LA), b_tiles + cur * (KT * LB), lr, lc);
    if (has_next) {
      gemm_store_a(a_tiles + (cur ^ 1) * (KT * LA), a_regs, tid);
      gemm_store_b(b_tiles + (cur ^ 1) * (KT * LB), b_regs, tid);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    if (GROUP_HAS_TILE(t)) gemm_multiply_tiles(acc, a_tiles, b_tiles, lr, lc);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (has_next) {
      gemm_load_a(a_regs, A, lda, M, K, m0, k_next, tid, full_next);
      gemm_load_b(b_regs, B, ldb, N, K, n0, k_next, tid, full_next);
      gemm_store_a(a_tiles, a_regs, tid);
      gemm_store_b(b_tiles, b_regs, tid);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }
#endif
#undef GROUP_TILE
#undef GROUP_HAS_TILE

#if KG > 1
  // The groups' blocks summed in group order, and stored by all the work-items. Every group
  // leaves its block in local memory (the tiles' memory is free after the loop's last barrier),
  // each work-item's values at its own vector places (neighbouring work-items on neighbouring
  // vectors). Then every work-item of the work-group sums and stores every KG x NT-th vector
  // place, at the position in C of the work-item that held it: no branch on the group, which
  // PoCL 3.1 took for every group (wg=8x8 with 2 groups: each group stored, beta applied twice).
#pragma unroll
  for (int j = 0; j < ITEM_COLS; ++j)
#pragma unroll
    for (int v = 0; v < RV; ++v)
      LOCAL_VSTORE(acc[j][v], group_tiles + kg * (MWG * NWG) + ((j * RV + v) * NT + tid) * VW);
  barrier(CLK_LOCAL_MEM_FENCE);
  // Recomputed, not carried across the barrier (less state for PoCL's work-item loops).
  const bool full_block_now = m0 + MWG <= M && n0 + NWG <= N;
  for (int place = (int)get_local_id(0) + (int)get_local_id(1) * WG_ROWS; place < ITEM_COLS * RV * NT;
       place += KG * NT) {
    realv sum = LOCAL_VLOAD(group_tiles + place * VW);
    for (int g = 1; g < KG; ++g) sum += LOCAL_VLOAD(group_tiles + g * (MWG * NWG) + place * VW);
    const int j = place / NT / RV, v = place / NT % RV;
    GEMM_COORDS_OF(place % NT, holder_lr, holder_lc);
    const int r = m0 + v * (WG_ROWS * VW) + holder_lr * VW;
    const int c = n0 + (j / VW) * (WG_COLS * VW) + holder_lc * VW + j % VW;
#if SPLIT_K > 1
    gemm_store_partial_vector(SLICE_WORKSPACE, M, N, r, c, full_block_now, sum);
#else
    gemm_local_store_vector(C, ldc, M, N, r, c, full_block_now, sum, alpha, beta GEMM_EPILOGUE_ARGUMENTS);
#endif
  }
#elif SPLIT_K > 1
  gemm_store_partial(acc, SLICE_WORKSPACE, M, N);
#else
  gemm_local_store(acc, C, ldc, M, N, alpha, beta GEMM_EPILOGUE_ARGUMENTS);
#endif
#undef SLICE_WORKSPACE
}

#if PRETRANSPOSE
// pretranspose: the copy of one operand stored along K that the product then reads as in NT
// (blas::pretransposed in gemm_config.hpp; run() in gemm.cpp launches it before the product).
// dst(c, r) = src(r, c) for each column-major rows x cols matrix src of the batch entries
// get_global_id(2), into dst of leading dimension dst_ld. A work-group moves 32 x 32 tiles
// through local memory so that both its reads and its writes run along columns (coalesced); the
// tile's rows are padded by one against bank conflicts. Work-group rows step over the column
// tiles, so that grid dimension 1 stays within the 65535 work-groups some devices allow.
#define PRETRANSPOSE_TILE 32
#define PRETRANSPOSE_ROWS 8
kernel __attribute__((reqd_work_group_size(PRETRANSPOSE_TILE, PRETRANSPOSE_ROWS, 1)))
void tessera_gemm_pretranspose(const int rows, const int cols, const global real* restrict src,
                               const ulong src_offset, const int src_ld, const ulong src_stride,
                               global real* restrict dst, const int dst_ld, const ulong dst_stride) {
  local real tile[PRETRANSPOSE_TILE][PRETRANSPOSE_TILE + 1];
  const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
  const int r0 = (int)get_group_id(0) * PRETRANSPOSE_TILE;
  const ulong batch = get_global_id(2);
  src += src_offset + batch * src_stride;
  dst += batch * dst_stride;
  const int col_tiles = (cols + PRETRANSPOSE_TILE - 1) / PRETRANSPOSE_TILE;
  for (int t = (int)get_group_id(1); t < col_tiles; t += (int)get_num_groups(1)) {
    const int c0 = t * PRETRANSPOSE_TILE;
    for (int j = ty; j < PRETRANSPOSE_TILE; j += PRETRANSPOSE_ROWS)
      if (r0 + tx < rows && c0 + j < cols) tile[j][tx] = src[(ulong)(r0 + tx) + (ulong)(c0 + j) * (ulong)src_ld];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = ty; j < PRETRANSPOSE_TILE; j += PRETRANSPOSE_ROWS)
      if (c0 + tx < cols && r0 + j < rows) dst[(ulong)(c0 + tx) + (ulong)(r0 + j) * (ulong)dst_ld] = tile[tx][j];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
#endif
