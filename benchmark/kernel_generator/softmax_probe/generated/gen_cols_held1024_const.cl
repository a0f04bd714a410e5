// one kernel: each reduction by the group owning its rows (columns), then the result
__attribute__((reqd_work_group_size(1024, 1, 1))) kernel void evaluate(
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
  const int L0 = 1024;
  const int L1 = 1;
  const int i = 0;
  const int j = (get_group_id(1) + get_num_groups(1) * get_group_id(2)) * L1 + l1;
  const int part = get_group_id(0);
  const int j1 = min(j, cols - 1);
  const int e1 = l0 + 0 * L0;
  const int e2 = min(e1, rows - 1);
  const int e3 = l0 + 1 * L0;
  const int e4 = min(e3, rows - 1);
  const int e5 = l0 + 2 * L0;
  const int e6 = min(e5, rows - 1);
  const int e7 = l0 + 3 * L0;
  const int e8 = min(e7, rows - 1);
  const int e9 = l0 + 4 * L0;
  const int e10 = min(e9, rows - 1);
  const int e11 = l0 + 5 * L0;
  const int e12 = min(e11, rows - 1);
  const int e13 = l0 + 6 * L0;
  const int e14 = min(e13, rows - 1);
  const int e15 = l0 + 7 * L0;
  const int e16 = min(e15, rows - 1);
  float acc1 = -INFINITY;
  float acc2 = -INFINITY;
  float acc3 = -INFINITY;
  float acc4 = -INFINITY;
  const float v1 = m2[e2 + (long)j1 * m2_rows];
  const float v2 = m2[e4 + (long)j1 * m2_rows];
  const float v3 = m2[e6 + (long)j1 * m2_rows];
  const float v4 = m2[e8 + (long)j1 * m2_rows];
  const float v5 = m2[e10 + (long)j1 * m2_rows];
  const float v6 = m2[e12 + (long)j1 * m2_rows];
  const float v7 = m2[e14 + (long)j1 * m2_rows];
  const float v8 = m2[e16 + (long)j1 * m2_rows];
  acc1 = ((e1 < rows ? v1 : -INFINITY) > acc1 ? (e1 < rows ? v1 : -INFINITY) : acc1);
  acc2 = ((e3 < rows ? v2 : -INFINITY) > acc2 ? (e3 < rows ? v2 : -INFINITY) : acc2);
  acc3 = ((e5 < rows ? v3 : -INFINITY) > acc3 ? (e5 < rows ? v3 : -INFINITY) : acc3);
  acc4 = ((e7 < rows ? v4 : -INFINITY) > acc4 ? (e7 < rows ? v4 : -INFINITY) : acc4);
  acc1 = ((e9 < rows ? v5 : -INFINITY) > acc1 ? (e9 < rows ? v5 : -INFINITY) : acc1);
  acc2 = ((e11 < rows ? v6 : -INFINITY) > acc2 ? (e11 < rows ? v6 : -INFINITY) : acc2);
  acc3 = ((e13 < rows ? v7 : -INFINITY) > acc3 ? (e13 < rows ? v7 : -INFINITY) : acc3);
  acc4 = ((e15 < rows ? v8 : -INFINITY) > acc4 ? (e15 < rows ? v8 : -INFINITY) : acc4);
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
  const float y1 = (e1 < rows ? v10 : 0) - acc5_c;
  const float t1 = acc5 + y1;
  acc5_c = (t1 - acc5) - y1;
  acc5 = t1;
  const float y2 = (e3 < rows ? v12 : 0) - acc6_c;
  const float t2 = acc6 + y2;
  acc6_c = (t2 - acc6) - y2;
  acc6 = t2;
  const float y3 = (e5 < rows ? v14 : 0) - acc7_c;
  const float t3 = acc7 + y3;
  acc7_c = (t3 - acc7) - y3;
  acc7 = t3;
  const float y4 = (e7 < rows ? v16 : 0) - acc8_c;
  const float t4 = acc8 + y4;
  acc8_c = (t4 - acc8) - y4;
  acc8 = t4;
  const float y5 = (e9 < rows ? v18 : 0) - acc5_c;
  const float t5 = acc5 + y5;
  acc5_c = (t5 - acc5) - y5;
  acc5 = t5;
  const float y6 = (e11 < rows ? v20 : 0) - acc6_c;
  const float t6 = acc6 + y6;
  acc6_c = (t6 - acc6) - y6;
  acc6 = t6;
  const float y7 = (e13 < rows ? v22 : 0) - acc7_c;
  const float t7 = acc7 + y7;
  acc7_c = (t7 - acc7) - y7;
  acc7 = t7;
  const float y8 = (e15 < rows ? v24 : 0) - acc8_c;
  const float t8 = acc8 + y8;
  acc8_c = (t8 - acc8) - y8;
  acc8 = t8;
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
  const float v25 = v10 / level2;
  const float v26 = v12 / level2;
  const float v27 = v14 / level2;
  const float v28 = v16 / level2;
  const float v29 = v18 / level2;
  const float v30 = v20 / level2;
  const float v31 = v22 / level2;
  const float v32 = v24 / level2;
  if (j < cols && e1 < rows) {
    m1[e2 + (long)j1 * m1_rows] = (float)v25;
  }
  if (j < cols && e3 < rows) {
    m1[e4 + (long)j1 * m1_rows] = (float)v26;
  }
  if (j < cols && e5 < rows) {
    m1[e6 + (long)j1 * m1_rows] = (float)v27;
  }
  if (j < cols && e7 < rows) {
    m1[e8 + (long)j1 * m1_rows] = (float)v28;
  }
  if (j < cols && e9 < rows) {
    m1[e10 + (long)j1 * m1_rows] = (float)v29;
  }
  if (j < cols && e11 < rows) {
    m1[e12 + (long)j1 * m1_rows] = (float)v30;
  }
  if (j < cols && e13 < rows) {
    m1[e14 + (long)j1 * m1_rows] = (float)v31;
  }
  if (j < cols && e15 < rows) {
    m1[e16 + (long)j1 * m1_rows] = (float)v32;
  }
}
