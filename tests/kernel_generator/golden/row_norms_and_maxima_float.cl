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
  const int i0 = get_global_id(0) * 64;
  const int j = 0;
  const int part = get_group_id(1);
  const int k_begin = part * part_length;
  const int k_end = (int)min((long)length1, (long)k_begin + part_length);
  float acc1[64];
  float acc1_c[64];
  for (int r = 0; r < 64; ++r) {
    acc1[r] = 0;
    acc1_c[r] = 0;
  }
  float acc2[64];
  for (int r = 0; r < 64; ++r) {
    acc2[r] = -INFINITY;
  }
  if (i0 + 64 <= rows) {
    int k = k_begin;
    for (; k < k_end; ++k) {
      for (int r = 0; r < 64; ++r) {
        const int ir = i0 + r;
        const float v1 = m3[ir + (long)k * m3_rows];
        const float v2 = v1 * v1;
        const float y1 = v2 - acc1_c[r];
        const float t1 = acc1[r] + y1;
        acc1_c[r] = (t1 - acc1[r]) - y1;
        acc1[r] = t1;
        acc2[r] = (v1 > acc2[r] ? v1 : acc2[r]);
      }
    }
  }
  else {
    int k = k_begin;
    for (; k < k_end; ++k) {
      for (int r = 0; r < 64; ++r) {
        const int ir = min(i0 + r, rows - 1);
        const float v3 = m3[ir + (long)k * m3_rows];
        const float v4 = v3 * v3;
        const float y2 = v4 - acc1_c[r];
        const float t2 = acc1[r] + y2;
        acc1_c[r] = (t2 - acc1[r]) - y2;
        acc1[r] = t2;
        acc2[r] = (v3 > acc2[r] ? v3 : acc2[r]);
      }
    }
  }
  for (int r = 0; r < 64; ++r) {
    const int i = i0 + r;
    if (i < rows) {
      const float r1 = (acc1[r] - acc1_c[r]);
      const float r2 = acc2[r];
      if (parts == 1) {
        const float v5 = sqrt(r1);
        m1[i + (long)j * m1_rows] = (float)v5;
        m2[i + (long)j * m2_rows] = (float)r2;
      }
      else {
        partials0[(long)part * rows + i] = r1;
        partials1[(long)part * rows + i] = r2;
      }
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
