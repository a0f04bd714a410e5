// Exploration (issue 13): one tensor-core GEMM kernel for TF32, FP16 and BF16 inputs with FP32
// accumulation, every transpose, column-major, through mma.sync in inline PTX. Tile multiples
// only (M % BM == N % BN == K % BK == 0): the probe harness (sweep.cpp) checks it and times it.
//
// Operand staging: cp.async copies 16-byte chunks along each operand's contiguous dimension into
// local memory tiles laid out [strided][contiguous] with a pad that keeps every fragment load free
// of bank conflicts. Fragments: ldmatrix where the fragment's pairs run along the stored rows
// (or, for 16-bit values, .trans when they run across them); scalar loads for 32-bit values whose
// fragment runs across the stored rows (ldmatrix's .trans moves 16-bit values only).
//
// ELEM: 0 tf32 (float storage), 1 fp16, 2 bf16 (ushort storage).
#ifndef ELEM
#define ELEM 0
#endif
#ifndef TRANS_A
#define TRANS_A 0
#endif
#ifndef TRANS_B
#define TRANS_B 0
#endif
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 32
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef ROUND
#define ROUND 0
#endif
#ifndef PIPE
#define PIPE 1
#endif
#ifndef PERMUTE
#define PERMUTE 1
#endif

#define STR_(x) #x
#define STR(x) STR_(x)

#if ELEM == 0
typedef float elem_t;
#define ELEM_BYTES 4
#define MMA_K 8
#define MMA_OP "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
#elif ELEM == 1
typedef ushort elem_t;
#define ELEM_BYTES 2
#define MMA_K 16
#define MMA_OP "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
#else
typedef ushort elem_t;
#define ELEM_BYTES 2
#define MMA_K 16
#define MMA_OP "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
#endif
#define CHUNK (16 / ELEM_BYTES)  // elements per cp.async

#define WARPS_M (BM / WM)
#define WARPS_N (BN / WN)
#define THREADS (WARPS_M * WARPS_N * 32)
#define MT (WM / 16)
#define NT8 (WN / 8)

// 32-bit fragments read with scalar loads want a row length of 8 (mod 32) words; rows read with
// ldmatrix want an odd number of 16-byte units.
#define SCALAR_PAD 8
#define MATRIX_PAD CHUNK
#if TRANS_A
#define A_ROWS BM  // [m][k]
#define A_COLS BK
#define A_PAD MATRIX_PAD
#else
#define A_ROWS BK  // [k][m]
#define A_COLS BM
#if ELEM == 0
#define A_PAD SCALAR_PAD
#else
#define A_PAD MATRIX_PAD
#endif
#endif
#if TRANS_B
#define B_ROWS BK  // [k][n]
#define B_COLS BN
#if ELEM == 0
#define B_PAD SCALAR_PAD
#else
#define B_PAD MATRIX_PAD
#endif
#else
#define B_ROWS BN  // [n][k]
#define B_COLS BK
#define B_PAD MATRIX_PAD
#endif
#define A_LD (A_COLS + A_PAD)
#define B_LD (B_COLS + B_PAD)
#define A_STAGE (A_ROWS * A_LD)
#define B_STAGE (B_ROWS * B_LD)
#define A_CHUNKS (A_ROWS * A_COLS / CHUNK / THREADS)
#define B_CHUNKS (B_ROWS * B_COLS / CHUNK / THREADS)

inline uint local_address(const local void* p) { return (uint)(size_t)p; }

inline void cp_async16(const local void* dst, const global void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(local_address(dst)), "l"(src));
}

inline uint tf32_bits(uint x) {
#if ROUND
  uint r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(as_float(x)));
  return r;
#else
  return x;  // the tensor cores ignore the low 13 bits: round toward zero
#endif
}

#define LDMATRIX_X4(r0, r1, r2, r3, p) \
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" \
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(local_address(p)))
#define LDMATRIX_X4_TRANS(r0, r1, r2, r3, p) \
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" \
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(local_address(p)))

kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void mma_gemm(const int M, const int N, const int K, const float alpha, const global elem_t* restrict A,
              const int lda, const global elem_t* restrict B, const int ldb, const float beta,
              global float* restrict C, const int ldc) {
  local elem_t a_sh[STAGES * A_STAGE] __attribute__((aligned(16)));
  local elem_t b_sh[STAGES * B_STAGE] __attribute__((aligned(16)));
  const int tid = get_local_id(0);
  const int warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int q = lane >> 3, r8 = lane & 7;  // ldmatrix: which matrix this lane addresses, which row
  const int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN;

  // Groups of GROUP_M block rows run together, so concurrent work-groups share B panels in L2.
  const int grid_m = M / BM, grid_n = N / BN;
  const int pid = get_group_id(0);
  const int per_group = GROUP_M * grid_n;
  const int first_m = (pid / per_group) * GROUP_M;
  const int group_rows = min(grid_m - first_m, GROUP_M);
  const int block_m = first_m + (pid % per_group) % group_rows;
  const int block_n = (pid % per_group) / group_rows;
  const int m0 = block_m * BM, n0 = block_n * BN;

  float acc[MT][NT8][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

  // Global position of a chunk: contiguous index c (in elements, a multiple of CHUNK) and row s.
#if TRANS_A
#define A_GLOBAL(k0, s, c) (A + (size_t)(m0 + (s)) * lda + (k0) + (c))
#else
#define A_GLOBAL(k0, s, c) (A + (size_t)((k0) + (s)) * lda + m0 + (c))
#endif
#if TRANS_B
#define B_GLOBAL(k0, s, c) (B + (size_t)((k0) + (s)) * ldb + n0 + (c))
#else
#define B_GLOBAL(k0, s, c) (B + (size_t)(n0 + (s)) * ldb + (k0) + (c))
#endif
#define LOAD_STAGE(stage, tile)                                                         \
  {                                                                                     \
    const int k0_ = (tile) * BK;                                                        \
    _Pragma("unroll") for (int i_ = 0; i_ < A_CHUNKS; ++i_) {                            \
      const int x_ = tid + i_ * THREADS;                                                \
      const int c_ = (x_ % (A_COLS / CHUNK)) * CHUNK, s_ = x_ / (A_COLS / CHUNK);       \
      cp_async16(a_sh + (stage) * A_STAGE + s_ * A_LD + c_, A_GLOBAL(k0_, s_, c_));    \
    }                                                                                   \
    _Pragma("unroll") for (int i_ = 0; i_ < B_CHUNKS; ++i_) {                            \
      const int x_ = tid + i_ * THREADS;                                                \
      const int c_ = (x_ % (B_COLS / CHUNK)) * CHUNK, s_ = x_ / (B_COLS / CHUNK);       \
      cp_async16(b_sh + (stage) * B_STAGE + s_ * B_LD + c_, B_GLOBAL(k0_, s_, c_));    \
    }                                                                                   \
  }

  const int tiles = K / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) LOAD_STAGE(s, s)
    asm volatile("cp.async.commit_group;" ::);
  }

  // Fragments of one k-step of the stage at `as`/`bs` into af[buf]/bf[buf].
#if ELEM == 0
#if TRANS_A
#define LOAD_A(buf, i, mb, ks) \
  LDMATRIX_X4(af[buf][i][0], af[buf][i][1], af[buf][i][2], af[buf][i][3], as + ((mb) + (q & 1) * 8 + r8) * A_LD + (ks) + (q >> 1) * 4)
#else
#if PERMUTE
// The fragment's rows g and g + 8 are taken from the stored rows 2g and 2g + 1 (adjacent: one
// 64-bit load each for k = t and k = t + 4); the products' rows follow (see C_ROW).
#define LOAD_A(buf, i, mb, ks)                                                          \
  {                                                                                     \
    const float2 lo_ = vload2(0, as + ((ks) + t) * A_LD + (mb) + 2 * g);                \
    const float2 hi_ = vload2(0, as + ((ks) + t + 4) * A_LD + (mb) + 2 * g);            \
    af[buf][i][0] = as_uint(lo_.x);                                                     \
    af[buf][i][1] = as_uint(lo_.y);                                                     \
    af[buf][i][2] = as_uint(hi_.x);                                                     \
    af[buf][i][3] = as_uint(hi_.y);                                                     \
  }
#else
#define LOAD_A(buf, i, mb, ks)                                      \
  {                                                                 \
    const local float* p_ = as + ((ks) + t) * A_LD + (mb) + g;      \
    af[buf][i][0] = as_uint(p_[0]);                                 \
    af[buf][i][1] = as_uint(p_[8]);                                 \
    af[buf][i][2] = as_uint(p_[4 * A_LD]);                          \
    af[buf][i][3] = as_uint(p_[4 * A_LD + 8]);                      \
  }
#endif
#endif
#if TRANS_B
#if PERMUTE
// Tiles j and j + 1 take the stored columns 2g and 2g + 1 of their 16 (see C_COL).
#define LOAD_B(buf, j, nb, ks)                                                          \
  {                                                                                     \
    const float2 lo_ = vload2(0, bs + ((ks) + t) * B_LD + (nb) + 2 * g);                \
    const float2 hi_ = vload2(0, bs + ((ks) + t + 4) * B_LD + (nb) + 2 * g);            \
    bf[buf][j][0] = as_uint(lo_.x);                                                     \
    bf[buf][j][1] = as_uint(hi_.x);                                                     \
    bf[buf][j + 1][0] = as_uint(lo_.y);                                                 \
    bf[buf][j + 1][1] = as_uint(hi_.y);                                                 \
  }
#else
#define LOAD_B(buf, j, nb, ks)                                      \
  {                                                                 \
    const local float* p_ = bs + ((ks) + t) * B_LD + (nb) + g;      \
    bf[buf][j][0] = as_uint(p_[0]);                                 \
    bf[buf][j][1] = as_uint(p_[4 * B_LD]);                          \
    bf[buf][j + 1][0] = as_uint(p_[8]);                             \
    bf[buf][j + 1][1] = as_uint(p_[4 * B_LD + 8]);                  \
  }
#endif
#else
#define LOAD_B(buf, j, nb, ks) \
  LDMATRIX_X4(bf[buf][j][0], bf[buf][j][1], bf[buf][j + 1][0], bf[buf][j + 1][1], bs + ((nb) + (q >> 1) * 8 + r8) * B_LD + (ks) + (q & 1) * 4)
#endif
#else
#if TRANS_A
#define LOAD_A(buf, i, mb, ks) \
  LDMATRIX_X4(af[buf][i][0], af[buf][i][1], af[buf][i][2], af[buf][i][3], as + ((mb) + (q & 1) * 8 + r8) * A_LD + (ks) + (q >> 1) * 8)
#else
#define LOAD_A(buf, i, mb, ks) \
  LDMATRIX_X4_TRANS(af[buf][i][0], af[buf][i][1], af[buf][i][2], af[buf][i][3], as + ((ks) + (q >> 1) * 8 + r8) * A_LD + (mb) + (q & 1) * 8)
#endif
#if TRANS_B
#define LOAD_B(buf, j, nb, ks) \
  LDMATRIX_X4_TRANS(bf[buf][j][0], bf[buf][j][1], bf[buf][j + 1][0], bf[buf][j + 1][1], bs + ((ks) + (q & 1) * 8 + r8) * B_LD + (nb) + (q >> 1) * 8)
#else
#define LOAD_B(buf, j, nb, ks) \
  LDMATRIX_X4(bf[buf][j][0], bf[buf][j][1], bf[buf][j + 1][0], bf[buf][j + 1][1], bs + ((nb) + (q >> 1) * 8 + r8) * B_LD + (ks) + (q & 1) * 8)
#endif
#endif
#define LOAD_FRAGMENTS(buf, ks)                                                  \
  {                                                                            \
    _Pragma("unroll") for (int i_ = 0; i_ < MT; ++i_) LOAD_A(buf, i_, wm + i_ * 16, ks);      \
    _Pragma("unroll") for (int j_ = 0; j_ < NT8; j_ += 2) LOAD_B(buf, j_, wn + j_ * 8, ks);  \
    if (ELEM == 0) {                                                           \
      _Pragma("unroll") for (int i_ = 0; i_ < MT; ++i_)                        \
        _Pragma("unroll") for (int e_ = 0; e_ < 4; ++e_) af[buf][i_][e_] = tf32_bits(af[buf][i_][e_]); \
      _Pragma("unroll") for (int j_ = 0; j_ < NT8; ++j_) {                     \
        bf[buf][j_][0] = tf32_bits(bf[buf][j_][0]);                            \
        bf[buf][j_][1] = tf32_bits(bf[buf][j_][1]);                            \
      }                                                                        \
    }                                                                          \
  }
#define MMA_STEP(buf)                                                                                 \
  _Pragma("unroll") for (int i_ = 0; i_ < MT; ++i_)                                                   \
    _Pragma("unroll") for (int j_ = 0; j_ < NT8; ++j_)                                                \
      asm(MMA_OP " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                             \
          : "+f"(acc[i_][j_][0]), "+f"(acc[i_][j_][1]), "+f"(acc[i_][j_][2]), "+f"(acc[i_][j_][3])     \
          : "r"(af[buf][i_][0]), "r"(af[buf][i_][1]), "r"(af[buf][i_][2]), "r"(af[buf][i_][3]),       \
            "r"(bf[buf][j_][0]), "r"(bf[buf][j_][1]));

#define KSTEPS (BK / MMA_K)
#if PIPE && KSTEPS % 2 != 0
#error "the pipelined loop alternates two fragment buffers per k-step: BK / MMA_K must be even"
#endif
  uint af[2][MT][4];
  uint bf[2][NT8][2];
#if PIPE
  // CUTLASS's multistage order: the wait and the barrier for the next stage come before the last
  // k-step's products, so the first fragments of the next tile load while those products run,
  // and the copy into the stage freed by the barrier is issued at the start of each tile.
  asm volatile("cp.async.wait_group " STR(STAGES - 2) ";" ::);
  barrier(CLK_LOCAL_MEM_FENCE);
  const local elem_t* as = a_sh;
  const local elem_t* bs = b_sh;
  LOAD_FRAGMENTS(0, 0)
  for (int tile = 0; tile < tiles; ++tile) {
#pragma unroll
    for (int ks = 0; ks < KSTEPS; ++ks) {
      if (ks == 0) {
        const int next = tile + STAGES - 1;
        if (next < tiles) LOAD_STAGE(next % STAGES, next)
        asm volatile("cp.async.commit_group;" ::);
      }
      if (ks == KSTEPS - 1) {
        asm volatile("cp.async.wait_group " STR(STAGES - 2) ";" ::);
        barrier(CLK_LOCAL_MEM_FENCE);
        as = a_sh + ((tile + 1) % STAGES) * A_STAGE;
        bs = b_sh + ((tile + 1) % STAGES) * B_STAGE;
        if (tile + 1 < tiles) LOAD_FRAGMENTS((ks + 1) & 1, 0)
      } else {
        LOAD_FRAGMENTS((ks + 1) & 1, (ks + 1) * MMA_K)
      }
      MMA_STEP(ks & 1)
    }
  }
#else
  for (int tile = 0; tile < tiles; ++tile) {
    asm volatile("cp.async.wait_group " STR(STAGES - 2) ";" ::);
    barrier(CLK_LOCAL_MEM_FENCE);
    {
      const int next = tile + STAGES - 1;
      if (next < tiles) LOAD_STAGE(next % STAGES, next)
      asm volatile("cp.async.commit_group;" ::);
    }
    const local elem_t* as = a_sh + (tile % STAGES) * A_STAGE;
    const local elem_t* bs = b_sh + (tile % STAGES) * B_STAGE;
#pragma unroll
    for (int ks = 0; ks < KSTEPS; ++ks) {
      LOAD_FRAGMENTS(0, ks * MMA_K)
      MMA_STEP(0)
    }
  }
#endif
  asm volatile("cp.async.wait_group 0;" ::);
  // Where product element (h, e) of tile (i, j) lands: h picks the fragment's row g or g + 8, e its
  // column 2t or 2t + 1.
#if PERMUTE && ELEM == 0 && !TRANS_A
#define C_ROW(i, h) (m0 + wm + (i) * 16 + 2 * g + (h))
#else
#define C_ROW(i, h) (m0 + wm + (i) * 16 + g + 8 * (h))
#endif
#if PERMUTE && ELEM == 0 && TRANS_B
#define C_COL(j, e) (n0 + wn + ((j) & ~1) * 8 + 2 * (2 * t + (e)) + ((j) & 1))
#else
#define C_COL(j, e) (n0 + wn + (j) * 8 + 2 * t + (e))
#endif
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          global float* c = C + C_ROW(i, h) + (size_t)C_COL(j, e) * ldc;
          const float v = alpha * acc[i][j][2 * h + e];
          *c = beta == 0.f ? v : v + beta * *c;
        }
}
