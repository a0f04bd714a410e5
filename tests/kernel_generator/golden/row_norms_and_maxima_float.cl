// the pass over the terms
kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    global float* restrict m2,
    int m2_rows,
    int m2_view,
    int length1,
    global const float* restrict m3,
    int m3_rows,
    int m3_view,
    int length2,
    int rows,
    int cols,
    int parts,
    int part_length,
    int lane_chunk,
    int lane_span,
    int lane_step,
    global float* partials0,
    local float* scratch0,
    global float* partials1,
    local float* scratch1) {
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
  float acc5 = -INFINITY;
  float acc6 = -INFINITY;
  float acc7 = -INFINITY;
  float acc8 = -INFINITY;
  if (i < rows) {
    int k = k_begin;
    for (; k < k_end - 3 * lane_step; k += 4 * lane_step) {
      const int k1 = k + 1 * lane_step;
      const int k2 = k + 2 * lane_step;
      const int k3 = k + 3 * lane_step;
      const float v1 = m3[i + (long)k * m3_rows];
      const float v2 = v1 * v1;
      const float v3 = m3[i + (long)k1 * m3_rows];
      const float v4 = v3 * v3;
      const float v5 = m3[i + (long)k2 * m3_rows];
      const float v6 = v5 * v5;
      const float v7 = m3[i + (long)k3 * m3_rows];
      const float v8 = v7 * v7;
      const float y1 = v2 - acc1_c;
      const float t1 = acc1 + y1;
      acc1_c = (t1 - acc1) - y1;
      acc1 = t1;
      const float y2 = v4 - acc2_c;
      const float t2 = acc2 + y2;
      acc2_c = (t2 - acc2) - y2;
      acc2 = t2;
      const float y3 = v6 - acc3_c;
      const float t3 = acc3 + y3;
      acc3_c = (t3 - acc3) - y3;
      acc3 = t3;
      const float y4 = v8 - acc4_c;
      const float t4 = acc4 + y4;
      acc4_c = (t4 - acc4) - y4;
      acc4 = t4;
      acc5 = (v1 > acc5 ? v1 : acc5);
      acc6 = (v3 > acc6 ? v3 : acc6);
      acc7 = (v5 > acc7 ? v5 : acc7);
      acc8 = (v7 > acc8 ? v7 : acc8);
    }
    for (; k < k_end; k += lane_step) {
      const float v9 = m3[i + (long)k * m3_rows];
      const float v10 = v9 * v9;
      const float y5 = v10 - acc1_c;
      const float t5 = acc1 + y5;
      acc1_c = (t5 - acc1) - y5;
      acc1 = t5;
      acc5 = (v9 > acc5 ? v9 : acc5);
    }
  }
  const float r1 = ((acc1 - acc1_c) + (acc2 - acc2_c));
  const float r2 = (r1 + (acc3 - acc3_c));
  const float r3 = (r2 + (acc4 - acc4_c));
  scratch0[l1 * L0 + l0] = r3;
  const float r4 = (acc6 > acc5 ? acc6 : acc5);
  const float r5 = (acc7 > r4 ? acc7 : r4);
  const float r6 = (acc8 > r5 ? acc8 : r5);
  scratch1[l1 * L0 + l0] = r6;
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch0[l1 * L0 + l0] = (scratch0[l1 * L0 + l0] + scratch0[(l1 + s) * L0 + l0]);
      scratch1[l1 * L0 + l0] = (scratch1[(l1 + s) * L0 + l0] > scratch1[l1 * L0 + l0] ? scratch1[(l1 + s) * L0 + l0] : scratch1[l1 * L0 + l0]);
    }
  }
  if (l1 == 0 && i < rows) {
    const float r7 = scratch0[l1 * L0 + l0];
    const float r8 = scratch1[l1 * L0 + l0];
    if (parts == 1) {
      const float v11 = sqrt(r7);
      m1[i + (long)j * m1_rows] = (float)v11;
      m2[i + (long)j * m2_rows] = (float)r8;
    }
    else {
      partials0[(long)part * rows + i] = r7;
      partials1[(long)part * rows + i] = r8;
    }
  }
}

// the finishing pass (when the terms are split into parts)
kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    global float* restrict m2,
    int m2_rows,
    int m2_view,
    int length1,
    global const float* restrict m3,
    int m3_rows,
    int m3_view,
    int length2,
    int rows,
    int cols,
    int parts,
    global const float* partials0,
    local float* scratch0,
    global const float* partials1,
    local float* scratch1) {
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
  float acc2 = -INFINITY;
  if (i < rows) {
    for (int p = l1; p < parts; p += L1) {
      acc2 = (partials1[(long)p * rows + i] > acc2 ? partials1[(long)p * rows + i] : acc2);
    }
  }
  scratch1[l1 * L0 + l0] = acc2;
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch0[l1 * L0 + l0] = (scratch0[l1 * L0 + l0] + scratch0[l1 * L0 + l0 + s * L0]);
      scratch1[l1 * L0 + l0] = (scratch1[l1 * L0 + l0 + s * L0] > scratch1[l1 * L0 + l0] ? scratch1[l1 * L0 + l0 + s * L0] : scratch1[l1 * L0 + l0]);
    }
  }
  if (l1 == 0 && i < rows) {
    const float r1 = scratch0[l0];
    const float r2 = scratch1[l0];
    const float v1 = sqrt(r1);
    m1[i + (long)j * m1_rows] = (float)v1;
    m2[i + (long)j * m2_rows] = (float)r2;
  }
}
