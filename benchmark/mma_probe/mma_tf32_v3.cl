// Prototype v2: TF32 mma.sync GEMM, column-major NN, cp.async multi-stage pipeline.
// A tile in local memory as [k][m] rows (LA = BM + 8 floats, LA = 8 mod 32: the 4 scalar
// fragment loads of a warp hit 32 banks); B tile as [n][k] rows (LB = BK + 4), read with
// ldmatrix.x4 (32-bit elements as pairs of b16: lane (g, t) gets row g, column t).
// Fragments are rounded to TF32 (cvt.rna) after the load.
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef STAGES
#define STAGES 2
#endif
#define STR_(x) #x
#define STR(x) STR_(x)
#define WAIT_GROUP STR(WAIT)
#define WARPS_M (BM / WM)
#define WARPS_N (BN / WN)
#define NT (WARPS_M * WARPS_N * 32)
#define MT (WM / 16)
#define NT8 (WN / 8)
#define LA (BM + 8)
#define LB (BK + 4)
#define A_CHUNKS ((BM * BK) / (4 * NT))
#define B_CHUNKS ((BN * BK) / (4 * NT))
#define A_STAGE (BK * LA)
#define B_STAGE (BN * LB)

#ifndef ROUND
#define ROUND 1
#endif
inline uint to_tf32(uint x) {
#if !ROUND
  return x;  // the tensor cores ignore the low 13 bits: truncation
#endif
  uint r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(as_float(x)));
  return r;
}

inline void cp_async16(local const void* dst, global const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((uint)(size_t)dst), "l"(src));
}

kernel __attribute__((reqd_work_group_size(NT, 1, 1)))
void mma_gemm(const int M, const int N, const int K, const global float* restrict A, const int lda,
              const global float* restrict B, const int ldb, global float* restrict C, const int ldc) {
  local float a_sh[STAGES * A_STAGE] __attribute__((aligned(16)));
  local float b_sh[STAGES * B_STAGE] __attribute__((aligned(16)));
  const int tid = get_local_id(0);
  const int warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN;
  const int m0 = get_group_id(0) * BM, n0 = get_group_id(1) * BN;
  const global float* a_block = A + m0;
  const global float* b_block = B + (size_t)n0 * ldb;

  float acc[MT][NT8][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT8; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;

  const int tiles = K / BK;
#define LOAD_STAGE(stage, tile)                                                              \
  {                                                                                          \
    const int k0_ = (tile) * BK;                                                             \
    _Pragma("unroll") for (int s_ = 0; s_ < A_CHUNKS; ++s_) {                                 \
      const int c = tid + s_ * NT;                                                            \
      const int m = (c % (BM / 4)) * 4, k = c / (BM / 4);                                    \
      cp_async16(a_sh + (stage) * A_STAGE + k * LA + m, a_block + m + (size_t)(k0_ + k) * lda); \
    }                                                                                        \
    _Pragma("unroll") for (int s_ = 0; s_ < B_CHUNKS; ++s_) {                                 \
      const int c = tid + s_ * NT;                                                            \
      const int k = (c % (BK / 4)) * 4, n = c / (BK / 4);                                    \
      cp_async16(b_sh + (stage) * B_STAGE + n * LB + k, b_block + k0_ + k + (size_t)n * ldb); \
    }                                                                                        \
  }

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) LOAD_STAGE(s, s)
    asm volatile("cp.async.commit_group;" ::);
  }

  for (int tile = 0; tile < tiles; ++tile) {
    asm volatile("cp.async.wait_group " WAIT_GROUP ";" ::);
    barrier(CLK_LOCAL_MEM_FENCE);
    {
      const int next = tile + STAGES - 1;
      if (next < tiles) LOAD_STAGE(next % STAGES, next)
      asm volatile("cp.async.commit_group;" ::);
    }
    const local float* as = a_sh + (tile % STAGES) * A_STAGE;
    const local float* bs = b_sh + (tile % STAGES) * B_STAGE;
    // Fragments of k-step ks + 8 are loaded while the products of k-step ks are issued.
    uint af[2][MT][4];
    uint bf[2][NT8][2];
#define LOAD_FRAGMENTS(buf, ks)                                                              \
    _Pragma("unroll") for (int i = 0; i < MT; ++i) {                                         \
      const local float* p = as + ((ks) + t) * LA + wm + i * 16 + g;                         \
      af[buf][i][0] = to_tf32(as_uint(p[0]));                                                \
      af[buf][i][1] = to_tf32(as_uint(p[8]));                                                \
      af[buf][i][2] = to_tf32(as_uint(p[4 * LA]));                                           \
      af[buf][i][3] = to_tf32(as_uint(p[4 * LA + 8]));                                       \
    }                                                                                        \
    _Pragma("unroll") for (int j = 0; j < NT8; j += 2) {                                     \
      const int q = lane >> 3, r = lane & 7;                                                 \
      const local float* row = bs + (wn + (j + (q >> 1)) * 8 + r) * LB + (ks) + (q & 1) * 4; \
      uint r0, r1, r2, r3;                                                                   \
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"          \
                   : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)                                  \
                   : "r"((uint)(size_t)row));                                                \
      bf[buf][j][0] = to_tf32(r0);                                                           \
      bf[buf][j][1] = to_tf32(r1);                                                           \
      bf[buf][j + 1][0] = to_tf32(r2);                                                       \
      bf[buf][j + 1][1] = to_tf32(r3);                                                       \
    }
    LOAD_FRAGMENTS(0, 0)
#pragma unroll
    for (int ks = 0; ks < BK; ks += 8) {
      const int cur = (ks / 8) & 1;
      if (ks + 8 < BK) { LOAD_FRAGMENTS(cur ^ 1, ks + 8) }
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT8; ++j)
          asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
              "{%0,%1,%2,%3};"
              : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
              : "r"(af[cur][i][0]), "r"(af[cur][i][1]), "r"(af[cur][i][2]), "r"(af[cur][i][3]),
                "r"(bf[cur][j][0]), "r"(bf[cur][j][1]));
    }
  }
  asm volatile("cp.async.wait_group 0;" ::);
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT8; ++j) {
      const int r = m0 + wm + i * 16 + g, c = n0 + wn + j * 8 + 2 * t;
      C[r + (size_t)c * ldc] = acc[i][j][0];
      C[r + (size_t)(c + 1) * ldc] = acc[i][j][1];
      C[r + 8 + (size_t)c * ldc] = acc[i][j][2];
      C[r + 8 + (size_t)(c + 1) * ldc] = acc[i][j][3];
    }
}
