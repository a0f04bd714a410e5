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
  float acc1[32];
  for (int u = 0; u < 32; ++u) {
    acc1[u] = -INFINITY;
  }
  if (i < rows) {
    if (m1_rows == 1 && m2_rows == 1) {
      int k = k_begin;
      for (; k < k_end - 31; k += 32) {
        for (int u = 0; u < 32; ++u) {
          const int k1 = k + u;
          const float v1 = m2[i + (long)k1 * 1];
          acc1[u] = (v1 > acc1[u] ? v1 : acc1[u]);
        }
      }
      for (; k < k_end; ++k) {
        const float v2 = m2[i + (long)k * 1];
        acc1[0] = (v2 > acc1[0] ? v2 : acc1[0]);
      }
    }
    else {
      int k = k_begin;
      for (; k < k_end - 31; k += 32) {
        for (int u = 0; u < 32; ++u) {
          const int k2 = k + u;
          const float v3 = m2[i + (long)k2 * m2_rows];
          acc1[u] = (v3 > acc1[u] ? v3 : acc1[u]);
        }
      }
      for (; k < k_end; ++k) {
        const float v4 = m2[i + (long)k * m2_rows];
        acc1[0] = (v4 > acc1[0] ? v4 : acc1[0]);
      }
    }
  }
  const float r1 = (acc1[1] > acc1[0] ? acc1[1] : acc1[0]);
  const float r2 = (acc1[2] > r1 ? acc1[2] : r1);
  const float r3 = (acc1[3] > r2 ? acc1[3] : r2);
  const float r4 = (acc1[4] > r3 ? acc1[4] : r3);
  const float r5 = (acc1[5] > r4 ? acc1[5] : r4);
  const float r6 = (acc1[6] > r5 ? acc1[6] : r5);
  const float r7 = (acc1[7] > r6 ? acc1[7] : r6);
  const float r8 = (acc1[8] > r7 ? acc1[8] : r7);
  const float r9 = (acc1[9] > r8 ? acc1[9] : r8);
  const float r10 = (acc1[10] > r9 ? acc1[10] : r9);
  const float r11 = (acc1[11] > r10 ? acc1[11] : r10);
  const float r12 = (acc1[12] > r11 ? acc1[12] : r11);
  const float r13 = (acc1[13] > r12 ? acc1[13] : r12);
  const float r14 = (acc1[14] > r13 ? acc1[14] : r13);
  const float r15 = (acc1[15] > r14 ? acc1[15] : r14);
  const float r16 = (acc1[16] > r15 ? acc1[16] : r15);
  const float r17 = (acc1[17] > r16 ? acc1[17] : r16);
  const float r18 = (acc1[18] > r17 ? acc1[18] : r17);
  const float r19 = (acc1[19] > r18 ? acc1[19] : r18);
  const float r20 = (acc1[20] > r19 ? acc1[20] : r19);
  const float r21 = (acc1[21] > r20 ? acc1[21] : r20);
  const float r22 = (acc1[22] > r21 ? acc1[22] : r21);
  const float r23 = (acc1[23] > r22 ? acc1[23] : r22);
  const float r24 = (acc1[24] > r23 ? acc1[24] : r23);
  const float r25 = (acc1[25] > r24 ? acc1[25] : r24);
  const float r26 = (acc1[26] > r25 ? acc1[26] : r25);
  const float r27 = (acc1[27] > r26 ? acc1[27] : r26);
  const float r28 = (acc1[28] > r27 ? acc1[28] : r27);
  const float r29 = (acc1[29] > r28 ? acc1[29] : r28);
  const float r30 = (acc1[30] > r29 ? acc1[30] : r29);
  const float r31 = (acc1[31] > r30 ? acc1[31] : r30);
  scratch0[l1 * L0 + l0] = r31;
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch0[l1 * L0 + l0] = (scratch0[(l1 + s) * L0 + l0] > scratch0[l1 * L0 + l0] ? scratch0[(l1 + s) * L0 + l0] : scratch0[l1 * L0 + l0]);
    }
  }
  if (l1 == 0 && i < rows) {
    const float r32 = scratch0[l1 * L0 + l0];
    if (parts == 1) {
      m1[i + (long)j * m1_rows] = (float)r32;
    }
    else {
      partials0[(long)part * rows + i] = r32;
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
  float acc1[32];
  float acc1_c[32];
  for (int u = 0; u < 32; ++u) {
    acc1[u] = 0;
    acc1_c[u] = 0;
  }
  if (i < rows) {
    if (m3_rows == 1 && m1_rows == 1 && m2_rows == 1) {
      int k = k_begin;
      for (; k < k_end - 31; k += 32) {
        for (int u = 0; u < 32; ++u) {
          const int k1 = k + u;
          const float v1 = m2[i + (long)k1 * 1];
          const float v2 = m3[i + (long)0 * 1];
          const float v3 = v1 - v2;
          const float v4 = exp(v3);
          const float y1 = v4 - acc1_c[u];
          const float t1 = acc1[u] + y1;
          acc1_c[u] = (t1 - acc1[u]) - y1;
          acc1[u] = t1;
        }
      }
      for (; k < k_end; ++k) {
        const float v5 = m2[i + (long)k * 1];
        const float v6 = m3[i + (long)0 * 1];
        const float v7 = v5 - v6;
        const float v8 = exp(v7);
        const float y2 = v8 - acc1_c[0];
        const float t2 = acc1[0] + y2;
        acc1_c[0] = (t2 - acc1[0]) - y2;
        acc1[0] = t2;
      }
    }
    else {
      int k = k_begin;
      for (; k < k_end - 31; k += 32) {
        for (int u = 0; u < 32; ++u) {
          const int k2 = k + u;
          const float v9 = m2[i + (long)k2 * m2_rows];
          const float v10 = m3[i + (long)0 * m3_rows];
          const float v11 = v9 - v10;
          const float v12 = exp(v11);
          const float y3 = v12 - acc1_c[u];
          const float t3 = acc1[u] + y3;
          acc1_c[u] = (t3 - acc1[u]) - y3;
          acc1[u] = t3;
        }
      }
      for (; k < k_end; ++k) {
        const float v13 = m2[i + (long)k * m2_rows];
        const float v14 = m3[i + (long)0 * m3_rows];
        const float v15 = v13 - v14;
        const float v16 = exp(v15);
        const float y4 = v16 - acc1_c[0];
        const float t4 = acc1[0] + y4;
        acc1_c[0] = (t4 - acc1[0]) - y4;
        acc1[0] = t4;
      }
    }
  }
  const float r1 = ((acc1[0] - acc1_c[0]) + (acc1[1] - acc1_c[1]));
  const float r2 = (r1 + (acc1[2] - acc1_c[2]));
  const float r3 = (r2 + (acc1[3] - acc1_c[3]));
  const float r4 = (r3 + (acc1[4] - acc1_c[4]));
  const float r5 = (r4 + (acc1[5] - acc1_c[5]));
  const float r6 = (r5 + (acc1[6] - acc1_c[6]));
  const float r7 = (r6 + (acc1[7] - acc1_c[7]));
  const float r8 = (r7 + (acc1[8] - acc1_c[8]));
  const float r9 = (r8 + (acc1[9] - acc1_c[9]));
  const float r10 = (r9 + (acc1[10] - acc1_c[10]));
  const float r11 = (r10 + (acc1[11] - acc1_c[11]));
  const float r12 = (r11 + (acc1[12] - acc1_c[12]));
  const float r13 = (r12 + (acc1[13] - acc1_c[13]));
  const float r14 = (r13 + (acc1[14] - acc1_c[14]));
  const float r15 = (r14 + (acc1[15] - acc1_c[15]));
  const float r16 = (r15 + (acc1[16] - acc1_c[16]));
  const float r17 = (r16 + (acc1[17] - acc1_c[17]));
  const float r18 = (r17 + (acc1[18] - acc1_c[18]));
  const float r19 = (r18 + (acc1[19] - acc1_c[19]));
  const float r20 = (r19 + (acc1[20] - acc1_c[20]));
  const float r21 = (r20 + (acc1[21] - acc1_c[21]));
  const float r22 = (r21 + (acc1[22] - acc1_c[22]));
  const float r23 = (r22 + (acc1[23] - acc1_c[23]));
  const float r24 = (r23 + (acc1[24] - acc1_c[24]));
  const float r25 = (r24 + (acc1[25] - acc1_c[25]));
  const float r26 = (r25 + (acc1[26] - acc1_c[26]));
  const float r27 = (r26 + (acc1[27] - acc1_c[27]));
  const float r28 = (r27 + (acc1[28] - acc1_c[28]));
  const float r29 = (r28 + (acc1[29] - acc1_c[29]));
  const float r30 = (r29 + (acc1[30] - acc1_c[30]));
  const float r31 = (r30 + (acc1[31] - acc1_c[31]));
  scratch0[l1 * L0 + l0] = r31;
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch0[l1 * L0 + l0] = (scratch0[l1 * L0 + l0] + scratch0[(l1 + s) * L0 + l0]);
    }
  }
  if (l1 == 0 && i < rows) {
    const float r32 = scratch0[l1 * L0 + l0];
    if (parts == 1) {
      m1[i + (long)j * m1_rows] = (float)r32;
    }
    else {
      partials0[(long)part * rows + i] = r32;
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
