// Softmax by rows of a column-major rows x cols float matrix (leading dimension rows), rows too
// long to hold in registers (8192 x 8192: a row is 32 KiB), in one kernel that reads its rows
// again from the L2 cache: a work-group owns R rows at a time (R consecutive rows: an R * 4-byte
// read per column) and walks them in passes, L1 lanes per row along the columns; the groups are
// few (G, a persistent grid walking blocks of rows), so that the rows they hold fit the L2.
//   ONLINE 1: pass 1 keeps each lane's (max, sum of exp(x - max)), rescaling the sum when the
//             max grows; pass 2 writes. 0: pass 1 max, pass 2 sum, pass 3 writes.
//   UNROLL    loads in flight per lane and pass
#ifndef ONLINE
#define ONLINE 1
#endif
#ifndef UNROLL
#define UNROLL 8
#endif

kernel __attribute__((reqd_work_group_size(R * L1, 1, 1)))
void softmax_reread(global const float* restrict a, global float* restrict out, int rows, int cols) {
  local float red_m[R * L1], red_s[R * L1];
  const int l0 = get_local_id(0) % R, l1 = get_local_id(0) / R;
  for (int block = get_group_id(0); block * R < rows; block += get_num_groups(0)) {
    const int row = block * R + l0;
    const int r = min(row, rows - 1);
    global const float* in = a + r;
    float m = -INFINITY, s = 0.0f;
#if ONLINE
    int c = l1;
    for (; c + (UNROLL - 1) * L1 < cols; c += UNROLL * L1) {
      float v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = in[(long)(c + u * L1) * rows];
      float vm = v[0];
#pragma unroll
      for (int u = 1; u < UNROLL; ++u) vm = fmax(vm, v[u]);
      if (vm > m) { s *= exp(m - vm); m = vm; }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) s += exp(v[u] - m);
    }
    for (; c < cols; c += L1) {
      const float x = in[(long)c * rows];
      if (x > m) { s *= exp(m - x); m = x; }
      s += exp(x - m);
    }
    // The lanes of each row: a tree over (max, sum) pairs.
    red_m[get_local_id(0)] = m;
    red_s[get_local_id(0)] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = L1 / 2; w > 0; w >>= 1) {
      if (l1 < w) {
        const float m2 = red_m[get_local_id(0) + w * R], s2 = red_s[get_local_id(0) + w * R];
        const float mm = fmax(m, m2);
        s = (m == -INFINITY ? 0.0f : s * exp(m - mm)) + (m2 == -INFINITY ? 0.0f : s2 * exp(m2 - mm));
        m = mm;
        red_m[get_local_id(0)] = m;
        red_s[get_local_id(0)] = s;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    m = red_m[l0];
    s = red_s[l0];
#else
    for (int c = l1; c < cols; c += L1) m = fmax(m, in[(long)c * rows]);
    red_m[get_local_id(0)] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = L1 / 2; w > 0; w >>= 1) {
      if (l1 < w) red_m[get_local_id(0)] = m = fmax(m, red_m[get_local_id(0) + w * R]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    m = red_m[l0];
    for (int c = l1; c < cols; c += L1) s += exp(in[(long)c * rows] - m);
    red_s[get_local_id(0)] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = L1 / 2; w > 0; w >>= 1) {
      if (l1 < w) red_s[get_local_id(0)] = s = s + red_s[get_local_id(0) + w * R];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    s = red_s[l0];
#endif
    barrier(CLK_LOCAL_MEM_FENCE);  // every lane has read its row's pair before the next block
    if (row < rows) {
      const float inv = 1.0f / s;
      int c = l1;
      for (; c + (UNROLL - 1) * L1 < cols; c += UNROLL * L1) {
        float v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = in[(long)(c + u * L1) * rows];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) out[row + (long)(c + u * L1) * rows] = exp(v[u] - m) * inv;
      }
      for (; c < cols; c += L1) out[row + (long)c * rows] = exp(in[(long)c * rows] - m) * inv;
    }
  }
}
