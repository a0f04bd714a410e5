// one kernel: each reduction by the group owning its rows (columns), then the result
kernel void evaluate(
    global float* restrict m1,
    int m1_rows,
    int m1_view,
    global const float* restrict m2,
    int m2_rows,
    int m2_view,
    int length1,
    int length2,
    int rows,
    int cols,
    local float* scratch0,
    local float* scratch1) {
  const int l0 = get_local_id(0);
  const int l1 = get_local_id(1);
  const int L0 = get_local_size(0);
  const int L1 = get_local_size(1);
  const int i = 0;
  const int j = (get_group_id(1) + get_num_groups(1) * get_group_id(2)) * L1 + l1;
  const int part = get_group_id(0);
  float acc1 = -INFINITY;
  float acc2 = -INFINITY;
  float acc3 = -INFINITY;
  float acc4 = -INFINITY;
  if (j < cols) {
    int t1 = l0;
    for (; t1 < rows - 3 * L0; t1 += 4 * L0) {
      const int k1 = t1 + 1 * L0;
      const int k2 = t1 + 2 * L0;
      const int k3 = t1 + 3 * L0;
      const float v1 = m2[t1 + (long)j * m2_rows];
      const float v2 = m2[k1 + (long)j * m2_rows];
      const float v3 = m2[k2 + (long)j * m2_rows];
      const float v4 = m2[k3 + (long)j * m2_rows];
      acc1 = (v1 > acc1 ? v1 : acc1);
      acc2 = (v2 > acc2 ? v2 : acc2);
      acc3 = (v3 > acc3 ? v3 : acc3);
      acc4 = (v4 > acc4 ? v4 : acc4);
    }
    for (; t1 < rows; t1 += L0) {
      const float v5 = m2[t1 + (long)j * m2_rows];
      acc1 = (v5 > acc1 ? v5 : acc1);
    }
  }
  const float r1 = (acc2 > acc1 ? acc2 : acc1);
  const float r2 = (acc3 > r1 ? acc3 : r1);
  const float r3 = (acc4 > r2 ? acc4 : r2);
  scratch0[l1 * L0 + l0] = r3;
  for (int s = L0 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l0 < s) {
      scratch0[l1 * L0 + l0] = (scratch0[l1 * L0 + l0 + s] > scratch0[l1 * L0 + l0] ? scratch0[l1 * L0 + l0 + s] : scratch0[l1 * L0 + l0]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const float level1 = scratch0[l1 * L0];
  float acc5 = 0;
  float acc5_c = 0;
  float acc6 = 0;
  float acc6_c = 0;
  float acc7 = 0;
  float acc7_c = 0;
  float acc8 = 0;
  float acc8_c = 0;
  if (j < cols) {
    int t2 = l0;
    for (; t2 < rows - 3 * L0; t2 += 4 * L0) {
      const int k4 = t2 + 1 * L0;
      const int k5 = t2 + 2 * L0;
      const int k6 = t2 + 3 * L0;
      const float v6 = m2[t2 + (long)j * m2_rows];
      const float v7 = v6 - level1;
      const float v8 = exp(v7);
      const float v9 = m2[k4 + (long)j * m2_rows];
      const float v10 = v9 - level1;
      const float v11 = exp(v10);
      const float v12 = m2[k5 + (long)j * m2_rows];
      const float v13 = v12 - level1;
      const float v14 = exp(v13);
      const float v15 = m2[k6 + (long)j * m2_rows];
      const float v16 = v15 - level1;
      const float v17 = exp(v16);
      const float y1 = v8 - acc5_c;
      const float t3 = acc5 + y1;
      acc5_c = (t3 - acc5) - y1;
      acc5 = t3;
      const float y2 = v11 - acc6_c;
      const float t4 = acc6 + y2;
      acc6_c = (t4 - acc6) - y2;
      acc6 = t4;
      const float y3 = v14 - acc7_c;
      const float t5 = acc7 + y3;
      acc7_c = (t5 - acc7) - y3;
      acc7 = t5;
      const float y4 = v17 - acc8_c;
      const float t6 = acc8 + y4;
      acc8_c = (t6 - acc8) - y4;
      acc8 = t6;
    }
    for (; t2 < rows; t2 += L0) {
      const float v18 = m2[t2 + (long)j * m2_rows];
      const float v19 = v18 - level1;
      const float v20 = exp(v19);
      const float y5 = v20 - acc5_c;
      const float t7 = acc5 + y5;
      acc5_c = (t7 - acc5) - y5;
      acc5 = t7;
    }
  }
  const float r4 = ((acc5 - acc5_c) + (acc6 - acc6_c));
  const float r5 = (r4 + (acc7 - acc7_c));
  const float r6 = (r5 + (acc8 - acc8_c));
  scratch1[l1 * L0 + l0] = r6;
  for (int s = L0 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l0 < s) {
      scratch1[l1 * L0 + l0] = (scratch1[l1 * L0 + l0] + scratch1[l1 * L0 + l0 + s]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const float level2 = scratch1[l1 * L0];
  if (j < cols) {
    for (int k = l0; k < rows; k += 4 * L0) {
      const int e1 = min(k, rows - 1);
      const int e2 = k + 1 * L0;
      const int e3 = min(e2, rows - 1);
      const int e4 = k + 2 * L0;
      const int e5 = min(e4, rows - 1);
      const int e6 = k + 3 * L0;
      const int e7 = min(e6, rows - 1);
      const float v21 = m2[e1 + (long)j * m2_rows];
      const float v22 = v21 - level1;
      const float v23 = exp(v22);
      const float v24 = v23 / level2;
      const float v25 = m2[e3 + (long)j * m2_rows];
      const float v26 = v25 - level1;
      const float v27 = exp(v26);
      const float v28 = v27 / level2;
      const float v29 = m2[e5 + (long)j * m2_rows];
      const float v30 = v29 - level1;
      const float v31 = exp(v30);
      const float v32 = v31 / level2;
      const float v33 = m2[e7 + (long)j * m2_rows];
      const float v34 = v33 - level1;
      const float v35 = exp(v34);
      const float v36 = v35 / level2;
      if (k < rows) {
        m1[e1 + (long)j * m1_rows] = (float)v24;
      }
      if (e2 < rows) {
        m1[e3 + (long)j * m1_rows] = (float)v28;
      }
      if (e4 < rows) {
        m1[e5 + (long)j * m1_rows] = (float)v32;
      }
      if (e6 < rows) {
        m1[e7 + (long)j * m1_rows] = (float)v36;
      }
    }
  }
}
