// tessera GEMM family mma: tensor cores through mma.sync in inline PTX (NVIDIA, compute
// capability 8.0 and up) with float accumulation: float operands multiplied in TF32
// (MMA_INPUT 0, m16n8k8), or 16-bit ones (OPERAND_REAL ushort; MMA_INPUT 1 float16, 2 bfloat16:
// m16n8k16, exact products). The host builds it only where the rules of gemm_rules.def hold
// (tensor_cores, element sizes) and only for calls that asked for TF32 or hold 16-bit operands
// (src/blas/gemm.cpp): no other device sees the PTX.
//
// A work-group of WG_ROWS x WG_COLS warps computes a BLOCK_ROWS x BLOCK_COLS block of C; each
// warp an ITEM_ROWS x ITEM_COLS block made of m16n8k8 products. K advances in tiles of K_TILE:
// cp.async copies each tile of A and B into one of STAGES local-memory stages while the tensor
// cores work on an earlier one. What the probes measured and why the layout is as it is:
// benchmark/mma_probe/NOTES.md.
//
// Local tiles are [strided][contiguous], each operand stored as its matrix is (the copies run
// along the contiguous dimension), padded so that fragment loads are free of bank conflicts.
// Fragments: ldmatrix where a fragment's pairs run along the stored rows (A transposed, B not),
// its .trans form for 16-bit values across them, and for 32-bit values across them scalar or
// 64-bit loads (ldmatrix's .trans moves 16-bit values only).
//
// Edges: a copy of a chunk past the matrix (in M, N or K) reads only the bytes inside it and
// cp.async fills the rest with zeros, so partial tiles add nothing; the store checks each
// element. Tiles wholly inside the matrices skip those checks. A_ALIGNED / B_ALIGNED (the
// host's decision: offsets, leading dimensions and batch strides multiples of 16 bytes) allow
// 16-byte copies; otherwise each element is copied alone (4-byte cp.async for floats, a load
// and a local store for 16-bit values, below cp.async's smallest copy). The mma K step is 8
// (16 for 16-bit values); the tiles' K is zero-padded, so any K works.
//
// Two ways of issuing the copies, each measured fastest where it is used (an H200, 8192^3, the
// old and the new kernel benchmarked in one GPU call; benchmark/RESULTS.md, "eleventh session"):
// - NN, TN, TT: one K loop whose tiles choose unchecked or checked copies (LOAD_STAGE);
// - NT (both operands stored along M or N): two K loops, unchecked copies while the tile to
//   copy lies inside the matrices, then checked ones (NT_LOAD_STAGE_*). With NT in the one loop,
//   NVIDIA's compiler predicated both kinds of copies into every tile: twice the instructions
//   per tile (ncu through benchmark/mma_probe/profile_ptx.py) and 0.82 of NN's speed. The two
//   loops give NT 1.11-1.17x; given to NN they cost it 3% (TF32, FP16), and their copies 2.5-12%
//   in the one loop, so the others keep theirs.

#define WARP 32
#define THREADS (WARP * WG_ROWS * WG_COLS)
#define MT (ITEM_ROWS / 16)  // 16-row fragments of a warp's block
#define NT8 (ITEM_COLS / 8)  // 8-column fragments
#ifndef MMA_INPUT
#define MMA_INPUT 0
#endif
#if MMA_INPUT == 0
#define ELEM_BYTES 4
#define MMA_K 8
#define MMA_OP "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
#elif MMA_INPUT == 1
#define ELEM_BYTES 2
#define MMA_K 16
#define MMA_OP "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
#else
#define ELEM_BYTES 2
#define MMA_K 16
#define MMA_OP "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
#endif
#define KSTEPS (K_TILE / MMA_K)
#define CHUNK16 (16 / ELEM_BYTES)  // elements per 16-byte copy
#define GROUP_M 8  // block rows whose work-groups run next to each other (B panels shared in L2)

#if A_ALIGNED
#define A_CHUNK CHUNK16
#else
#define A_CHUNK 1
#endif
#if B_ALIGNED
#define B_CHUNK CHUNK16
#else
#define B_CHUNK 1
#endif

// Row padding: 32-bit fragments read with scalar loads want rows of 8 (mod 32) words; rows read
// with ldmatrix want an odd number of 16-byte units (and 16-byte aligned rows).
#define MATRIX_PAD CHUNK16
#if ELEM_BYTES == 4
#define SCALAR_PAD 8
#else
#define SCALAR_PAD MATRIX_PAD  // 16-bit fragments are all read with ldmatrix
#endif
#if TRANS_A
#define A_ROWS BLOCK_ROWS  // [m][k]
#define A_COLS K_TILE
#define A_PAD MATRIX_PAD
#else
#define A_ROWS K_TILE  // [k][m]
#define A_COLS BLOCK_ROWS
#define A_PAD SCALAR_PAD
#endif
#if TRANS_B
#define B_ROWS K_TILE  // [k][n]
#define B_COLS BLOCK_COLS
#define B_PAD SCALAR_PAD
#else
#define B_ROWS BLOCK_COLS  // [n][k]
#define B_COLS K_TILE
#define B_PAD MATRIX_PAD
#endif
#define A_LD (A_COLS + A_PAD)
#define B_LD (B_COLS + B_PAD)
#define A_STAGE (A_ROWS * A_LD)
#define B_STAGE (B_ROWS * B_LD)
#define A_COPIES (A_ROWS * A_COLS / A_CHUNK / THREADS)
#define B_COPIES (B_ROWS * B_COLS / B_CHUNK / THREADS)

#if KSTEPS % 2 != 0
#error "gemm_mma: the pipelined loop alternates two fragment buffers per k-step, so K_TILE / MMA_K must be even"
#endif

// One element: cp.async for floats; a 16-bit value is read and stored (the barrier before its
// stage is read covers the store as the wait covers the copies).
#if ELEM_BYTES == 4
#define MMA_COPY_ONE(dst, src, inside) gemm_cp_async4((dst), (src), (inside) ? 4u : 0u)
#else
#define MMA_COPY_ONE(dst, src, inside) *(dst) = (inside) ? *(src) : (operand_real)0
#endif
#define MMA_COPY(chunk, dst, src, elements)                                          \
  if (chunk == CHUNK16) gemm_cp_async16((dst), (src), (uint)(elements) * ELEM_BYTES);     \
  else MMA_COPY_ONE((dst), (src), (elements) > 0);

// Copies elements [position, position + chunk) of stored column `line` (a column-major matrix's
// column: op's K or M/N index) into dst; what lies past line_end or position_end reads as zero.
#define MMA_COPY_CHUNK(chunk, dst, base, ld, line, line_end, position, position_end)                     \
  {                                                                                                      \
    const int left_ = (line) < (line_end) ? clamp((position_end) - (position), 0, chunk) : 0;             \
    const global operand_real* src_ = left_ > 0 ? (base) + (IDX)(line) * (ld) + (position) : (base);     \
    MMA_COPY(chunk, dst, src_, left_)                                                                    \
  }

#define LDMATRIX_X4(r0, r1, r2, r3, p)                                                    \
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"            \
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)                                   \
               : "r"(gemm_local_address(p)))
// The transposing form: 16-bit values whose fragment pairs run across the stored rows.
#define LDMATRIX_X4_TRANS(r0, r1, r2, r3, p)                                              \
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"      \
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)                                   \
               : "r"(gemm_local_address(p)))

kernel __attribute__((reqd_work_group_size(WARP * WG_ROWS, WG_COLS, 1))) void tessera_gemm(GEMM_PARAMETERS) {
  local operand_real a_sh[STAGES * A_STAGE] __attribute__((aligned(16)));
  local operand_real b_sh[STAGES * B_STAGE] __attribute__((aligned(16)));
  const int tid = (int)get_local_id(0) + (int)get_local_id(1) * WARP * WG_ROWS;
  const int lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;    // the mma fragments' row group and column pair
  const int q = lane >> 3, r8 = lane & 7;   // ldmatrix: which of four matrices this lane addresses, which row
  const int wm = ((int)get_local_id(0) / WARP) * ITEM_ROWS, wn = (int)get_local_id(1) * ITEM_COLS;

  // Groups of GROUP_M block rows run together, so concurrent work-groups share B's panels in L2.
  const int grid_m = (int)get_num_groups(0), grid_n = (int)get_num_groups(1);
  const int pid = (int)get_group_id(0) + (int)get_group_id(1) * grid_m;
  const int per_group = GROUP_M * grid_n;
  const int first_m = (pid / per_group) * GROUP_M;
  const int group_rows = min(grid_m - first_m, GROUP_M);
  const int m0 = (first_m + (pid % per_group) % group_rows) * BLOCK_ROWS;
  const int n0 = ((pid % per_group) / group_rows) * BLOCK_COLS;
  GEMM_BATCH_POINTERS(get_group_id(2));

  float acc[MT][NT8][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

  // One K tile into a stage: copy x of this work-item takes chunk c_ of stored row s_.
#if TRANS_A
#define A_COPY(dst, k0, s, c) MMA_COPY_CHUNK(A_CHUNK, dst, A, lda, m0 + (s), M, (k0) + (c), K)
#else
#define A_COPY(dst, k0, s, c) MMA_COPY_CHUNK(A_CHUNK, dst, A, lda, (k0) + (s), K, m0 + (c), M)
#endif
#if TRANS_B
#define B_COPY(dst, k0, s, c) MMA_COPY_CHUNK(B_CHUNK, dst, B, ldb, (k0) + (s), K, n0 + (c), N)
#else
#define B_COPY(dst, k0, s, c) MMA_COPY_CHUNK(B_CHUNK, dst, B, ldb, n0 + (s), N, (k0) + (c), K)
#endif
// The same without the checks, for tiles inside the matrices (most of them): the probes' copies.
#if TRANS_A
#define A_COPY_INSIDE(dst, k0, s, c) A_CHUNK_COPY(dst, A + (IDX)(m0 + (s)) * lda + (k0) + (c))
#else
#define A_COPY_INSIDE(dst, k0, s, c) A_CHUNK_COPY(dst, A + (IDX)((k0) + (s)) * lda + m0 + (c))
#endif
#if TRANS_B
#define B_COPY_INSIDE(dst, k0, s, c) B_CHUNK_COPY(dst, B + (IDX)((k0) + (s)) * ldb + n0 + (c))
#else
#define B_COPY_INSIDE(dst, k0, s, c) B_CHUNK_COPY(dst, B + (IDX)(n0 + (s)) * ldb + (k0) + (c))
#endif
#define A_CHUNK_COPY(dst, src) MMA_COPY(A_CHUNK, dst, src, A_CHUNK)
#define B_CHUNK_COPY(dst, src) MMA_COPY(B_CHUNK, dst, src, B_CHUNK)
#define LOAD_STAGE_WITH(stage, tile, a_copy, b_copy)                                     \
  {                                                                                      \
    const int k0_ = (tile) * K_TILE;                                                     \
    _Pragma("unroll") for (int i_ = 0; i_ < A_COPIES; ++i_) {                            \
      const int x_ = tid + i_ * THREADS;                                                 \
      const int c_ = (x_ % (A_COLS / A_CHUNK)) * A_CHUNK, s_ = x_ / (A_COLS / A_CHUNK);  \
      a_copy(a_sh + (stage) * A_STAGE + s_ * A_LD + c_, k0_, s_, c_)                     \
    }                                                                                    \
    _Pragma("unroll") for (int i_ = 0; i_ < B_COPIES; ++i_) {                            \
      const int x_ = tid + i_ * THREADS;                                                 \
      const int c_ = (x_ % (B_COLS / B_CHUNK)) * B_CHUNK, s_ = x_ / (B_COLS / B_CHUNK);  \
      b_copy(b_sh + (stage) * B_STAGE + s_ * B_LD + c_, k0_, s_, c_)                     \
    }                                                                                    \
  }
  // A block inside M and N takes the unchecked copies for every K tile but a partial last one;
  // the branch is the same for the whole work-group.
  const bool block_inside = m0 + BLOCK_ROWS <= M && n0 + BLOCK_COLS <= N;
#define LOAD_STAGE(stage, tile)                                                    \
  if (block_inside && ((tile) + 1) * K_TILE <= K) {                                \
    LOAD_STAGE_WITH(stage, tile, A_COPY_INSIDE, B_COPY_INSIDE)                     \
  } else {                                                                         \
    LOAD_STAGE_WITH(stage, tile, A_COPY, B_COPY)                                   \
  }
#if !TRANS_A && TRANS_B
  // NT's copies (see the top of the file), for LOAD_STAGE_WITH. A and B are both stored
  // [k][m or n]: stored row s of K tile k0 / K_TILE is column k0 + s of the operand, which each
  // tile steps on by K_TILE columns. Checked copies take the elements inside M or N and K and
  // zero-fill the rest; a copy with nothing inside reads from the matrix's start (zero bytes,
  // from a valid address).
#define NT_SOURCE(base, ld, origin, k0, s, c) \
  (base) + ((IDX)(s) * (ld) + (origin) + (c)) + (IDX)((k0) / K_TILE) * ((IDX)K_TILE * (ld))
#define NT_COPY_INSIDE(chunk, dst, base, ld, origin, k0, s, c) \
  MMA_COPY(chunk, dst, NT_SOURCE(base, ld, origin, k0, s, c), chunk)
#define NT_COPY(chunk, dst, base, ld, origin, end, k0, s, c)                                          \
  {                                                                                                   \
    const int inside_ = clamp((end) - ((origin) + (c)), 0, chunk);                                    \
    const int elements_ = (k0) + (s) < K ? inside_ : 0;                                               \
    MMA_COPY(chunk, dst, elements_ > 0 ? NT_SOURCE(base, ld, origin, k0, s, c) : (base), elements_)   \
  }
#define NT_A_COPY_INSIDE(dst, k0, s, c) NT_COPY_INSIDE(A_CHUNK, dst, A, lda, m0, k0, s, c)
#define NT_B_COPY_INSIDE(dst, k0, s, c) NT_COPY_INSIDE(B_CHUNK, dst, B, ldb, n0, k0, s, c)
#define NT_A_COPY(dst, k0, s, c) NT_COPY(A_CHUNK, dst, A, lda, m0, M, k0, s, c)
#define NT_B_COPY(dst, k0, s, c) NT_COPY(B_CHUNK, dst, B, ldb, n0, N, k0, s, c)
#define NT_LOAD_STAGE_INSIDE(stage, tile) LOAD_STAGE_WITH(stage, tile, NT_A_COPY_INSIDE, NT_B_COPY_INSIDE)
#define NT_LOAD_STAGE_CHECKED(stage, tile) LOAD_STAGE_WITH(stage, tile, NT_A_COPY, NT_B_COPY)
#endif

  const int tiles = (K + K_TILE - 1) / K_TILE;
#if !TRANS_A && TRANS_B
  // Tiles inside the matrices: all of a block inside M and N but a partial last one.
  const int inside_tiles = m0 + BLOCK_ROWS <= M && n0 + BLOCK_COLS <= N ? K / K_TILE : 0;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < inside_tiles) NT_LOAD_STAGE_INSIDE(s, s)
    else if (s < tiles) NT_LOAD_STAGE_CHECKED(s, s)
    GEMM_CP_ASYNC_COMMIT();
  }
#else
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) LOAD_STAGE(s, s)
    GEMM_CP_ASYNC_COMMIT();
  }
#endif

  // Fragments of one k-step of the stage at as / bs into af[buf] / bf[buf]. The tensor cores
  // read the top 19 bits of each float (TF32, rounded toward zero). A register holds two
  // consecutive K of one row (A) or column (B) for 16-bit values, one for floats; an ldmatrix row
  // is 16 bytes (CHUNK16 elements) either way.
#if TRANS_A
#define LOAD_A(buf, i, mb, ks) \
  LDMATRIX_X4(af[buf][i][0], af[buf][i][1], af[buf][i][2], af[buf][i][3], as + ((mb) + (q & 1) * 8 + r8) * A_LD + (ks) + (q >> 1) * CHUNK16)
#elif ELEM_BYTES == 2
#define LOAD_A(buf, i, mb, ks) \
  LDMATRIX_X4_TRANS(af[buf][i][0], af[buf][i][1], af[buf][i][2], af[buf][i][3], as + ((ks) + (q >> 1) * 8 + r8) * A_LD + (mb) + (q & 1) * 8)
#elif PAIRED_ROWS
  // Fragment rows g and g + 8 are taken from the stored rows 2g and 2g + 1 (adjacent: one 64-bit
  // load each for k = t and k = t + 4); C's rows follow (C_ROW).
#define LOAD_A(buf, i, mb, ks)                                               \
  {                                                                          \
    const float2 lo_ = vload2(0, as + ((ks) + t) * A_LD + (mb) + 2 * g);     \
    const float2 hi_ = vload2(0, as + ((ks) + t + 4) * A_LD + (mb) + 2 * g); \
    af[buf][i][0] = as_uint(lo_.x);                                          \
    af[buf][i][1] = as_uint(lo_.y);                                          \
    af[buf][i][2] = as_uint(hi_.x);                                          \
    af[buf][i][3] = as_uint(hi_.y);                                          \
  }
#else
#define LOAD_A(buf, i, mb, ks)                                 \
  {                                                            \
    const local float* p_ = as + ((ks) + t) * A_LD + (mb) + g; \
    af[buf][i][0] = as_uint(p_[0]);                            \
    af[buf][i][1] = as_uint(p_[8]);                            \
    af[buf][i][2] = as_uint(p_[4 * A_LD]);                     \
    af[buf][i][3] = as_uint(p_[4 * A_LD + 8]);                 \
  }
#endif
#if !TRANS_B
#define LOAD_B(buf, j, nb, ks) \
  LDMATRIX_X4(bf[buf][j][0], bf[buf][j][1], bf[buf][j + 1][0], bf[buf][j + 1][1], bs + ((nb) + (q >> 1) * 8 + r8) * B_LD + (ks) + (q & 1) * CHUNK16)
#elif ELEM_BYTES == 2
#define LOAD_B(buf, j, nb, ks) \
  LDMATRIX_X4_TRANS(bf[buf][j][0], bf[buf][j][1], bf[buf][j + 1][0], bf[buf][j + 1][1], bs + ((ks) + (q & 1) * 8 + r8) * B_LD + (nb) + (q >> 1) * 8)
#else
  // Scalar loads: pairing B's columns as A's rows are paired measured slower (TT TF32 at 8192^3
  // on an H200: 0.356 of cuBLAS against 0.466), so B stored along N is never paired.
#define LOAD_B(buf, j, nb, ks)                                 \
  {                                                            \
    const local float* p_ = bs + ((ks) + t) * B_LD + (nb) + g; \
    bf[buf][j][0] = as_uint(p_[0]);                            \
    bf[buf][j][1] = as_uint(p_[4 * B_LD]);                     \
    bf[buf][j + 1][0] = as_uint(p_[8]);                        \
    bf[buf][j + 1][1] = as_uint(p_[4 * B_LD + 8]);             \
  }
#endif
#define LOAD_FRAGMENTS(buf, ks)                                                              \
  {                                                                                          \
    _Pragma("unroll") for (int i_ = 0; i_ < MT; ++i_) LOAD_A(buf, i_, wm + i_ * 16, ks);     \
    _Pragma("unroll") for (int j_ = 0; j_ < NT8; j_ += 2) LOAD_B(buf, j_, wn + j_ * 8, ks); \
  }
#define MMA_STEP(buf)                                                                                \
  _Pragma("unroll") for (int i_ = 0; i_ < MT; ++i_) _Pragma("unroll") for (int j_ = 0; j_ < NT8; ++j_) \
    asm(MMA_OP " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                               \
        : "+f"(acc[i_][j_][0]), "+f"(acc[i_][j_][1]), "+f"(acc[i_][j_][2]), "+f"(acc[i_][j_][3])     \
        : "r"(af[buf][i_][0]), "r"(af[buf][i_][1]), "r"(af[buf][i_][2]), "r"(af[buf][i_][3]),       \
          "r"(bf[buf][j_][0]), "r"(bf[buf][j_][1]));

  uint af[2][MT][4];
  uint bf[2][NT8][2];
  // CUTLASS's multistage order: the wait and the barrier for the next stage come before the last
  // k-step's products, so the next tile's first fragments load while those run, and the copy into
  // the stage the barrier freed is issued at the start of each tile.
  GEMM_CP_ASYNC_WAIT(STAGES - 2);
  barrier(CLK_LOCAL_MEM_FENCE);
  const local operand_real* as = a_sh;
  const local operand_real* bs = b_sh;
  LOAD_FRAGMENTS(0, 0)
  // One K tile's products; the copy of tile `next` is issued at its start.
#define TILE_PRODUCTS(load_next)                                         \
  _Pragma("unroll") for (int ks = 0; ks < KSTEPS; ++ks) {                \
    if (ks == 0) {                                                       \
      const int next = tile + STAGES - 1;                                \
      load_next;                                                         \
      GEMM_CP_ASYNC_COMMIT();                                            \
    }                                                                    \
    if (ks == KSTEPS - 1) {                                              \
      GEMM_CP_ASYNC_WAIT(STAGES - 2);                                    \
      barrier(CLK_LOCAL_MEM_FENCE);                                      \
      as = a_sh + ((tile + 1) % STAGES) * A_STAGE;                       \
      bs = b_sh + ((tile + 1) % STAGES) * B_STAGE;                       \
      if (tile + 1 < tiles) LOAD_FRAGMENTS((ks + 1) & 1, 0)              \
    } else {                                                             \
      LOAD_FRAGMENTS((ks + 1) & 1, (ks + 1) * MMA_K)                     \
    }                                                                    \
    MMA_STEP(ks & 1)                                                     \
  }
#if !TRANS_A && TRANS_B
  int tile = 0;
  for (; tile + STAGES - 1 < inside_tiles; ++tile) TILE_PRODUCTS(NT_LOAD_STAGE_INSIDE(next % STAGES, next))
  for (; tile < tiles; ++tile) TILE_PRODUCTS(if (next < tiles) NT_LOAD_STAGE_CHECKED(next % STAGES, next))
#else
  for (int tile = 0; tile < tiles; ++tile) TILE_PRODUCTS(if (next < tiles) LOAD_STAGE(next % STAGES, next))
#endif
  GEMM_CP_ASYNC_WAIT(0);

  // Where product element (h, e) of fragment (i, j) lands: h picks the fragment's row g or g + 8
  // (permuted where A's fragments were paired), e its column 2t or 2t + 1.
#if PAIRED_ROWS && !TRANS_A && ELEM_BYTES == 4
#define C_ROW(i, h) (m0 + wm + (i) * 16 + 2 * g + (h))
#else
#define C_ROW(i, h) (m0 + wm + (i) * 16 + g + 8 * (h))
#endif
#define C_COL(j, e) (n0 + wn + (j) * 8 + 2 * t + (e))
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int row = C_ROW(i, h), col = C_COL(j, e);
          if (row < M && col < N)
            gemm_store_element(C, C_INDEX(row, col), row, col, acc[i][j][2 * h + e], alpha,
                               beta GEMM_EPILOGUE_ARGUMENTS);
        }
}
