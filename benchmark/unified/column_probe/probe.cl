// Column reductions and 2-D full sums of row-major floats: variants of the unified front door's
// traced kernels (reduction_kernels.hpp), one change at a time, to find what holds them at 0.7x
// the copy on an H200. Options choose the variant (probe.cpp lists them):
//   IDX       long (as traced) or int
//   RESTRICT  restrict or nothing on the input
//   ACC       accumulators per work-item (1, 2, 4, 8, 16)
//   W, RL     columns per group and row lanes (compile-time: W * RL work-items)
//   LAST      1: the last group of a column block to finish combines the parts (no second kernel)

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

// ---- the traced kernels, as TESSERA_SHOW_KERNELS=1 prints them (col_sum's first and final pass)
#ifndef TRACED_ATTR
#define TRACED_ATTR
#endif
#ifndef COMBINE
#define COMBINE(a, v) ((a) + (v))
#endif
kernel TRACED_ATTR void traced_col(long rows1, long cols1, long lanes1, long parts1, long part_length1, long part_extent1,
                       long chunk1, long span1, long step1, float identity1, global const float* p1, long stride1,
                       global float* partials1, global float* result1, long finish1, long col_groups1, long lanes_shift1) {
#ifdef TRACED_LANES
  lanes1 = TRACED_LANES;  // a compile-time number of columns per group
#endif
#ifdef TRACED_ZERO
  identity1 = 0.0f;  // a compile-time identity
#endif
  local float scratch1[256];
  const long lid1 = get_local_id(0);
#if defined(TRACED_SHIFT)
  // lanes is a power of two: a shift and a mask (lanes_shift1 = log2 lanes, from the host)
  const long row_lane1 = lid1 >> lanes_shift1;
  const long row_lanes1 = (long)get_local_size(0) >> lanes_shift1;
#define LANE_OF(l) ((l) & (lanes1 - 1))
#elif defined(TRACED_DIV32)
  // Work-item numbers fit 32 bits: a 32-bit division (a 64-bit one is a call with many registers).
  const long row_lane1 = (long)((uint)lid1 / (uint)lanes1);
  const long row_lanes1 = (long)((uint)get_local_size(0) / (uint)lanes1);
#define LANE_OF(l) (long)((uint)(l) % (uint)lanes1)
#else
  const long row_lane1 = lid1 / lanes1;
  const long row_lanes1 = (long)get_local_size(0) / lanes1;
#define LANE_OF(l) (l) % lanes1
#endif
  const long part1 = get_group_id(1);
  for (long block1 = get_group_id(0); block1 < col_groups1; block1 += get_num_groups(0)) {
    const long col1 = block1 * lanes1 + LANE_OF(lid1);
    float acc1 = identity1;
    if (col1 < cols1) {
      const long begin1 = part1 * part_length1;
      const long end1 = min(rows1, begin1 + part_extent1);
      const long first1 = begin1 + row_lane1 * chunk1;
      const long last1 = min(end1, first1 + span1);
      float acc2 = identity1, acc3 = identity1, acc4 = identity1;
      long x1 = first1;
      for (; x1 + 3 * step1 < last1; x1 += 4 * step1) {
        const float v1 = p1[x1 * stride1 + col1];
        const long x2 = x1 + 1 * step1;
        const float v2 = p1[x2 * stride1 + col1];
        const long x3 = x1 + 2 * step1;
        const float v3 = p1[x3 * stride1 + col1];
        const long x4 = x1 + 3 * step1;
        const float v4 = p1[x4 * stride1 + col1];
        acc1 = COMBINE(acc1, v1); acc2 = COMBINE(acc2, v2); acc3 = COMBINE(acc3, v3); acc4 = COMBINE(acc4, v4);
      }
      for (; x1 < last1; x1 += step1) acc1 = COMBINE(acc1, p1[x1 * stride1 + col1]);
      acc1 = COMBINE(COMBINE(COMBINE(acc1, acc2), acc3), acc4);
    }
    scratch1[lid1] = acc1;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long s1 = row_lanes1 / 2; s1 > 0; s1 >>= 1) {
      if (row_lane1 < s1) scratch1[lid1] = COMBINE(scratch1[lid1], scratch1[lid1 + s1 * lanes1]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row_lane1 == 0 && col1 < cols1) {
      if (finish1) result1[col1] = scratch1[lid1];
      else partials1[part1 * cols1 + col1] = scratch1[lid1];
    }
  }
}

kernel void traced_final(long outputs1, long parts1, long output_step1, long part_step1, long lanes1,
                         long parts_fastest1, float identity1, global const float* partials1, global float* result1,
                         long result_stride1) {
  local float scratch1[256];
  const long lid1 = get_local_id(0);
  const long per_group1 = (long)get_local_size(0) / lanes1;
  const long lane1 = parts_fastest1 ? lid1 % lanes1 : lid1 / per_group1;
  const long slot1 = parts_fastest1 ? lid1 / lanes1 : lid1 % per_group1;
  const long spacing1 = parts_fastest1 ? 1 : per_group1;
  const long o1 = (long)get_group_id(0) * per_group1 + slot1;
  float acc1 = identity1;
  if (o1 < outputs1) {
    float acc2 = identity1, acc3 = identity1, acc4 = identity1;
    long x1 = lane1;
    for (; x1 + 3 * lanes1 < parts1; x1 += 4 * lanes1) {
      const float v1 = partials1[o1 * output_step1 + x1 * part_step1];
      const float v2 = partials1[o1 * output_step1 + (x1 + lanes1) * part_step1];
      const float v3 = partials1[o1 * output_step1 + (x1 + 2 * lanes1) * part_step1];
      const float v4 = partials1[o1 * output_step1 + (x1 + 3 * lanes1) * part_step1];
      acc1 += v1; acc2 += v2; acc3 += v3; acc4 += v4;
    }
    for (; x1 < parts1; x1 += lanes1) acc1 += partials1[o1 * output_step1 + x1 * part_step1];
    acc1 = ((acc1 + acc2) + acc3) + acc4;
  }
  scratch1[lid1] = acc1;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (long s1 = lanes1 / 2; s1 > 0; s1 >>= 1) {
    if (lane1 < s1) scratch1[lid1] += scratch1[lid1 + s1 * spacing1];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane1 == 0 && o1 < outputs1) result1[o1 * result_stride1] = scratch1[lid1];
}

#ifndef LAST
#define LAST 0
#endif

// LAST 1: OpenCL 1.2 fences (NVIDIA: membar.cta, not enough across groups); 2: OpenCL 3.0
// device-scope acquire/release fences; 3: NVIDIA's membar.gl in inline PTX.
inline void release_fence(void) {
#if LAST == 1
  mem_fence(CLK_GLOBAL_MEM_FENCE);
#elif LAST == 2
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
#elif LAST == 3
  asm volatile("membar.gl;" ::: "memory");
#endif
}
inline void acquire_fence(void) {
#if LAST == 1
  mem_fence(CLK_GLOBAL_MEM_FENCE);
#elif LAST == 2
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device);
#elif LAST == 3
  asm volatile("membar.gl;" ::: "memory");
#endif
}

#ifdef W
// ---- the parametric column pass: group (block, part) sums W columns over its part's rows
#ifndef IDX
#define IDX long
#endif
#ifndef RESTRICT
#define RESTRICT
#endif
#ifndef LAST
#define LAST 0
#endif
#ifndef BLOCKLOOP
#define BLOCKLOOP 0
#endif
#ifndef AIDX
#define AIDX IDX
#endif
kernel __attribute__((reqd_work_group_size(W * RL, 1, 1)))
void col_pass(IDX rows, IDX cols, IDX part_length, IDX part_extent, IDX chunk, IDX span, IDX step,
              global const float* RESTRICT p, IDX stride, global float* partials, global float* result,
              global uint* counters, IDX parts, IDX col_blocks) {
  local float scratch[W * RL];
  local int is_last;
  const IDX lid = get_local_id(0);
  const IDX lane = lid % W, row_lane = lid / W;
  const IDX part = get_group_id(1);
#if BLOCKLOOP
  for (IDX block = get_group_id(0); block < col_blocks; block += get_num_groups(0)) {
#else
  { const IDX block = get_group_id(0);
#endif
  const IDX col = block * W + lane;
  float acc[ACC];
  for (int u = 0; u < ACC; ++u) acc[u] = 0.0f;
  if (col < cols) {
    const IDX begin = part * part_length;
    const IDX end = min(rows, begin + part_extent);
    const IDX first = begin + row_lane * chunk;
    const IDX last = min(end, first + span);
    IDX x = first;
    for (; x + (ACC - 1) * step < last; x += ACC * step) {
      float v[ACC];
#pragma unroll
      for (int u = 0; u < ACC; ++u) v[u] = p[(AIDX)(x + u * step) * (AIDX)stride + (AIDX)col];
#pragma unroll
      for (int u = 0; u < ACC; ++u) acc[u] += v[u];
    }
    for (; x < last; x += step) acc[0] += p[(AIDX)x * (AIDX)stride + (AIDX)col];
#pragma unroll
    for (int u = 1; u < ACC; ++u) acc[0] += acc[u];
  }
  scratch[lid] = acc[0];
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int s = RL / 2; s > 0; s >>= 1) {
    if (row_lane < s) scratch[lid] += scratch[lid + s * W];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (parts == 1) {
    if (row_lane == 0 && col < cols) result[col] = scratch[lid];
  } else {
    if (row_lane == 0 && col < cols) partials[part * cols + col] = scratch[lid];
#if LAST
    // The parts of this block of columns are in; the last group to finish adds them in part
    // order (the same bits whichever group it is).
    release_fence();
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (lid == 0) is_last = atomic_inc(&counters[block]) == (uint)(parts - 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (is_last) {
      acquire_fence();
      const volatile global float* in = partials;
      // Row lane r adds parts r, r + RL, ... in order; then the lanes in order.
      float sum = 0.0f;
      if (col < cols)
        for (IDX q = row_lane; q < parts; q += RL) sum += in[q * cols + col];
      scratch[lid] = sum;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (row_lane == 0 && col < cols) {
        float total = scratch[lid];
        for (int r = 1; r < RL; ++r) total += scratch[lid + r * W];
        result[col] = total;
      }
      if (lid == 0) counters[block] = 0;
    }
#endif
  }
  }
}
#endif

// ---- 2-D full sums of rows x cols (stride) floats
// The traced kernel: a grid-stride walk whose row and column step along with the index.
kernel TRACED_ATTR void traced_full(long n1, long cols1, long step_rows1, long step_cols1, long chunk1, long span1, long step1,
                        float identity1, global const float* p1, long stride1, global float* partials1, ulong magic1, uint shift1,
                        uint magic32, uint pre32, uint post32) {
  local float scratch1[256];
  const long lid1 = get_local_id(0);
  const long gid1 = get_global_id(0);
  float acc1 = identity1;
  const long first1 = gid1 * chunk1;
  const long last1 = min(n1, first1 + span1);
#if defined(TRACED_DIV32)
  // 32-bit when both fit (the 64-bit path stays in the kernel)
  long row1 = (cols1 > 0) ? ((first1 | cols1) >> 32 == 0 ? (long)((uint)first1 / (uint)cols1) : first1 / cols1) : 0;
#elif defined(TRACED_MAGIC)
  // first1 / cols1 as a multiply by a reciprocal (Granlund and Montgomery: exact for every ulong)
  long row1;
  {
    const ulong x = (ulong)first1, hi = mul_hi(x, magic1);
    row1 = cols1 == 1 ? first1 : (long)((hi + ((x - hi) >> 1)) >> shift1);
  }
#else
  long row1 = (cols1 > 0) ? first1 / cols1 : 0;
#endif
  long col1 = first1 - row1 * cols1;
  float acc5 = identity1, acc6 = identity1, acc7 = identity1;
  long x6 = first1;
#ifdef TRACED_RECIP
  // Each term's row from its index (x / cols = (hi + ((x - hi) >> pre)) >> post, hi = mul_hi(x, magic),
  // exact for every uint x: n < 2^32), so that the terms' loads do not wait for each other.
  for (; x6 + 3 * step1 < last1; x6 += 4 * step1) {
    const uint y1 = (uint)x6, h1 = mul_hi(y1, magic32), r1 = (h1 + ((y1 - h1) >> pre32)) >> post32;
    const float v14 = p1[(long)r1 * stride1 + (long)(y1 - r1 * (uint)cols1)];
    const uint y2 = (uint)(x6 + step1), h2 = mul_hi(y2, magic32), r2 = (h2 + ((y2 - h2) >> pre32)) >> post32;
    const float v15 = p1[(long)r2 * stride1 + (long)(y2 - r2 * (uint)cols1)];
    const uint y3 = (uint)(x6 + 2 * step1), h3 = mul_hi(y3, magic32), r3 = (h3 + ((y3 - h3) >> pre32)) >> post32;
    const float v16 = p1[(long)r3 * stride1 + (long)(y3 - r3 * (uint)cols1)];
    const uint y4 = (uint)(x6 + 3 * step1), h4 = mul_hi(y4, magic32), r4 = (h4 + ((y4 - h4) >> pre32)) >> post32;
    const float v17 = p1[(long)r4 * stride1 + (long)(y4 - r4 * (uint)cols1)];
    acc1 += v14; acc5 += v15; acc6 += v16; acc7 += v17;
  }
  for (; x6 < last1; x6 += step1) {
    const uint y1 = (uint)x6, h1 = mul_hi(y1, magic32), r1 = (h1 + ((y1 - h1) >> pre32)) >> post32;
    acc1 += p1[(long)r1 * stride1 + (long)(y1 - r1 * (uint)cols1)];
  }
#else
  for (; x6 + 3 * step1 < last1; x6 += 4 * step1) {
    const float v14 = p1[row1 * stride1 + col1];
    col1 += step_cols1; row1 += step_rows1;
    if (col1 >= cols1) { col1 -= cols1; ++row1; }
    const float v15 = p1[row1 * stride1 + col1];
    col1 += step_cols1; row1 += step_rows1;
    if (col1 >= cols1) { col1 -= cols1; ++row1; }
    const float v16 = p1[row1 * stride1 + col1];
    col1 += step_cols1; row1 += step_rows1;
    if (col1 >= cols1) { col1 -= cols1; ++row1; }
    const float v17 = p1[row1 * stride1 + col1];
    col1 += step_cols1; row1 += step_rows1;
    if (col1 >= cols1) { col1 -= cols1; ++row1; }
    acc1 += v14; acc5 += v15; acc6 += v16; acc7 += v17;
  }
  for (; x6 < last1; x6 += step1) {
    acc1 += p1[row1 * stride1 + col1];
    col1 += step_cols1; row1 += step_rows1;
    if (col1 >= cols1) { col1 -= cols1; ++row1; }
  }
#endif
  acc1 = ((acc1 + acc5) + acc6) + acc7;
  scratch1[lid1] = acc1;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (long s1 = get_local_size(0) / 2; s1 > 0; s1 >>= 1) {
    if (lid1 < s1) scratch1[lid1] += scratch1[lid1 + s1];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid1 == 0) partials1[get_group_id(0)] = scratch1[0];
}

kernel void traced_final_scalar(long count1, float identity1, global const float* partials1, global float* result1) {
  local float scratch1[256];
  const long lid1 = get_local_id(0);
  float acc1 = identity1;
  for (long k1 = lid1; k1 < count1; k1 += get_local_size(0)) acc1 += partials1[k1];
  scratch1[lid1] = acc1;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (long s1 = get_local_size(0) / 2; s1 > 0; s1 >>= 1) {
    if (lid1 < s1) scratch1[lid1] += scratch1[lid1 + s1];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid1 == 0) result1[0] = scratch1[0];
}

#ifdef FULL
// The parametric full sum: item terms x = gid, gid + step, ... (step = all items), ACC at a time,
// each term's row and column computed from x alone (FULL 1: 64-bit division; 2: 32-bit unsigned
// division; 3: a multiply by the reciprocal, mul_hi, 32-bit; 4: contiguous, no row or column: the
// ceiling). LAST 1: the last group to finish adds the partials.
#ifndef ACC
#define ACC 4
#endif
#ifndef LAST
#define LAST 0
#endif
inline float term(global const float* restrict p, long x, long cols, long stride, uint magic, uint shift) {
#if FULL == 1
  const long r = x / cols;
  return p[r * stride + (x - r * cols)];
#elif FULL == 2
  const uint y = (uint)x, r = y / (uint)cols;
  return p[(long)r * stride + (y - r * (uint)cols)];
#elif FULL == 3
  const uint y = (uint)x, r = cols == 1 ? y : mul_hi(y, magic) >> shift;
  return p[(long)r * stride + (y - r * (uint)cols)];
#else
  return p[x];
#endif
}
#define AT(x) term(p, (x), cols, stride, magic, shift)
kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void full_pass(long n, long cols, long step, uint magic, uint shift, global const float* restrict p, long stride,
               global float* partials, global float* result, global uint* counters) {
  local float scratch[256];
  local int is_last;
  const int lid = get_local_id(0);
  float acc[ACC];
  for (int u = 0; u < ACC; ++u) acc[u] = 0.0f;
  long x = get_global_id(0);
  for (; x + (ACC - 1) * step < n; x += ACC * step) {
    float v[ACC];
#pragma unroll
    for (int u = 0; u < ACC; ++u) v[u] = AT(x + u * step);
#pragma unroll
    for (int u = 0; u < ACC; ++u) acc[u] += v[u];
  }
  for (; x < n; x += step) acc[0] += AT(x);
#pragma unroll
  for (int u = 1; u < ACC; ++u) acc[0] += acc[u];
  scratch[lid] = acc[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 128; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partials[get_group_id(0)] = scratch[0];
#if LAST
  release_fence();
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  if (lid == 0) is_last = atomic_inc(&counters[0]) == get_num_groups(0) - 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (is_last) {
    acquire_fence();
    const volatile global float* in = partials;
    float sum = 0.0f;
    for (int q = lid; q < get_num_groups(0); q += 256) sum += in[q];
    scratch[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 128; s > 0; s >>= 1) {
      if (lid < s) scratch[lid] += scratch[lid + s];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) { result[0] = scratch[0]; counters[0] = 0; }
  }
#endif
}
#endif
