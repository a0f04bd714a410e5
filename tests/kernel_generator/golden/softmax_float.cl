// materialized first: a rowwise reduction
// the pass over the terms
kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    int length1,
    global const float* restrict m2,
    int m2_rows,
    int m2_view,
    int rows,
    int cols,
    int parts,
    int part_length,
    int lane_chunk,
    int lane_span,
    int lane_step,
    global float* partials0,
    local float* scratch0) {
  const int l0 = get_local_id(0);
  const int l1 = get_local_id(1);
  const int L0 = get_local_size(0);
  const int L1 = get_local_size(1);
  const int i = get_global_id(0);
  const int j = 0;
  const int part = get_group_id(1);
  const int part_begin = part * part_length;
  const int part_end = (int)min((long)length1, (long)part_begin + part_length);
  const int k_begin = part_begin + l1 * lane_chunk;
  const int k_end = (int)min((long)part_end, (long)k_begin + lane_span);
  float acc1 = -INFINITY;
  float acc2 = -INFINITY;
  float acc3 = -INFINITY;
  float acc4 = -INFINITY;
  if (i < rows) {
    int k = k_begin;
    for (; k < k_end - 3 * lane_step; k += 4 * lane_step) {
      const int k1 = k + 1 * lane_step;
      const int k2 = k + 2 * lane_step;
      const int k3 = k + 3 * lane_step;
      const float v1 = m2[i + (long)k * m2_rows];
      const float v2 = m2[i + (long)k1 * m2_rows];
      const float v3 = m2[i + (long)k2 * m2_rows];
      const float v4 = m2[i + (long)k3 * m2_rows];
      acc1 = (v1 > acc1 ? v1 : acc1);
      acc2 = (v2 > acc2 ? v2 : acc2);
      acc3 = (v3 > acc3 ? v3 : acc3);
      acc4 = (v4 > acc4 ? v4 : acc4);
    }
    for (; k < k_end; k += lane_step) {
      const float v5 = m2[i + (long)k * m2_rows];
      acc1 = (v5 > acc1 ? v5 : acc1);
    }
  }
  const float r1 = (acc2 > acc1 ? acc2 : acc1);
  const float r2 = (acc3 > r1 ? acc3 : r1);
  const float r3 = (acc4 > r2 ? acc4 : r2);
  scratch0[l1 * L0 + l0] = r3;
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch0[l1 * L0 + l0] = (scratch0[(l1 + s) * L0 + l0] > scratch0[l1 * L0 + l0] ? scratch0[(l1 + s) * L0 + l0] : scratch0[l1 * L0 + l0]);
    }
  }
  if (l1 == 0 && i < rows) {
    const float r4 = scratch0[l1 * L0 + l0];
    if (parts == 1) {
      m1[i + (long)j * m1_rows] = (float)r4;
    }
    else {
      partials0[(long)part * rows + i] = r4;
    }
  }
}

// the finishing pass (when the terms are split into parts)
kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    int length1,
    global const float* restrict m2,
    int m2_rows,
    int m2_view,
    int rows,
    int cols,
    int parts,
    global const float* partials0,
    local float* scratch0) {
  const int i = get_global_id(0);
  const int j = 0;
  const int l0 = get_local_id(0);
  const int l1 = get_local_id(1);
  const int L0 = get_local_size(0);
  const int L1 = get_local_size(1);
  float acc1 = -INFINITY;
  if (i < rows) {
    for (int p = l1; p < parts; p += L1) {
      acc1 = (partials0[(long)p * rows + i] > acc1 ? partials0[(long)p * rows + i] : acc1);
    }
  }
  scratch0[l1 * L0 + l0] = acc1;
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch0[l1 * L0 + l0] = (scratch0[l1 * L0 + l0 + s * L0] > scratch0[l1 * L0 + l0] ? scratch0[l1 * L0 + l0 + s * L0] : scratch0[l1 * L0 + l0]);
    }
  }
  if (l1 == 0 && i < rows) {
    const float r1 = scratch0[l0];
    m1[i + (long)j * m1_rows] = (float)r1;
  }
}

// materialized first: a rowwise reduction
// the pass over the terms
kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    int length1,
    global const float* restrict m2,
    int m2_rows,
    int m2_view,
    global const float* restrict m3,
    int m3_rows,
    int m3_view,
    int rows,
    int cols,
    int parts,
    int part_length,
    int lane_chunk,
    int lane_span,
    int lane_step,
    global float* partials0,
    local float* scratch0) {
  const int l0 = get_local_id(0);
  const int l1 = get_local_id(1);
  const int L0 = get_local_size(0);
  const int L1 = get_local_size(1);
  const int i = get_global_id(0);
  const int j = 0;
  const int part = get_group_id(1);
  const int part_begin = part * part_length;
  const int part_end = (int)min((long)length1, (long)part_begin + part_length);
  const int k_begin = part_begin + l1 * lane_chunk;
  const int k_end = (int)min((long)part_end, (long)k_begin + lane_span);
  float acc1 = 0;
  float acc1_c = 0;
  float acc2 = 0;
  float acc2_c = 0;
  float acc3 = 0;
  float acc3_c = 0;
  float acc4 = 0;
  float acc4_c = 0;
  if (i < rows) {
    int k = k_begin;
    for (; k < k_end - 3 * lane_step; k += 4 * lane_step) {
      const int k1 = k + 1 * lane_step;
      const int k2 = k + 2 * lane_step;
      const int k3 = k + 3 * lane_step;
      const float v1 = m2[i + (long)k * m2_rows];
      const float v2 = m3[i + (long)0 * m3_rows];
      const float v3 = v1 - v2;
      const float v4 = exp(v3);
      const float v5 = m2[i + (long)k1 * m2_rows];
      const float v6 = v5 - v2;
      const float v7 = exp(v6);
      const float v8 = m2[i + (long)k2 * m2_rows];
      const float v9 = v8 - v2;
      const float v10 = exp(v9);
      const float v11 = m2[i + (long)k3 * m2_rows];
      const float v12 = v11 - v2;
      const float v13 = exp(v12);
      const float y1 = v4 - acc1_c;
      const float t1 = acc1 + y1;
      acc1_c = (t1 - acc1) - y1;
      acc1 = t1;
      const float y2 = v7 - acc2_c;
      const float t2 = acc2 + y2;
      acc2_c = (t2 - acc2) - y2;
      acc2 = t2;
      const float y3 = v10 - acc3_c;
      const float t3 = acc3 + y3;
      acc3_c = (t3 - acc3) - y3;
      acc3 = t3;
      const float y4 = v13 - acc4_c;
      const float t4 = acc4 + y4;
      acc4_c = (t4 - acc4) - y4;
      acc4 = t4;
    }
    for (; k < k_end; k += lane_step) {
      const float v14 = m2[i + (long)k * m2_rows];
      const float v15 = m3[i + (long)0 * m3_rows];
      const float v16 = v14 - v15;
      const float v17 = exp(v16);
      const float y5 = v17 - acc1_c;
      const float t5 = acc1 + y5;
      acc1_c = (t5 - acc1) - y5;
      acc1 = t5;
    }
  }
  const float r1 = ((acc1 - acc1_c) + (acc2 - acc2_c));
  const float r2 = (r1 + (acc3 - acc3_c));
  const float r3 = (r2 + (acc4 - acc4_c));
  scratch0[l1 * L0 + l0] = r3;
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch0[l1 * L0 + l0] = (scratch0[l1 * L0 + l0] + scratch0[(l1 + s) * L0 + l0]);
    }
  }
  if (l1 == 0 && i < rows) {
    const float r4 = scratch0[l1 * L0 + l0];
    if (parts == 1) {
      m1[i + (long)j * m1_rows] = (float)r4;
    }
    else {
      partials0[(long)part * rows + i] = r4;
    }
  }
}

// the finishing pass (when the terms are split into parts)
kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    int length1,
    global const float* restrict m2,
    int m2_rows,
    int m2_view,
    global const float* restrict m3,
    int m3_rows,
    int m3_view,
    int rows,
    int cols,
    int parts,
    global const float* partials0,
    local float* scratch0) {
  const int i = get_global_id(0);
  const int j = 0;
  const int l0 = get_local_id(0);
  const int l1 = get_local_id(1);
  const int L0 = get_local_size(0);
  const int L1 = get_local_size(1);
  float acc1 = 0;
  float acc1_c = 0;
  if (i < rows) {
    for (int p = l1; p < parts; p += L1) {
      const float y1 = partials0[(long)p * rows + i] - acc1_c;
      const float t1 = acc1 + y1;
      acc1_c = (t1 - acc1) - y1;
      acc1 = t1;
    }
  }
  scratch0[l1 * L0 + l0] = (acc1 - acc1_c);
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch0[l1 * L0 + l0] = (scratch0[l1 * L0 + l0] + scratch0[l1 * L0 + l0 + s * L0]);
    }
  }
  if (l1 == 0 && i < rows) {
    const float r1 = scratch0[l0];
    m1[i + (long)j * m1_rows] = (float)r1;
  }
}

kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    global const float* restrict m2,
    int m2_rows,
    int m2_view,
    global const float* restrict m3,
    int m3_rows,
    int m3_view,
    global const float* restrict m4,
    int m4_rows,
    int m4_view,
    int rows,
    int cols) {
  const int i = get_global_id(0);
  const int j = get_global_id(1) + get_global_size(1) * get_global_id(2);
  if (i < rows && j < cols) {
    const float v1 = m2[i + (long)j * m2_rows];
    const float v2 = m3[i + (long)0 * m3_rows];
    const float v3 = v1 - v2;
    const float v4 = exp(v3);
    const float v5 = m4[i + (long)0 * m4_rows];
    const float v6 = v4 / v5;
    m1[i + (long)j * m1_rows] = (float)v6;
  }
}
