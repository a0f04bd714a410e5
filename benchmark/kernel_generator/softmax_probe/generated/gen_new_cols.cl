// one kernel: each reduction by the group owning its rows (columns), then the result
__attribute__((reqd_work_group_size(512, 1, 1))) kernel void evaluate(
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
  const int L0 = 512;
  const int L1 = 1;
  const int i = 0;
  const int j = (get_group_id(1) + get_num_groups(1) * get_group_id(2)) * L1 + l1;
  const int part = get_group_id(0);
  const int j1 = min(j, cols - 1);
  const int e1 = l0 + 0 * L0;
  const int e2 = l0 + 1 * L0;
  const int e3 = l0 + 2 * L0;
  const int e4 = l0 + 3 * L0;
  const int e5 = l0 + 4 * L0;
  const int e6 = l0 + 5 * L0;
  const int e7 = l0 + 6 * L0;
  const int e8 = l0 + 7 * L0;
  const int e9 = l0 + 8 * L0;
  const int e10 = l0 + 9 * L0;
  const int e11 = l0 + 10 * L0;
  const int e12 = l0 + 11 * L0;
  const int e13 = l0 + 12 * L0;
  const int e14 = l0 + 13 * L0;
  const int e15 = l0 + 14 * L0;
  const int e16 = l0 + 15 * L0;
  const int e17 = min(e16, rows - 1);
  float acc1 = -INFINITY;
  float acc2 = -INFINITY;
  float acc3 = -INFINITY;
  float acc4 = -INFINITY;
  const float v1 = m2[e1 + (long)j1 * m2_rows];
  const float v2 = m2[e2 + (long)j1 * m2_rows];
  const float v3 = m2[e3 + (long)j1 * m2_rows];
  const float v4 = m2[e4 + (long)j1 * m2_rows];
  const float v5 = m2[e5 + (long)j1 * m2_rows];
  const float v6 = m2[e6 + (long)j1 * m2_rows];
  const float v7 = m2[e7 + (long)j1 * m2_rows];
  const float v8 = m2[e8 + (long)j1 * m2_rows];
  const float v9 = m2[e9 + (long)j1 * m2_rows];
  const float v10 = m2[e10 + (long)j1 * m2_rows];
  const float v11 = m2[e11 + (long)j1 * m2_rows];
  const float v12 = m2[e12 + (long)j1 * m2_rows];
  const float v13 = m2[e13 + (long)j1 * m2_rows];
  const float v14 = m2[e14 + (long)j1 * m2_rows];
  const float v15 = m2[e15 + (long)j1 * m2_rows];
  const float v16 = m2[e17 + (long)j1 * m2_rows];
  acc1 = (v1 > acc1 ? v1 : acc1);
  acc2 = (v2 > acc2 ? v2 : acc2);
  acc3 = (v3 > acc3 ? v3 : acc3);
  acc4 = (v4 > acc4 ? v4 : acc4);
  acc1 = (v5 > acc1 ? v5 : acc1);
  acc2 = (v6 > acc2 ? v6 : acc2);
  acc3 = (v7 > acc3 ? v7 : acc3);
  acc4 = (v8 > acc4 ? v8 : acc4);
  acc1 = (v9 > acc1 ? v9 : acc1);
  acc2 = (v10 > acc2 ? v10 : acc2);
  acc3 = (v11 > acc3 ? v11 : acc3);
  acc4 = (v12 > acc4 ? v12 : acc4);
  acc1 = (v13 > acc1 ? v13 : acc1);
  acc2 = (v14 > acc2 ? v14 : acc2);
  acc3 = (v15 > acc3 ? v15 : acc3);
  acc4 = ((e16 < rows ? v16 : -INFINITY) > acc4 ? (e16 < rows ? v16 : -INFINITY) : acc4);
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
  const float v17 = v1 - level1;
  const float v18 = exp(v17);
  const float v19 = v2 - level1;
  const float v20 = exp(v19);
  const float v21 = v3 - level1;
  const float v22 = exp(v21);
  const float v23 = v4 - level1;
  const float v24 = exp(v23);
  const float v25 = v5 - level1;
  const float v26 = exp(v25);
  const float v27 = v6 - level1;
  const float v28 = exp(v27);
  const float v29 = v7 - level1;
  const float v30 = exp(v29);
  const float v31 = v8 - level1;
  const float v32 = exp(v31);
  const float v33 = v9 - level1;
  const float v34 = exp(v33);
  const float v35 = v10 - level1;
  const float v36 = exp(v35);
  const float v37 = v11 - level1;
  const float v38 = exp(v37);
  const float v39 = v12 - level1;
  const float v40 = exp(v39);
  const float v41 = v13 - level1;
  const float v42 = exp(v41);
  const float v43 = v14 - level1;
  const float v44 = exp(v43);
  const float v45 = v15 - level1;
  const float v46 = exp(v45);
  const float v47 = v16 - level1;
  const float v48 = exp(v47);
  const float y1 = v18 - acc5_c;
  const float t1 = acc5 + y1;
  acc5_c = (t1 - acc5) - y1;
  acc5 = t1;
  const float y2 = v20 - acc6_c;
  const float t2 = acc6 + y2;
  acc6_c = (t2 - acc6) - y2;
  acc6 = t2;
  const float y3 = v22 - acc7_c;
  const float t3 = acc7 + y3;
  acc7_c = (t3 - acc7) - y3;
  acc7 = t3;
  const float y4 = v24 - acc8_c;
  const float t4 = acc8 + y4;
  acc8_c = (t4 - acc8) - y4;
  acc8 = t4;
  const float y5 = v26 - acc5_c;
  const float t5 = acc5 + y5;
  acc5_c = (t5 - acc5) - y5;
  acc5 = t5;
  const float y6 = v28 - acc6_c;
  const float t6 = acc6 + y6;
  acc6_c = (t6 - acc6) - y6;
  acc6 = t6;
  const float y7 = v30 - acc7_c;
  const float t7 = acc7 + y7;
  acc7_c = (t7 - acc7) - y7;
  acc7 = t7;
  const float y8 = v32 - acc8_c;
  const float t8 = acc8 + y8;
  acc8_c = (t8 - acc8) - y8;
  acc8 = t8;
  const float y9 = v34 - acc5_c;
  const float t9 = acc5 + y9;
  acc5_c = (t9 - acc5) - y9;
  acc5 = t9;
  const float y10 = v36 - acc6_c;
  const float t10 = acc6 + y10;
  acc6_c = (t10 - acc6) - y10;
  acc6 = t10;
  const float y11 = v38 - acc7_c;
  const float t11 = acc7 + y11;
  acc7_c = (t11 - acc7) - y11;
  acc7 = t11;
  const float y12 = v40 - acc8_c;
  const float t12 = acc8 + y12;
  acc8_c = (t12 - acc8) - y12;
  acc8 = t12;
  const float y13 = v42 - acc5_c;
  const float t13 = acc5 + y13;
  acc5_c = (t13 - acc5) - y13;
  acc5 = t13;
  const float y14 = v44 - acc6_c;
  const float t14 = acc6 + y14;
  acc6_c = (t14 - acc6) - y14;
  acc6 = t14;
  const float y15 = v46 - acc7_c;
  const float t15 = acc7 + y15;
  acc7_c = (t15 - acc7) - y15;
  acc7 = t15;
  const float y16 = (e16 < rows ? v48 : 0) - acc8_c;
  const float t16 = acc8 + y16;
  acc8_c = (t16 - acc8) - y16;
  acc8 = t16;
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
  const float v49 = v18 / level2;
  const float v50 = v20 / level2;
  const float v51 = v22 / level2;
  const float v52 = v24 / level2;
  const float v53 = v26 / level2;
  const float v54 = v28 / level2;
  const float v55 = v30 / level2;
  const float v56 = v32 / level2;
  const float v57 = v34 / level2;
  const float v58 = v36 / level2;
  const float v59 = v38 / level2;
  const float v60 = v40 / level2;
  const float v61 = v42 / level2;
  const float v62 = v44 / level2;
  const float v63 = v46 / level2;
  const float v64 = v48 / level2;
  if (j < cols) {
    m1[e1 + (long)j1 * m1_rows] = (float)v49;
  }
  if (j < cols) {
    m1[e2 + (long)j1 * m1_rows] = (float)v50;
  }
  if (j < cols) {
    m1[e3 + (long)j1 * m1_rows] = (float)v51;
  }
  if (j < cols) {
    m1[e4 + (long)j1 * m1_rows] = (float)v52;
  }
  if (j < cols) {
    m1[e5 + (long)j1 * m1_rows] = (float)v53;
  }
  if (j < cols) {
    m1[e6 + (long)j1 * m1_rows] = (float)v54;
  }
  if (j < cols) {
    m1[e7 + (long)j1 * m1_rows] = (float)v55;
  }
  if (j < cols) {
    m1[e8 + (long)j1 * m1_rows] = (float)v56;
  }
  if (j < cols) {
    m1[e9 + (long)j1 * m1_rows] = (float)v57;
  }
  if (j < cols) {
    m1[e10 + (long)j1 * m1_rows] = (float)v58;
  }
  if (j < cols) {
    m1[e11 + (long)j1 * m1_rows] = (float)v59;
  }
  if (j < cols) {
    m1[e12 + (long)j1 * m1_rows] = (float)v60;
  }
  if (j < cols) {
    m1[e13 + (long)j1 * m1_rows] = (float)v61;
  }
  if (j < cols) {
    m1[e14 + (long)j1 * m1_rows] = (float)v62;
  }
  if (j < cols) {
    m1[e15 + (long)j1 * m1_rows] = (float)v63;
  }
  if (j < cols && e16 < rows) {
    m1[e17 + (long)j1 * m1_rows] = (float)v64;
  }
}
