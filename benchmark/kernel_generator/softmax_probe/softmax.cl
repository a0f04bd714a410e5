// Softmax probes (column-major float matrices, rows x cols, leading dimension = rows).
// Macros, set by probe.cpp per variant:
//   L0      rows (columns) per work-group, the fast local dimension (coalesced)
//   L1      lanes per row (column), the slow local dimension
//   HELD    elements per work-item (= the reduced length / L1)
//   TREE    0: log2(L1)-step tree in local memory; 1: one barrier, every item reads all L1 partials;
//           2: as 1 up to 32 lanes, else 32 items combine L1 / 32 partials each first (three barriers)
//   RECIP   1: multiply by the reciprocal of the row sum instead of dividing
//   FASTEXP 1: native_exp
//   KAHAN   1: compensated sum
//   COPY    1: no arithmetic, store what was loaded (the access pattern's own cost)
#ifndef FASTEXP
#define FASTEXP 0
#endif
#if FASTEXP
#define EXP native_exp
#else
#define EXP exp
#endif

inline float combine_max(float x, float y) { return fmax(x, y); }
inline float combine_sum(float x, float y) { return x + y; }

#define GROUP_REDUCE(name, combine)                                                          \
  inline float name(float v, local float* scratch, int l0, int l1) {                       \
    scratch[l1 * L0 + l0] = v;                                                             \
    if (TREE == 0) {                                                                       \
      for (int s = L1 >> 1; s > 0; s >>= 1) {                                              \
        barrier(CLK_LOCAL_MEM_FENCE);                                                      \
        if (l1 < s) scratch[l1 * L0 + l0] = combine(scratch[l1 * L0 + l0], scratch[(l1 + s) * L0 + l0]); \
      }                                                                                    \
      barrier(CLK_LOCAL_MEM_FENCE);                                                        \
      return scratch[l0];                                                                  \
    } else if (TREE == 1 || L1 <= 32) {                                                    \
      barrier(CLK_LOCAL_MEM_FENCE);                                                        \
      float r = scratch[l0];                                                               \
      _Pragma("unroll") for (int k = 1; k < L1; ++k) r = combine(r, scratch[k * L0 + l0]); \
      return r;                                                                            \
    } else {                                                                               \
      /* two steps: 32 items combine L1 / 32 partials each, then every item the 32 */      \
      barrier(CLK_LOCAL_MEM_FENCE);                                                        \
      float r = scratch[l1 * L0 + l0];                                                     \
      if (l1 < 32) {                                                                       \
        _Pragma("unroll") for (int k = 1; k < L1 / 32; ++k) r = combine(r, scratch[(l1 + 32 * k) * L0 + l0]); \
      }                                                                                    \
      barrier(CLK_LOCAL_MEM_FENCE);                                                        \
      if (l1 < 32) scratch[l1 * L0 + l0] = r;                                              \
      barrier(CLK_LOCAL_MEM_FENCE);                                                        \
      r = scratch[l0];                                                                     \
      _Pragma("unroll") for (int k = 1; k < 32; ++k) r = combine(r, scratch[k * L0 + l0]); \
      return r;                                                                            \
    }                                                                                      \
  }
GROUP_REDUCE(group_max, combine_max)
GROUP_REDUCE(group_sum, combine_sum)

// Softmax of each row held in registers: the group owns L0 rows, lane l1 holds columns l1 + k*L1.
// STRIDE_ROWS: 1 softmax by rows (elements of a row are a leading dimension apart), 0 by columns
// (elements contiguous: then L0 columns per group and the held elements of a lane are L1 apart).
__attribute__((reqd_work_group_size(L0, L1, 1)))
kernel void softmax_held(global const float* restrict a, global float* restrict out, int rows, int cols) {
  local float scratch_max[L0 * L1];
  local float scratch_sum[L0 * L1];
  const int l0 = get_local_id(0), l1 = get_local_id(1);
  const int line = get_group_id(0) * L0 + l0;  // the row (column) this item works on
  long base, step;
#if STRIDE_ROWS
  base = line; step = rows;
#else
  base = (long)line * rows; step = 1;
#endif
  float v[HELD];
#pragma unroll
  for (int k = 0; k < HELD; ++k) v[k] = a[base + (long)(l1 + k * L1) * step];
#if COPY
#pragma unroll
  for (int k = 0; k < HELD; ++k) out[base + (long)(l1 + k * L1) * step] = v[k];
#else
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < HELD; ++k) m = fmax(m, v[k]);
  m = group_max(m, scratch_max, l0, l1);
  float s = 0, c = 0;
#pragma unroll
  for (int k = 0; k < HELD; ++k) {
    v[k] = EXP(v[k] - m);
#if KAHAN
    const float y = v[k] - c; const float t = s + y; c = (t - s) - y; s = t;
#else
    s += v[k];
#endif
  }
  s = group_sum(s - c, scratch_sum, l0, l1);
#if RECIP
  const float inv = 1.0f / s;
#pragma unroll
  for (int k = 0; k < HELD; ++k) out[base + (long)(l1 + k * L1) * step] = v[k] * inv;
#else
#pragma unroll
  for (int k = 0; k < HELD; ++k) out[base + (long)(l1 + k * L1) * step] = v[k] / s;
#endif
#endif
}

// Online maximum and sum of exp(x - max) of each row (two-pass softmax, first pass): the group
// owns L0 rows, lane l1 walks columns l1, l1 + L1, ...; per row one (max, sum) pair.
__attribute__((reqd_work_group_size(L0, L1, 1)))
kernel void row_max_sum(global const float* restrict a, global float2* restrict ms, int rows, int cols) {
  local float sm[L0 * L1];
  local float ss[L0 * L1];
  const int l0 = get_local_id(0), l1 = get_local_id(1);
  const int i = get_group_id(0) * L0 + l0;
  float m = -INFINITY, s = 0;
  for (int j = l1; j < cols; j += L1 * 4) {
    float x[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) x[u] = j + u * L1 < cols ? a[i + (long)(j + u * L1) * rows] : -INFINITY;
    const float mx = fmax(fmax(x[0], x[1]), fmax(x[2], x[3]));
    const float mn = fmax(m, mx);
    s = s * EXP(m - mn) + EXP(x[0] - mn) + EXP(x[1] - mn) + EXP(x[2] - mn) + EXP(x[3] - mn);
    m = mn;
  }
  sm[l1 * L0 + l0] = m;
  barrier(CLK_LOCAL_MEM_FENCE);
  float M = sm[l0];
  for (int k = 1; k < L1; ++k) M = fmax(M, sm[k * L0 + l0]);
  ss[l1 * L0 + l0] = s * EXP(m - M);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l1 == 0) {
    float S = 0;
    for (int k = 0; k < L1; ++k) S += ss[k * L0 + l0];
    ms[i] = (float2)(M, S);
  }
}

// Second pass: out = exp(a - max) / sum, four elements per item along the columns.
kernel void apply_max_sum(global const float* restrict a, global const float2* restrict ms,
                          global float* restrict out, int rows, int cols) {
  const int i = get_global_id(0);
  const int j0 = get_global_id(1) * 4;
  const float2 p = ms[i];
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const long at = i + (long)(j0 + u) * rows;
#if RECIP
    out[at] = EXP(a[at] - p.x) * (1.0f / p.y);
#else
    out[at] = EXP(a[at] - p.x) / p.y;
#endif
  }
}
