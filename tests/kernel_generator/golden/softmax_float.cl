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
  float acc5 = -INFINITY;
  float acc6 = -INFINITY;
  float acc7 = -INFINITY;
  float acc8 = -INFINITY;
  float acc9 = -INFINITY;
  float acc10 = -INFINITY;
  float acc11 = -INFINITY;
  float acc12 = -INFINITY;
  float acc13 = -INFINITY;
  float acc14 = -INFINITY;
  float acc15 = -INFINITY;
  float acc16 = -INFINITY;
  if (i < rows) {
    if (m1_rows == 1 && m2_rows == 1) {
      int k = k_begin;
      for (; k < k_end - 15; k += 16) {
        const int k1 = k + 1;
        const int k2 = k + 2;
        const int k3 = k + 3;
        const int k4 = k + 4;
        const int k5 = k + 5;
        const int k6 = k + 6;
        const int k7 = k + 7;
        const int k8 = k + 8;
        const int k9 = k + 9;
        const int k10 = k + 10;
        const int k11 = k + 11;
        const int k12 = k + 12;
        const int k13 = k + 13;
        const int k14 = k + 14;
        const int k15 = k + 15;
        const float v1 = m2[i + (long)k * 1];
        const float v2 = m2[i + (long)k1 * 1];
        const float v3 = m2[i + (long)k2 * 1];
        const float v4 = m2[i + (long)k3 * 1];
        const float v5 = m2[i + (long)k4 * 1];
        const float v6 = m2[i + (long)k5 * 1];
        const float v7 = m2[i + (long)k6 * 1];
        const float v8 = m2[i + (long)k7 * 1];
        const float v9 = m2[i + (long)k8 * 1];
        const float v10 = m2[i + (long)k9 * 1];
        const float v11 = m2[i + (long)k10 * 1];
        const float v12 = m2[i + (long)k11 * 1];
        const float v13 = m2[i + (long)k12 * 1];
        const float v14 = m2[i + (long)k13 * 1];
        const float v15 = m2[i + (long)k14 * 1];
        const float v16 = m2[i + (long)k15 * 1];
        acc1 = (v1 > acc1 ? v1 : acc1);
        acc2 = (v2 > acc2 ? v2 : acc2);
        acc3 = (v3 > acc3 ? v3 : acc3);
        acc4 = (v4 > acc4 ? v4 : acc4);
        acc5 = (v5 > acc5 ? v5 : acc5);
        acc6 = (v6 > acc6 ? v6 : acc6);
        acc7 = (v7 > acc7 ? v7 : acc7);
        acc8 = (v8 > acc8 ? v8 : acc8);
        acc9 = (v9 > acc9 ? v9 : acc9);
        acc10 = (v10 > acc10 ? v10 : acc10);
        acc11 = (v11 > acc11 ? v11 : acc11);
        acc12 = (v12 > acc12 ? v12 : acc12);
        acc13 = (v13 > acc13 ? v13 : acc13);
        acc14 = (v14 > acc14 ? v14 : acc14);
        acc15 = (v15 > acc15 ? v15 : acc15);
        acc16 = (v16 > acc16 ? v16 : acc16);
      }
      for (; k < k_end; ++k) {
        const float v17 = m2[i + (long)k * 1];
        acc1 = (v17 > acc1 ? v17 : acc1);
      }
    }
    else {
      int k = k_begin;
      for (; k < k_end - 15; k += 16) {
        const int k16 = k + 1;
        const int k17 = k + 2;
        const int k18 = k + 3;
        const int k19 = k + 4;
        const int k20 = k + 5;
        const int k21 = k + 6;
        const int k22 = k + 7;
        const int k23 = k + 8;
        const int k24 = k + 9;
        const int k25 = k + 10;
        const int k26 = k + 11;
        const int k27 = k + 12;
        const int k28 = k + 13;
        const int k29 = k + 14;
        const int k30 = k + 15;
        const float v18 = m2[i + (long)k * m2_rows];
        const float v19 = m2[i + (long)k16 * m2_rows];
        const float v20 = m2[i + (long)k17 * m2_rows];
        const float v21 = m2[i + (long)k18 * m2_rows];
        const float v22 = m2[i + (long)k19 * m2_rows];
        const float v23 = m2[i + (long)k20 * m2_rows];
        const float v24 = m2[i + (long)k21 * m2_rows];
        const float v25 = m2[i + (long)k22 * m2_rows];
        const float v26 = m2[i + (long)k23 * m2_rows];
        const float v27 = m2[i + (long)k24 * m2_rows];
        const float v28 = m2[i + (long)k25 * m2_rows];
        const float v29 = m2[i + (long)k26 * m2_rows];
        const float v30 = m2[i + (long)k27 * m2_rows];
        const float v31 = m2[i + (long)k28 * m2_rows];
        const float v32 = m2[i + (long)k29 * m2_rows];
        const float v33 = m2[i + (long)k30 * m2_rows];
        acc1 = (v18 > acc1 ? v18 : acc1);
        acc2 = (v19 > acc2 ? v19 : acc2);
        acc3 = (v20 > acc3 ? v20 : acc3);
        acc4 = (v21 > acc4 ? v21 : acc4);
        acc5 = (v22 > acc5 ? v22 : acc5);
        acc6 = (v23 > acc6 ? v23 : acc6);
        acc7 = (v24 > acc7 ? v24 : acc7);
        acc8 = (v25 > acc8 ? v25 : acc8);
        acc9 = (v26 > acc9 ? v26 : acc9);
        acc10 = (v27 > acc10 ? v27 : acc10);
        acc11 = (v28 > acc11 ? v28 : acc11);
        acc12 = (v29 > acc12 ? v29 : acc12);
        acc13 = (v30 > acc13 ? v30 : acc13);
        acc14 = (v31 > acc14 ? v31 : acc14);
        acc15 = (v32 > acc15 ? v32 : acc15);
        acc16 = (v33 > acc16 ? v33 : acc16);
      }
      for (; k < k_end; ++k) {
        const float v34 = m2[i + (long)k * m2_rows];
        acc1 = (v34 > acc1 ? v34 : acc1);
      }
    }
  }
  const float r1 = (acc2 > acc1 ? acc2 : acc1);
  const float r2 = (acc3 > r1 ? acc3 : r1);
  const float r3 = (acc4 > r2 ? acc4 : r2);
  const float r4 = (acc5 > r3 ? acc5 : r3);
  const float r5 = (acc6 > r4 ? acc6 : r4);
  const float r6 = (acc7 > r5 ? acc7 : r5);
  const float r7 = (acc8 > r6 ? acc8 : r6);
  const float r8 = (acc9 > r7 ? acc9 : r7);
  const float r9 = (acc10 > r8 ? acc10 : r8);
  const float r10 = (acc11 > r9 ? acc11 : r9);
  const float r11 = (acc12 > r10 ? acc12 : r10);
  const float r12 = (acc13 > r11 ? acc13 : r11);
  const float r13 = (acc14 > r12 ? acc14 : r12);
  const float r14 = (acc15 > r13 ? acc15 : r13);
  const float r15 = (acc16 > r14 ? acc16 : r14);
  scratch0[l1 * L0 + l0] = r15;
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch0[l1 * L0 + l0] = (scratch0[(l1 + s) * L0 + l0] > scratch0[l1 * L0 + l0] ? scratch0[(l1 + s) * L0 + l0] : scratch0[l1 * L0 + l0]);
    }
  }
  if (l1 == 0 && i < rows) {
    const float r16 = scratch0[l1 * L0 + l0];
    if (parts == 1) {
      m1[i + (long)j * m1_rows] = (float)r16;
    }
    else {
      partials0[(long)part * rows + i] = r16;
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
  float acc5 = 0;
  float acc5_c = 0;
  float acc6 = 0;
  float acc6_c = 0;
  float acc7 = 0;
  float acc7_c = 0;
  float acc8 = 0;
  float acc8_c = 0;
  float acc9 = 0;
  float acc9_c = 0;
  float acc10 = 0;
  float acc10_c = 0;
  float acc11 = 0;
  float acc11_c = 0;
  float acc12 = 0;
  float acc12_c = 0;
  float acc13 = 0;
  float acc13_c = 0;
  float acc14 = 0;
  float acc14_c = 0;
  float acc15 = 0;
  float acc15_c = 0;
  float acc16 = 0;
  float acc16_c = 0;
  if (i < rows) {
    if (m3_rows == 1 && m1_rows == 1 && m2_rows == 1) {
      int k = k_begin;
      for (; k < k_end - 15; k += 16) {
        const int k1 = k + 1;
        const int k2 = k + 2;
        const int k3 = k + 3;
        const int k4 = k + 4;
        const int k5 = k + 5;
        const int k6 = k + 6;
        const int k7 = k + 7;
        const int k8 = k + 8;
        const int k9 = k + 9;
        const int k10 = k + 10;
        const int k11 = k + 11;
        const int k12 = k + 12;
        const int k13 = k + 13;
        const int k14 = k + 14;
        const int k15 = k + 15;
        const float v1 = m2[i + (long)k * 1];
        const float v2 = m3[i + (long)0 * 1];
        const float v3 = v1 - v2;
        const float v4 = exp(v3);
        const float v5 = m2[i + (long)k1 * 1];
        const float v6 = v5 - v2;
        const float v7 = exp(v6);
        const float v8 = m2[i + (long)k2 * 1];
        const float v9 = v8 - v2;
        const float v10 = exp(v9);
        const float v11 = m2[i + (long)k3 * 1];
        const float v12 = v11 - v2;
        const float v13 = exp(v12);
        const float v14 = m2[i + (long)k4 * 1];
        const float v15 = v14 - v2;
        const float v16 = exp(v15);
        const float v17 = m2[i + (long)k5 * 1];
        const float v18 = v17 - v2;
        const float v19 = exp(v18);
        const float v20 = m2[i + (long)k6 * 1];
        const float v21 = v20 - v2;
        const float v22 = exp(v21);
        const float v23 = m2[i + (long)k7 * 1];
        const float v24 = v23 - v2;
        const float v25 = exp(v24);
        const float v26 = m2[i + (long)k8 * 1];
        const float v27 = v26 - v2;
        const float v28 = exp(v27);
        const float v29 = m2[i + (long)k9 * 1];
        const float v30 = v29 - v2;
        const float v31 = exp(v30);
        const float v32 = m2[i + (long)k10 * 1];
        const float v33 = v32 - v2;
        const float v34 = exp(v33);
        const float v35 = m2[i + (long)k11 * 1];
        const float v36 = v35 - v2;
        const float v37 = exp(v36);
        const float v38 = m2[i + (long)k12 * 1];
        const float v39 = v38 - v2;
        const float v40 = exp(v39);
        const float v41 = m2[i + (long)k13 * 1];
        const float v42 = v41 - v2;
        const float v43 = exp(v42);
        const float v44 = m2[i + (long)k14 * 1];
        const float v45 = v44 - v2;
        const float v46 = exp(v45);
        const float v47 = m2[i + (long)k15 * 1];
        const float v48 = v47 - v2;
        const float v49 = exp(v48);
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
        const float y5 = v16 - acc5_c;
        const float t5 = acc5 + y5;
        acc5_c = (t5 - acc5) - y5;
        acc5 = t5;
        const float y6 = v19 - acc6_c;
        const float t6 = acc6 + y6;
        acc6_c = (t6 - acc6) - y6;
        acc6 = t6;
        const float y7 = v22 - acc7_c;
        const float t7 = acc7 + y7;
        acc7_c = (t7 - acc7) - y7;
        acc7 = t7;
        const float y8 = v25 - acc8_c;
        const float t8 = acc8 + y8;
        acc8_c = (t8 - acc8) - y8;
        acc8 = t8;
        const float y9 = v28 - acc9_c;
        const float t9 = acc9 + y9;
        acc9_c = (t9 - acc9) - y9;
        acc9 = t9;
        const float y10 = v31 - acc10_c;
        const float t10 = acc10 + y10;
        acc10_c = (t10 - acc10) - y10;
        acc10 = t10;
        const float y11 = v34 - acc11_c;
        const float t11 = acc11 + y11;
        acc11_c = (t11 - acc11) - y11;
        acc11 = t11;
        const float y12 = v37 - acc12_c;
        const float t12 = acc12 + y12;
        acc12_c = (t12 - acc12) - y12;
        acc12 = t12;
        const float y13 = v40 - acc13_c;
        const float t13 = acc13 + y13;
        acc13_c = (t13 - acc13) - y13;
        acc13 = t13;
        const float y14 = v43 - acc14_c;
        const float t14 = acc14 + y14;
        acc14_c = (t14 - acc14) - y14;
        acc14 = t14;
        const float y15 = v46 - acc15_c;
        const float t15 = acc15 + y15;
        acc15_c = (t15 - acc15) - y15;
        acc15 = t15;
        const float y16 = v49 - acc16_c;
        const float t16 = acc16 + y16;
        acc16_c = (t16 - acc16) - y16;
        acc16 = t16;
      }
      for (; k < k_end; ++k) {
        const float v50 = m2[i + (long)k * 1];
        const float v51 = m3[i + (long)0 * 1];
        const float v52 = v50 - v51;
        const float v53 = exp(v52);
        const float y17 = v53 - acc1_c;
        const float t17 = acc1 + y17;
        acc1_c = (t17 - acc1) - y17;
        acc1 = t17;
      }
    }
    else {
      int k = k_begin;
      for (; k < k_end - 15; k += 16) {
        const int k16 = k + 1;
        const int k17 = k + 2;
        const int k18 = k + 3;
        const int k19 = k + 4;
        const int k20 = k + 5;
        const int k21 = k + 6;
        const int k22 = k + 7;
        const int k23 = k + 8;
        const int k24 = k + 9;
        const int k25 = k + 10;
        const int k26 = k + 11;
        const int k27 = k + 12;
        const int k28 = k + 13;
        const int k29 = k + 14;
        const int k30 = k + 15;
        const float v54 = m2[i + (long)k * m2_rows];
        const float v55 = m3[i + (long)0 * m3_rows];
        const float v56 = v54 - v55;
        const float v57 = exp(v56);
        const float v58 = m2[i + (long)k16 * m2_rows];
        const float v59 = v58 - v55;
        const float v60 = exp(v59);
        const float v61 = m2[i + (long)k17 * m2_rows];
        const float v62 = v61 - v55;
        const float v63 = exp(v62);
        const float v64 = m2[i + (long)k18 * m2_rows];
        const float v65 = v64 - v55;
        const float v66 = exp(v65);
        const float v67 = m2[i + (long)k19 * m2_rows];
        const float v68 = v67 - v55;
        const float v69 = exp(v68);
        const float v70 = m2[i + (long)k20 * m2_rows];
        const float v71 = v70 - v55;
        const float v72 = exp(v71);
        const float v73 = m2[i + (long)k21 * m2_rows];
        const float v74 = v73 - v55;
        const float v75 = exp(v74);
        const float v76 = m2[i + (long)k22 * m2_rows];
        const float v77 = v76 - v55;
        const float v78 = exp(v77);
        const float v79 = m2[i + (long)k23 * m2_rows];
        const float v80 = v79 - v55;
        const float v81 = exp(v80);
        const float v82 = m2[i + (long)k24 * m2_rows];
        const float v83 = v82 - v55;
        const float v84 = exp(v83);
        const float v85 = m2[i + (long)k25 * m2_rows];
        const float v86 = v85 - v55;
        const float v87 = exp(v86);
        const float v88 = m2[i + (long)k26 * m2_rows];
        const float v89 = v88 - v55;
        const float v90 = exp(v89);
        const float v91 = m2[i + (long)k27 * m2_rows];
        const float v92 = v91 - v55;
        const float v93 = exp(v92);
        const float v94 = m2[i + (long)k28 * m2_rows];
        const float v95 = v94 - v55;
        const float v96 = exp(v95);
        const float v97 = m2[i + (long)k29 * m2_rows];
        const float v98 = v97 - v55;
        const float v99 = exp(v98);
        const float v100 = m2[i + (long)k30 * m2_rows];
        const float v101 = v100 - v55;
        const float v102 = exp(v101);
        const float y18 = v57 - acc1_c;
        const float t18 = acc1 + y18;
        acc1_c = (t18 - acc1) - y18;
        acc1 = t18;
        const float y19 = v60 - acc2_c;
        const float t19 = acc2 + y19;
        acc2_c = (t19 - acc2) - y19;
        acc2 = t19;
        const float y20 = v63 - acc3_c;
        const float t20 = acc3 + y20;
        acc3_c = (t20 - acc3) - y20;
        acc3 = t20;
        const float y21 = v66 - acc4_c;
        const float t21 = acc4 + y21;
        acc4_c = (t21 - acc4) - y21;
        acc4 = t21;
        const float y22 = v69 - acc5_c;
        const float t22 = acc5 + y22;
        acc5_c = (t22 - acc5) - y22;
        acc5 = t22;
        const float y23 = v72 - acc6_c;
        const float t23 = acc6 + y23;
        acc6_c = (t23 - acc6) - y23;
        acc6 = t23;
        const float y24 = v75 - acc7_c;
        const float t24 = acc7 + y24;
        acc7_c = (t24 - acc7) - y24;
        acc7 = t24;
        const float y25 = v78 - acc8_c;
        const float t25 = acc8 + y25;
        acc8_c = (t25 - acc8) - y25;
        acc8 = t25;
        const float y26 = v81 - acc9_c;
        const float t26 = acc9 + y26;
        acc9_c = (t26 - acc9) - y26;
        acc9 = t26;
        const float y27 = v84 - acc10_c;
        const float t27 = acc10 + y27;
        acc10_c = (t27 - acc10) - y27;
        acc10 = t27;
        const float y28 = v87 - acc11_c;
        const float t28 = acc11 + y28;
        acc11_c = (t28 - acc11) - y28;
        acc11 = t28;
        const float y29 = v90 - acc12_c;
        const float t29 = acc12 + y29;
        acc12_c = (t29 - acc12) - y29;
        acc12 = t29;
        const float y30 = v93 - acc13_c;
        const float t30 = acc13 + y30;
        acc13_c = (t30 - acc13) - y30;
        acc13 = t30;
        const float y31 = v96 - acc14_c;
        const float t31 = acc14 + y31;
        acc14_c = (t31 - acc14) - y31;
        acc14 = t31;
        const float y32 = v99 - acc15_c;
        const float t32 = acc15 + y32;
        acc15_c = (t32 - acc15) - y32;
        acc15 = t32;
        const float y33 = v102 - acc16_c;
        const float t33 = acc16 + y33;
        acc16_c = (t33 - acc16) - y33;
        acc16 = t33;
      }
      for (; k < k_end; ++k) {
        const float v103 = m2[i + (long)k * m2_rows];
        const float v104 = m3[i + (long)0 * m3_rows];
        const float v105 = v103 - v104;
        const float v106 = exp(v105);
        const float y34 = v106 - acc1_c;
        const float t34 = acc1 + y34;
        acc1_c = (t34 - acc1) - y34;
        acc1 = t34;
      }
    }
  }
  const float r1 = ((acc1 - acc1_c) + (acc2 - acc2_c));
  const float r2 = (r1 + (acc3 - acc3_c));
  const float r3 = (r2 + (acc4 - acc4_c));
  const float r4 = (r3 + (acc5 - acc5_c));
  const float r5 = (r4 + (acc6 - acc6_c));
  const float r6 = (r5 + (acc7 - acc7_c));
  const float r7 = (r6 + (acc8 - acc8_c));
  const float r8 = (r7 + (acc9 - acc9_c));
  const float r9 = (r8 + (acc10 - acc10_c));
  const float r10 = (r9 + (acc11 - acc11_c));
  const float r11 = (r10 + (acc12 - acc12_c));
  const float r12 = (r11 + (acc13 - acc13_c));
  const float r13 = (r12 + (acc14 - acc14_c));
  const float r14 = (r13 + (acc15 - acc15_c));
  const float r15 = (r14 + (acc16 - acc16_c));
  scratch0[l1 * L0 + l0] = r15;
  for (int s = L1 >> 1; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l1 < s) {
      scratch0[l1 * L0 + l0] = (scratch0[l1 * L0 + l0] + scratch0[(l1 + s) * L0 + l0]);
    }
  }
  if (l1 == 0 && i < rows) {
    const float r16 = scratch0[l1 * L0 + l0];
    if (parts == 1) {
      m1[i + (long)j * m1_rows] = (float)r16;
    }
    else {
      partials0[(long)part * rows + i] = r16;
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
