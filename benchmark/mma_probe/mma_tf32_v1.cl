// Prototype: TF32 tensor-core GEMM through inline PTX (mma.sync.m16n8k8), column-major NN,
// M, N multiples of BM, BN and K of BK (prototype only).
// Block tile BM x BN, warps WM x WN each, BK per stage, two stages through registers.
// Local layouts chosen so each fragment read is one 64-bit, conflict-free load:
//   A: a_sh[k][m'] with m' = position of m inside its 16-row group: (m & 7) * 2 + (m >> 3 & 1)
//      so rows g and g + 8 (a0, a1) are adjacent; row length LA = BM + 8 (LA = 8 mod 32).
//   B: b_sh[n][k'] with k' = (k & 3) * 2 + (k >> 2 & 1) inside each group of 8, so b0, b1
//      (k = t and t + 4) are adjacent; row length LB = BK + 8 (24 for BK = 16).
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
#define WARPS_M (BM / WM)
#define WARPS_N (BN / WN)
#define NT (WARPS_M * WARPS_N * 32)
#define MT (WM / 16)
#define NT8 (WN / 8)
#define LA (BM + 8)
#define LB ((BK + 8) % 16 == 8 ? BK + 8 : BK + 16)
#define A_VEC ((BM * BK) / (4 * NT))
#define B_VEC ((BN * BK) / (4 * NT))

inline uint to_tf32(float x) {
  uint r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

// Inside each group of 16 rows, rows g and g + 8 are adjacent; the pair index is XOR-ed with
// the row's k mod 4 so that a warp storing 4 k-rows x 32 m hits 32 distinct banks, and the
// fragment reads (lane (g, t) reads row k = t mod 4) stay conflict-free.
inline int a_pos(int m, int k) { return (m & ~15) + ((((m & 7) * 2) ^ ((k & 3) * 2)) + ((m >> 3) & 1)); }
inline int b_pos(int k) { return (k & ~7) + (k & 3) * 2 + ((k >> 2) & 1); }

kernel __attribute__((reqd_work_group_size(NT, 1, 1)))
void mma_gemm(const int M, const int N, const int K, const global float* restrict A, const int lda,
              const global float* restrict B, const int ldb, global float* restrict C, const int ldc) {
  local uint a_sh[2][BK * LA];
  local uint b_sh[2][BN * LB];
  const int tid = get_local_id(0);
  const int warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int wm = (warp % WARPS_M) * WM, wn = (warp / WARPS_M) * WN;
  const int m0 = get_group_id(0) * BM, n0 = get_group_id(1) * BN;

  float acc[MT][NT8][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT8; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;

  float4 ra[A_VEC], rb[B_VEC];
  // A (NN): contiguous in m: float4 along m. Vector v of the tile: m = (v % (BM/4)) * 4, k = v / (BM/4).
  // B (NN): contiguous in k: float4 along k. Vector v: k = (v % (BK/4)) * 4, n = v / (BK/4).
#define LOAD_TILES(k0)                                                                   \
  _Pragma("unroll") for (int s = 0; s < A_VEC; ++s) {                                      \
    const int v = tid + s * NT;                                                          \
    const int rest = v / 32;                                                             \
    const int m = ((v % 8) + 8 * (rest % (BM / 32))) * 4, k = (v / 8) % 4 + 4 * (rest / (BM / 32)); \
    ra[s] = vload4(0, A + (m0 + m) + (size_t)((k0) + k) * lda);                          \
  }                                                                                      \
  _Pragma("unroll") for (int s = 0; s < B_VEC; ++s) {                                      \
    const int v = tid + s * NT;                                                          \
    const int k = (v % (BK / 4)) * 4, n = v / (BK / 4);                                  \
    rb[s] = vload4(0, B + ((k0) + k) + (size_t)(n0 + n) * ldb);                          \
  }
#define STORE_TILES(buf)                                                                 \
  _Pragma("unroll") for (int s = 0; s < A_VEC; ++s) {                                      \
    const int v = tid + s * NT;                                                          \
    const int rest = v / 32;                                                             \
    const int m = ((v % 8) + 8 * (rest % (BM / 32))) * 4, k = (v / 8) % 4 + 4 * (rest / (BM / 32)); \
    local uint* row = a_sh[buf] + k * LA;                                                \
    row[a_pos(m, k)] = to_tf32(ra[s].x);                                                 \
    row[a_pos(m + 1, k)] = to_tf32(ra[s].y);                                             \
    row[a_pos(m + 2, k)] = to_tf32(ra[s].z);                                             \
    row[a_pos(m + 3, k)] = to_tf32(ra[s].w);                                             \
  }                                                                                      \
  _Pragma("unroll") for (int s = 0; s < B_VEC; ++s) {                                      \
    const int v = tid + s * NT;                                                          \
    const int k = (v % (BK / 4)) * 4, n = v / (BK / 4);                                  \
    local uint* row = b_sh[buf] + n * LB;                                                \
    row[b_pos(k)] = to_tf32(rb[s].x);                                                    \
    row[b_pos(k + 1)] = to_tf32(rb[s].y);                                                \
    row[b_pos(k + 2)] = to_tf32(rb[s].z);                                                \
    row[b_pos(k + 3)] = to_tf32(rb[s].w);                                                \
  }

  LOAD_TILES(0)
  STORE_TILES(0)
  barrier(CLK_LOCAL_MEM_FENCE);
  const int tiles = K / BK;
  for (int tile = 0; tile < tiles; ++tile) {
    const int cur = tile & 1;
    if (tile + 1 < tiles) { LOAD_TILES((tile + 1) * BK) }
#pragma unroll
    for (int ks = 0; ks < BK; ks += 8) {
      uint2 af[MT][2];
      uint2 bf[NT8];
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        const local uint* p = a_sh[cur] + (ks + t) * LA + wm + i * 16 + ((2 * g) ^ (2 * t));
        af[i][0] = vload2(0, p);           // a0 (g, t), a1 (g + 8, t)
        af[i][1] = vload2(0, p + 4 * LA);  // a2 (g, t + 4), a3 (g + 8, t + 4): same swizzle
      }
#pragma unroll
      for (int j = 0; j < NT8; ++j) bf[j] = vload2(0, b_sh[cur] + (wn + j * 8 + g) * LB + ks + 2 * t);
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT8; ++j)
          asm volatile(
              "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
              "{%0,%1,%2,%3};"
              : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
              : "r"(af[i][0].x), "r"(af[i][0].y), "r"(af[i][1].x), "r"(af[i][1].y), "r"(bf[j].x), "r"(bf[j].y));
    }
    if (tile + 1 < tiles) { STORE_TILES(cur ^ 1) }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  // c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1)
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
