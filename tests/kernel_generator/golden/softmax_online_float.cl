// materialized first: a rowwise maximum and sum of exp(x - maximum), in one pass
// the pass over the terms
float4 tessera_online_merge_float(float4 a, float4 b) {
  if (b.x > a.x) {
    const float4 larger = b;
    b = a;
    a = larger;
  }
  const float scale = b.x == a.x ? (float)1 : exp(b.x - a.x);
  const float y = (b.y - b.z) * scale - a.z;
  const float s = a.y + y;
  return (float4)(a.x, s, (s - a.y) - y, (float)0);
}

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
    global float4* partials0,
    local float4* scratch0) {
  const int l0 = get_local_id(0);
  const int l1 = get_local_id(1);
  const int L0 = get_local_size(0);
  const int L1 = get_local_size(1);
  const int i = get_global_id(0);
  const int j = 0;
  const int part = get_group_id(1);
  const int part_begin = part * part_length;
  const int part_end = (int)min((long)length2, (long)part_begin + part_length);
  const int k_begin = part_begin + l1 * lane_chunk;
  const int k_end = (int)min((long)part_end, (long)k_begin + lane_span);
  float4 acc1 = (float4)(-INFINITY, (float)0, (float)0, (float)0);
  if (i < rows) {
    int k = k_begin;
    for (; k < k_end - 7 * lane_step; k += 8 * lane_step) {
      const int k1 = k + 1 * lane_step;
      const int k2 = k + 2 * lane_step;
      const int k3 = k + 3 * lane_step;
      const int k4 = k + 4 * lane_step;
      const int k5 = k + 5 * lane_step;
      const int k6 = k + 6 * lane_step;
      const int k7 = k + 7 * lane_step;
      const float v1 = m3[i + (long)k * m3_rows];
      const float v2 = m3[i + (long)k1 * m3_rows];
      const float v3 = m3[i + (long)k2 * m3_rows];
      const float v4 = m3[i + (long)k3 * m3_rows];
      const float v5 = m3[i + (long)k4 * m3_rows];
      const float v6 = m3[i + (long)k5 * m3_rows];
      const float v7 = m3[i + (long)k6 * m3_rows];
      const float v8 = m3[i + (long)k7 * m3_rows];
      const float top1 = fmax(fmax(fmax(fmax(fmax(fmax(fmax(fmax(acc1.x, v1), v2), v3), v4), v5), v6), v7), v8);
      const float base1 = top1 == -INFINITY ? (float)0 : top1;
      if (top1 > acc1.x) {
        const float scale1 = exp(acc1.x - base1);
        acc1.y *= scale1;
        acc1.z *= scale1;
      }
      const float y1 = exp(v1 - base1) - acc1.z;
      const float t1 = acc1.y + y1;
      acc1.z = (t1 - acc1.y) - y1;
      acc1.y = t1;
      const float y2 = exp(v2 - base1) - acc1.z;
      const float t2 = acc1.y + y2;
      acc1.z = (t2 - acc1.y) - y2;
      acc1.y = t2;
      const float y3 = exp(v3 - base1) - acc1.z;
      const float t3 = acc1.y + y3;
      acc1.z = (t3 - acc1.y) - y3;
      acc1.y = t3;
      const float y4 = exp(v4 - base1) - acc1.z;
      const float t4 = acc1.y + y4;
      acc1.z = (t4 - acc1.y) - y4;
      acc1.y = t4;
      const float y5 = exp(v5 - base1) - acc1.z;
      const float t5 = acc1.y + y5;
      acc1.z = (t5 - acc1.y) - y5;
      acc1.y = t5;
      const float y6 = exp(v6 - base1) - acc1.z;
      const float t6 = acc1.y + y6;
      acc1.z = (t6 - acc1.y) - y6;
      acc1.y = t6;
      const float y7 = exp(v7 - base1) - acc1.z;
      const float t7 = acc1.y + y7;
      acc1.z = (t7 - acc1.y) - y7;
      acc1.y = t7;
      const float y8 = exp(v8 - base1) - acc1.z;
      const float t8 = acc1.y + y8;
      acc1.z = (t8 - acc1.y) - y8;
      acc1.y = t8;
      acc1.x = top1;
    }
    for (; k < k_end; k += lane_step) {
      const float v9 = m3[i + (long)k * m3_rows];
      const float top2 = fmax(acc1.x, v9);
      const float base2 = top2 == -INFINITY ? (float)0 : top2;
      if (top2 > acc1.x) {
        const float scale2 = exp(acc1.x - base2);
        acc1.y *= scale2;
        acc1.z *= scale2;
      }
      const float y9 = exp(v9 - base2) - acc1.z;
      const float t9 = acc1.y + y9;
      acc1.z = (t9 - acc1.y) - y9;
      acc1.y = t9;
      acc1.x = top2;
    }
  }
  scratch0[l1 * L0 + l0] = acc1;
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch0[l1 * L0 + l0] = tessera_online_merge_float(scratch0[l1 * L0 + l0], scratch0[(l1 + s) * L0 + l0]);
    }
  }
  if (l1 == 0 && i < rows) {
    const float4 r1 = scratch0[l1 * L0 + l0];
    if (parts == 1) {
      const float max1 = r1.x;
      const float sum1 = r1.x == -INFINITY ? NAN : r1.y - r1.z;
      m1[i + (long)j * m1_rows] = (float)max1;
      m2[i + (long)j * m2_rows] = (float)sum1;
    }
    else {
      partials0[(long)part * rows + i] = r1;
    }
  }
}

// the finishing pass (when the terms are split into parts)
float4 tessera_online_merge_float(float4 a, float4 b) {
  if (b.x > a.x) {
    const float4 larger = b;
    b = a;
    a = larger;
  }
  const float scale = b.x == a.x ? (float)1 : exp(b.x - a.x);
  const float y = (b.y - b.z) * scale - a.z;
  const float s = a.y + y;
  return (float4)(a.x, s, (s - a.y) - y, (float)0);
}

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
    global const float4* partials0,
    local float4* scratch0) {
  const int i = get_global_id(0);
  const int j = 0;
  const int l0 = get_local_id(0);
  const int l1 = get_local_id(1);
  const int L0 = get_local_size(0);
  const int L1 = get_local_size(1);
  float4 acc1 = (float4)(-INFINITY, (float)0, (float)0, (float)0);
  if (i < rows) {
    for (int p = l1; p < parts; p += L1) {
      acc1 = tessera_online_merge_float(acc1, partials0[(long)p * rows + i]);
    }
  }
  scratch0[l1 * L0 + l0] = acc1;
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch0[l1 * L0 + l0] = tessera_online_merge_float(scratch0[l1 * L0 + l0], scratch0[l1 * L0 + l0 + s * L0]);
    }
  }
  if (l1 == 0 && i < rows) {
    const float4 r1 = scratch0[l0];
    const float max1 = r1.x;
    const float sum1 = r1.x == -INFINITY ? NAN : r1.y - r1.z;
    m1[i + (long)j * m1_rows] = (float)max1;
    m2[i + (long)j * m2_rows] = (float)sum1;
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
  const int i = 4 * get_global_id(0);
  const int j = get_global_id(1) + get_global_size(1) * get_global_id(2);
  if (i < rows && j < cols) {
    const int i1 = i + 1;
    const int i2 = i + 2;
    const int i3 = i + 3;
    const float4 v1 = *(global const float4*)(m2 + (i + (long)j * m2_rows));
    const float v2 = v1.s0;
    const float v3 = m3[i + (long)0 * m3_rows];
    const float v4 = v2 - v3;
    const float v5 = exp(v4);
    const float v6 = m4[i + (long)0 * m4_rows];
    const float v7 = v5 / v6;
    const float v8 = v1.s1;
    const float v9 = m3[i1 + (long)0 * m3_rows];
    const float v10 = v8 - v9;
    const float v11 = exp(v10);
    const float v12 = m4[i1 + (long)0 * m4_rows];
    const float v13 = v11 / v12;
    const float v14 = v1.s2;
    const float v15 = m3[i2 + (long)0 * m3_rows];
    const float v16 = v14 - v15;
    const float v17 = exp(v16);
    const float v18 = m4[i2 + (long)0 * m4_rows];
    const float v19 = v17 / v18;
    const float v20 = v1.s3;
    const float v21 = m3[i3 + (long)0 * m3_rows];
    const float v22 = v20 - v21;
    const float v23 = exp(v22);
    const float v24 = m4[i3 + (long)0 * m4_rows];
    const float v25 = v23 / v24;
    *(global float4*)(m1 + (i + (long)j * m1_rows)) = (float4)((float)v7, (float)v13, (float)v19, (float)v25);
  }
}
