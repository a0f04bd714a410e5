// one kernel: each reduction by the group owning its rows (columns), then the result
__attribute__((reqd_work_group_size(8, 128, 1))) kernel void evaluate(
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
  const int i = get_global_id(0);
  const int j = 0;
  const int part = get_group_id(1);
  const int i1 = min(i, rows - 1);
  const int e1 = l1 + 0 * L1;
  const int e2 = min(e1, cols - 1);
  const int e3 = l1 + 1 * L1;
  const int e4 = min(e3, cols - 1);
  const int e5 = l1 + 2 * L1;
  const int e6 = min(e5, cols - 1);
  const int e7 = l1 + 3 * L1;
  const int e8 = min(e7, cols - 1);
  const int e9 = l1 + 4 * L1;
  const int e10 = min(e9, cols - 1);
  const int e11 = l1 + 5 * L1;
  const int e12 = min(e11, cols - 1);
  const int e13 = l1 + 6 * L1;
  const int e14 = min(e13, cols - 1);
  const int e15 = l1 + 7 * L1;
  const int e16 = min(e15, cols - 1);
  float acc1 = -INFINITY;
  float acc2 = -INFINITY;
  float acc3 = -INFINITY;
  float acc4 = -INFINITY;
  const float v1 = m2[i1 + (long)e2 * m2_rows];
  const float v2 = m2[i1 + (long)e4 * m2_rows];
  const float v3 = m2[i1 + (long)e6 * m2_rows];
  const float v4 = m2[i1 + (long)e8 * m2_rows];
  const float v5 = m2[i1 + (long)e10 * m2_rows];
  const float v6 = m2[i1 + (long)e12 * m2_rows];
  const float v7 = m2[i1 + (long)e14 * m2_rows];
  const float v8 = m2[i1 + (long)e16 * m2_rows];
  acc1 = ((e1 < cols ? v1 : -INFINITY) > acc1 ? (e1 < cols ? v1 : -INFINITY) : acc1);
  acc2 = ((e3 < cols ? v2 : -INFINITY) > acc2 ? (e3 < cols ? v2 : -INFINITY) : acc2);
  acc3 = ((e5 < cols ? v3 : -INFINITY) > acc3 ? (e5 < cols ? v3 : -INFINITY) : acc3);
  acc4 = ((e7 < cols ? v4 : -INFINITY) > acc4 ? (e7 < cols ? v4 : -INFINITY) : acc4);
  acc1 = ((e9 < cols ? v5 : -INFINITY) > acc1 ? (e9 < cols ? v5 : -INFINITY) : acc1);
  acc2 = ((e11 < cols ? v6 : -INFINITY) > acc2 ? (e11 < cols ? v6 : -INFINITY) : acc2);
  acc3 = ((e13 < cols ? v7 : -INFINITY) > acc3 ? (e13 < cols ? v7 : -INFINITY) : acc3);
  acc4 = ((e15 < cols ? v8 : -INFINITY) > acc4 ? (e15 < cols ? v8 : -INFINITY) : acc4);
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
  barrier(CLK_LOCAL_MEM_FENCE);
  const float level1 = scratch0[l0];
  float acc5 = 0;
  float acc5_c = 0;
  float acc6 = 0;
  float acc6_c = 0;
  float acc7 = 0;
  float acc7_c = 0;
  float acc8 = 0;
  float acc8_c = 0;
  const float v9 = v1 - level1;
  const float v10 = exp(v9);
  const float v11 = v2 - level1;
  const float v12 = exp(v11);
  const float v13 = v3 - level1;
  const float v14 = exp(v13);
  const float v15 = v4 - level1;
  const float v16 = exp(v15);
  const float v17 = v5 - level1;
  const float v18 = exp(v17);
  const float v19 = v6 - level1;
  const float v20 = exp(v19);
  const float v21 = v7 - level1;
  const float v22 = exp(v21);
  const float v23 = v8 - level1;
  const float v24 = exp(v23);
  const float y1 = (e1 < cols ? v10 : 0) - acc5_c;
  const float t1 = acc5 + y1;
  acc5_c = (t1 - acc5) - y1;
  acc5 = t1;
  const float y2 = (e3 < cols ? v12 : 0) - acc6_c;
  const float t2 = acc6 + y2;
  acc6_c = (t2 - acc6) - y2;
  acc6 = t2;
  const float y3 = (e5 < cols ? v14 : 0) - acc7_c;
  const float t3 = acc7 + y3;
  acc7_c = (t3 - acc7) - y3;
  acc7 = t3;
  const float y4 = (e7 < cols ? v16 : 0) - acc8_c;
  const float t4 = acc8 + y4;
  acc8_c = (t4 - acc8) - y4;
  acc8 = t4;
  const float y5 = (e9 < cols ? v18 : 0) - acc5_c;
  const float t5 = acc5 + y5;
  acc5_c = (t5 - acc5) - y5;
  acc5 = t5;
  const float y6 = (e11 < cols ? v20 : 0) - acc6_c;
  const float t6 = acc6 + y6;
  acc6_c = (t6 - acc6) - y6;
  acc6 = t6;
  const float y7 = (e13 < cols ? v22 : 0) - acc7_c;
  const float t7 = acc7 + y7;
  acc7_c = (t7 - acc7) - y7;
  acc7 = t7;
  const float y8 = (e15 < cols ? v24 : 0) - acc8_c;
  const float t8 = acc8 + y8;
  acc8_c = (t8 - acc8) - y8;
  acc8 = t8;
  const float r4 = ((acc5 - acc5_c) + (acc6 - acc6_c));
  const float r5 = (r4 + (acc7 - acc7_c));
  const float r6 = (r5 + (acc8 - acc8_c));
  scratch1[l1 * L0 + l0] = r6;
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch1[l1 * L0 + l0] = (scratch1[l1 * L0 + l0] + scratch1[(l1 + s) * L0 + l0]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const float level2 = scratch1[l0];
  const float v25 = v10 / level2;
  const float v26 = v12 / level2;
  const float v27 = v14 / level2;
  const float v28 = v16 / level2;
  const float v29 = v18 / level2;
  const float v30 = v20 / level2;
  const float v31 = v22 / level2;
  const float v32 = v24 / level2;
  if (i < rows && e1 < cols) {
    m1[i1 + (long)e2 * m1_rows] = (float)v25;
  }
  if (i < rows && e3 < cols) {
    m1[i1 + (long)e4 * m1_rows] = (float)v26;
  }
  if (i < rows && e5 < cols) {
    m1[i1 + (long)e6 * m1_rows] = (float)v27;
  }
  if (i < rows && e7 < cols) {
    m1[i1 + (long)e8 * m1_rows] = (float)v28;
  }
  if (i < rows && e9 < cols) {
    m1[i1 + (long)e10 * m1_rows] = (float)v29;
  }
  if (i < rows && e11 < cols) {
    m1[i1 + (long)e12 * m1_rows] = (float)v30;
  }
  if (i < rows && e13 < cols) {
    m1[i1 + (long)e14 * m1_rows] = (float)v31;
  }
  if (i < rows && e15 < cols) {
    m1[i1 + (long)e16 * m1_rows] = (float)v32;
  }
}
