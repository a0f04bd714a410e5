// one kernel: each reduction by the group owning its rows (columns), then the result
__attribute__((reqd_work_group_size(8, 32, 1))) kernel void evaluate(
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
  const int L0 = 8;
  const int L1 = 32;
  const int i = get_global_id(0);
  const int j = 0;
  const int part = get_group_id(1);
  const int i1 = i;
  const int e1 = l1 + 0 * L1;
  const int e2 = e1;
  const int e3 = l1 + 1 * L1;
  const int e4 = e3;
  const int e5 = l1 + 2 * L1;
  const int e6 = e5;
  const int e7 = l1 + 3 * L1;
  const int e8 = e7;
  const int e9 = l1 + 4 * L1;
  const int e10 = e9;
  const int e11 = l1 + 5 * L1;
  const int e12 = e11;
  const int e13 = l1 + 6 * L1;
  const int e14 = e13;
  const int e15 = l1 + 7 * L1;
  const int e16 = e15;
  const int e17 = l1 + 8 * L1;
  const int e18 = e17;
  const int e19 = l1 + 9 * L1;
  const int e20 = e19;
  const int e21 = l1 + 10 * L1;
  const int e22 = e21;
  const int e23 = l1 + 11 * L1;
  const int e24 = e23;
  const int e25 = l1 + 12 * L1;
  const int e26 = e25;
  const int e27 = l1 + 13 * L1;
  const int e28 = e27;
  const int e29 = l1 + 14 * L1;
  const int e30 = e29;
  const int e31 = l1 + 15 * L1;
  const int e32 = e31;
  const int e33 = l1 + 16 * L1;
  const int e34 = e33;
  const int e35 = l1 + 17 * L1;
  const int e36 = e35;
  const int e37 = l1 + 18 * L1;
  const int e38 = e37;
  const int e39 = l1 + 19 * L1;
  const int e40 = e39;
  const int e41 = l1 + 20 * L1;
  const int e42 = e41;
  const int e43 = l1 + 21 * L1;
  const int e44 = e43;
  const int e45 = l1 + 22 * L1;
  const int e46 = e45;
  const int e47 = l1 + 23 * L1;
  const int e48 = e47;
  const int e49 = l1 + 24 * L1;
  const int e50 = e49;
  const int e51 = l1 + 25 * L1;
  const int e52 = e51;
  const int e53 = l1 + 26 * L1;
  const int e54 = e53;
  const int e55 = l1 + 27 * L1;
  const int e56 = e55;
  const int e57 = l1 + 28 * L1;
  const int e58 = e57;
  const int e59 = l1 + 29 * L1;
  const int e60 = e59;
  const int e61 = l1 + 30 * L1;
  const int e62 = e61;
  const int e63 = l1 + 31 * L1;
  const int e64 = e63;
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
  const float v9 = m2[i1 + (long)e18 * m2_rows];
  const float v10 = m2[i1 + (long)e20 * m2_rows];
  const float v11 = m2[i1 + (long)e22 * m2_rows];
  const float v12 = m2[i1 + (long)e24 * m2_rows];
  const float v13 = m2[i1 + (long)e26 * m2_rows];
  const float v14 = m2[i1 + (long)e28 * m2_rows];
  const float v15 = m2[i1 + (long)e30 * m2_rows];
  const float v16 = m2[i1 + (long)e32 * m2_rows];
  const float v17 = m2[i1 + (long)e34 * m2_rows];
  const float v18 = m2[i1 + (long)e36 * m2_rows];
  const float v19 = m2[i1 + (long)e38 * m2_rows];
  const float v20 = m2[i1 + (long)e40 * m2_rows];
  const float v21 = m2[i1 + (long)e42 * m2_rows];
  const float v22 = m2[i1 + (long)e44 * m2_rows];
  const float v23 = m2[i1 + (long)e46 * m2_rows];
  const float v24 = m2[i1 + (long)e48 * m2_rows];
  const float v25 = m2[i1 + (long)e50 * m2_rows];
  const float v26 = m2[i1 + (long)e52 * m2_rows];
  const float v27 = m2[i1 + (long)e54 * m2_rows];
  const float v28 = m2[i1 + (long)e56 * m2_rows];
  const float v29 = m2[i1 + (long)e58 * m2_rows];
  const float v30 = m2[i1 + (long)e60 * m2_rows];
  const float v31 = m2[i1 + (long)e62 * m2_rows];
  const float v32 = m2[i1 + (long)e64 * m2_rows];
  acc1 = ((e1 < cols ? v1 : -INFINITY) > acc1 ? (e1 < cols ? v1 : -INFINITY) : acc1);
  acc2 = ((e3 < cols ? v2 : -INFINITY) > acc2 ? (e3 < cols ? v2 : -INFINITY) : acc2);
  acc3 = ((e5 < cols ? v3 : -INFINITY) > acc3 ? (e5 < cols ? v3 : -INFINITY) : acc3);
  acc4 = ((e7 < cols ? v4 : -INFINITY) > acc4 ? (e7 < cols ? v4 : -INFINITY) : acc4);
  acc1 = ((e9 < cols ? v5 : -INFINITY) > acc1 ? (e9 < cols ? v5 : -INFINITY) : acc1);
  acc2 = ((e11 < cols ? v6 : -INFINITY) > acc2 ? (e11 < cols ? v6 : -INFINITY) : acc2);
  acc3 = ((e13 < cols ? v7 : -INFINITY) > acc3 ? (e13 < cols ? v7 : -INFINITY) : acc3);
  acc4 = ((e15 < cols ? v8 : -INFINITY) > acc4 ? (e15 < cols ? v8 : -INFINITY) : acc4);
  acc1 = ((e17 < cols ? v9 : -INFINITY) > acc1 ? (e17 < cols ? v9 : -INFINITY) : acc1);
  acc2 = ((e19 < cols ? v10 : -INFINITY) > acc2 ? (e19 < cols ? v10 : -INFINITY) : acc2);
  acc3 = ((e21 < cols ? v11 : -INFINITY) > acc3 ? (e21 < cols ? v11 : -INFINITY) : acc3);
  acc4 = ((e23 < cols ? v12 : -INFINITY) > acc4 ? (e23 < cols ? v12 : -INFINITY) : acc4);
  acc1 = ((e25 < cols ? v13 : -INFINITY) > acc1 ? (e25 < cols ? v13 : -INFINITY) : acc1);
  acc2 = ((e27 < cols ? v14 : -INFINITY) > acc2 ? (e27 < cols ? v14 : -INFINITY) : acc2);
  acc3 = ((e29 < cols ? v15 : -INFINITY) > acc3 ? (e29 < cols ? v15 : -INFINITY) : acc3);
  acc4 = ((e31 < cols ? v16 : -INFINITY) > acc4 ? (e31 < cols ? v16 : -INFINITY) : acc4);
  acc1 = ((e33 < cols ? v17 : -INFINITY) > acc1 ? (e33 < cols ? v17 : -INFINITY) : acc1);
  acc2 = ((e35 < cols ? v18 : -INFINITY) > acc2 ? (e35 < cols ? v18 : -INFINITY) : acc2);
  acc3 = ((e37 < cols ? v19 : -INFINITY) > acc3 ? (e37 < cols ? v19 : -INFINITY) : acc3);
  acc4 = ((e39 < cols ? v20 : -INFINITY) > acc4 ? (e39 < cols ? v20 : -INFINITY) : acc4);
  acc1 = ((e41 < cols ? v21 : -INFINITY) > acc1 ? (e41 < cols ? v21 : -INFINITY) : acc1);
  acc2 = ((e43 < cols ? v22 : -INFINITY) > acc2 ? (e43 < cols ? v22 : -INFINITY) : acc2);
  acc3 = ((e45 < cols ? v23 : -INFINITY) > acc3 ? (e45 < cols ? v23 : -INFINITY) : acc3);
  acc4 = ((e47 < cols ? v24 : -INFINITY) > acc4 ? (e47 < cols ? v24 : -INFINITY) : acc4);
  acc1 = ((e49 < cols ? v25 : -INFINITY) > acc1 ? (e49 < cols ? v25 : -INFINITY) : acc1);
  acc2 = ((e51 < cols ? v26 : -INFINITY) > acc2 ? (e51 < cols ? v26 : -INFINITY) : acc2);
  acc3 = ((e53 < cols ? v27 : -INFINITY) > acc3 ? (e53 < cols ? v27 : -INFINITY) : acc3);
  acc4 = ((e55 < cols ? v28 : -INFINITY) > acc4 ? (e55 < cols ? v28 : -INFINITY) : acc4);
  acc1 = ((e57 < cols ? v29 : -INFINITY) > acc1 ? (e57 < cols ? v29 : -INFINITY) : acc1);
  acc2 = ((e59 < cols ? v30 : -INFINITY) > acc2 ? (e59 < cols ? v30 : -INFINITY) : acc2);
  acc3 = ((e61 < cols ? v31 : -INFINITY) > acc3 ? (e61 < cols ? v31 : -INFINITY) : acc3);
  acc4 = ((e63 < cols ? v32 : -INFINITY) > acc4 ? (e63 < cols ? v32 : -INFINITY) : acc4);
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
  const float v33 = v1 - level1;
  const float v34 = exp(v33);
  const float v35 = v2 - level1;
  const float v36 = exp(v35);
  const float v37 = v3 - level1;
  const float v38 = exp(v37);
  const float v39 = v4 - level1;
  const float v40 = exp(v39);
  const float v41 = v5 - level1;
  const float v42 = exp(v41);
  const float v43 = v6 - level1;
  const float v44 = exp(v43);
  const float v45 = v7 - level1;
  const float v46 = exp(v45);
  const float v47 = v8 - level1;
  const float v48 = exp(v47);
  const float v49 = v9 - level1;
  const float v50 = exp(v49);
  const float v51 = v10 - level1;
  const float v52 = exp(v51);
  const float v53 = v11 - level1;
  const float v54 = exp(v53);
  const float v55 = v12 - level1;
  const float v56 = exp(v55);
  const float v57 = v13 - level1;
  const float v58 = exp(v57);
  const float v59 = v14 - level1;
  const float v60 = exp(v59);
  const float v61 = v15 - level1;
  const float v62 = exp(v61);
  const float v63 = v16 - level1;
  const float v64 = exp(v63);
  const float v65 = v17 - level1;
  const float v66 = exp(v65);
  const float v67 = v18 - level1;
  const float v68 = exp(v67);
  const float v69 = v19 - level1;
  const float v70 = exp(v69);
  const float v71 = v20 - level1;
  const float v72 = exp(v71);
  const float v73 = v21 - level1;
  const float v74 = exp(v73);
  const float v75 = v22 - level1;
  const float v76 = exp(v75);
  const float v77 = v23 - level1;
  const float v78 = exp(v77);
  const float v79 = v24 - level1;
  const float v80 = exp(v79);
  const float v81 = v25 - level1;
  const float v82 = exp(v81);
  const float v83 = v26 - level1;
  const float v84 = exp(v83);
  const float v85 = v27 - level1;
  const float v86 = exp(v85);
  const float v87 = v28 - level1;
  const float v88 = exp(v87);
  const float v89 = v29 - level1;
  const float v90 = exp(v89);
  const float v91 = v30 - level1;
  const float v92 = exp(v91);
  const float v93 = v31 - level1;
  const float v94 = exp(v93);
  const float v95 = v32 - level1;
  const float v96 = exp(v95);
  const float y1 = (e1 < cols ? v34 : 0) - acc5_c;
  const float t1 = acc5 + y1;
  acc5_c = (t1 - acc5) - y1;
  acc5 = t1;
  const float y2 = (e3 < cols ? v36 : 0) - acc6_c;
  const float t2 = acc6 + y2;
  acc6_c = (t2 - acc6) - y2;
  acc6 = t2;
  const float y3 = (e5 < cols ? v38 : 0) - acc7_c;
  const float t3 = acc7 + y3;
  acc7_c = (t3 - acc7) - y3;
  acc7 = t3;
  const float y4 = (e7 < cols ? v40 : 0) - acc8_c;
  const float t4 = acc8 + y4;
  acc8_c = (t4 - acc8) - y4;
  acc8 = t4;
  const float y5 = (e9 < cols ? v42 : 0) - acc5_c;
  const float t5 = acc5 + y5;
  acc5_c = (t5 - acc5) - y5;
  acc5 = t5;
  const float y6 = (e11 < cols ? v44 : 0) - acc6_c;
  const float t6 = acc6 + y6;
  acc6_c = (t6 - acc6) - y6;
  acc6 = t6;
  const float y7 = (e13 < cols ? v46 : 0) - acc7_c;
  const float t7 = acc7 + y7;
  acc7_c = (t7 - acc7) - y7;
  acc7 = t7;
  const float y8 = (e15 < cols ? v48 : 0) - acc8_c;
  const float t8 = acc8 + y8;
  acc8_c = (t8 - acc8) - y8;
  acc8 = t8;
  const float y9 = (e17 < cols ? v50 : 0) - acc5_c;
  const float t9 = acc5 + y9;
  acc5_c = (t9 - acc5) - y9;
  acc5 = t9;
  const float y10 = (e19 < cols ? v52 : 0) - acc6_c;
  const float t10 = acc6 + y10;
  acc6_c = (t10 - acc6) - y10;
  acc6 = t10;
  const float y11 = (e21 < cols ? v54 : 0) - acc7_c;
  const float t11 = acc7 + y11;
  acc7_c = (t11 - acc7) - y11;
  acc7 = t11;
  const float y12 = (e23 < cols ? v56 : 0) - acc8_c;
  const float t12 = acc8 + y12;
  acc8_c = (t12 - acc8) - y12;
  acc8 = t12;
  const float y13 = (e25 < cols ? v58 : 0) - acc5_c;
  const float t13 = acc5 + y13;
  acc5_c = (t13 - acc5) - y13;
  acc5 = t13;
  const float y14 = (e27 < cols ? v60 : 0) - acc6_c;
  const float t14 = acc6 + y14;
  acc6_c = (t14 - acc6) - y14;
  acc6 = t14;
  const float y15 = (e29 < cols ? v62 : 0) - acc7_c;
  const float t15 = acc7 + y15;
  acc7_c = (t15 - acc7) - y15;
  acc7 = t15;
  const float y16 = (e31 < cols ? v64 : 0) - acc8_c;
  const float t16 = acc8 + y16;
  acc8_c = (t16 - acc8) - y16;
  acc8 = t16;
  const float y17 = (e33 < cols ? v66 : 0) - acc5_c;
  const float t17 = acc5 + y17;
  acc5_c = (t17 - acc5) - y17;
  acc5 = t17;
  const float y18 = (e35 < cols ? v68 : 0) - acc6_c;
  const float t18 = acc6 + y18;
  acc6_c = (t18 - acc6) - y18;
  acc6 = t18;
  const float y19 = (e37 < cols ? v70 : 0) - acc7_c;
  const float t19 = acc7 + y19;
  acc7_c = (t19 - acc7) - y19;
  acc7 = t19;
  const float y20 = (e39 < cols ? v72 : 0) - acc8_c;
  const float t20 = acc8 + y20;
  acc8_c = (t20 - acc8) - y20;
  acc8 = t20;
  const float y21 = (e41 < cols ? v74 : 0) - acc5_c;
  const float t21 = acc5 + y21;
  acc5_c = (t21 - acc5) - y21;
  acc5 = t21;
  const float y22 = (e43 < cols ? v76 : 0) - acc6_c;
  const float t22 = acc6 + y22;
  acc6_c = (t22 - acc6) - y22;
  acc6 = t22;
  const float y23 = (e45 < cols ? v78 : 0) - acc7_c;
  const float t23 = acc7 + y23;
  acc7_c = (t23 - acc7) - y23;
  acc7 = t23;
  const float y24 = (e47 < cols ? v80 : 0) - acc8_c;
  const float t24 = acc8 + y24;
  acc8_c = (t24 - acc8) - y24;
  acc8 = t24;
  const float y25 = (e49 < cols ? v82 : 0) - acc5_c;
  const float t25 = acc5 + y25;
  acc5_c = (t25 - acc5) - y25;
  acc5 = t25;
  const float y26 = (e51 < cols ? v84 : 0) - acc6_c;
  const float t26 = acc6 + y26;
  acc6_c = (t26 - acc6) - y26;
  acc6 = t26;
  const float y27 = (e53 < cols ? v86 : 0) - acc7_c;
  const float t27 = acc7 + y27;
  acc7_c = (t27 - acc7) - y27;
  acc7 = t27;
  const float y28 = (e55 < cols ? v88 : 0) - acc8_c;
  const float t28 = acc8 + y28;
  acc8_c = (t28 - acc8) - y28;
  acc8 = t28;
  const float y29 = (e57 < cols ? v90 : 0) - acc5_c;
  const float t29 = acc5 + y29;
  acc5_c = (t29 - acc5) - y29;
  acc5 = t29;
  const float y30 = (e59 < cols ? v92 : 0) - acc6_c;
  const float t30 = acc6 + y30;
  acc6_c = (t30 - acc6) - y30;
  acc6 = t30;
  const float y31 = (e61 < cols ? v94 : 0) - acc7_c;
  const float t31 = acc7 + y31;
  acc7_c = (t31 - acc7) - y31;
  acc7 = t31;
  const float y32 = (e63 < cols ? v96 : 0) - acc8_c;
  const float t32 = acc8 + y32;
  acc8_c = (t32 - acc8) - y32;
  acc8 = t32;
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
  const float v97 = v34 / level2;
  const float v98 = v36 / level2;
  const float v99 = v38 / level2;
  const float v100 = v40 / level2;
  const float v101 = v42 / level2;
  const float v102 = v44 / level2;
  const float v103 = v46 / level2;
  const float v104 = v48 / level2;
  const float v105 = v50 / level2;
  const float v106 = v52 / level2;
  const float v107 = v54 / level2;
  const float v108 = v56 / level2;
  const float v109 = v58 / level2;
  const float v110 = v60 / level2;
  const float v111 = v62 / level2;
  const float v112 = v64 / level2;
  const float v113 = v66 / level2;
  const float v114 = v68 / level2;
  const float v115 = v70 / level2;
  const float v116 = v72 / level2;
  const float v117 = v74 / level2;
  const float v118 = v76 / level2;
  const float v119 = v78 / level2;
  const float v120 = v80 / level2;
  const float v121 = v82 / level2;
  const float v122 = v84 / level2;
  const float v123 = v86 / level2;
  const float v124 = v88 / level2;
  const float v125 = v90 / level2;
  const float v126 = v92 / level2;
  const float v127 = v94 / level2;
  const float v128 = v96 / level2;
  if (i < rows && e1 < cols) {
    m1[i1 + (long)e2 * m1_rows] = (float)v97;
  }
  if (i < rows && e3 < cols) {
    m1[i1 + (long)e4 * m1_rows] = (float)v98;
  }
  if (i < rows && e5 < cols) {
    m1[i1 + (long)e6 * m1_rows] = (float)v99;
  }
  if (i < rows && e7 < cols) {
    m1[i1 + (long)e8 * m1_rows] = (float)v100;
  }
  if (i < rows && e9 < cols) {
    m1[i1 + (long)e10 * m1_rows] = (float)v101;
  }
  if (i < rows && e11 < cols) {
    m1[i1 + (long)e12 * m1_rows] = (float)v102;
  }
  if (i < rows && e13 < cols) {
    m1[i1 + (long)e14 * m1_rows] = (float)v103;
  }
  if (i < rows && e15 < cols) {
    m1[i1 + (long)e16 * m1_rows] = (float)v104;
  }
  if (i < rows && e17 < cols) {
    m1[i1 + (long)e18 * m1_rows] = (float)v105;
  }
  if (i < rows && e19 < cols) {
    m1[i1 + (long)e20 * m1_rows] = (float)v106;
  }
  if (i < rows && e21 < cols) {
    m1[i1 + (long)e22 * m1_rows] = (float)v107;
  }
  if (i < rows && e23 < cols) {
    m1[i1 + (long)e24 * m1_rows] = (float)v108;
  }
  if (i < rows && e25 < cols) {
    m1[i1 + (long)e26 * m1_rows] = (float)v109;
  }
  if (i < rows && e27 < cols) {
    m1[i1 + (long)e28 * m1_rows] = (float)v110;
  }
  if (i < rows && e29 < cols) {
    m1[i1 + (long)e30 * m1_rows] = (float)v111;
  }
  if (i < rows && e31 < cols) {
    m1[i1 + (long)e32 * m1_rows] = (float)v112;
  }
  if (i < rows && e33 < cols) {
    m1[i1 + (long)e34 * m1_rows] = (float)v113;
  }
  if (i < rows && e35 < cols) {
    m1[i1 + (long)e36 * m1_rows] = (float)v114;
  }
  if (i < rows && e37 < cols) {
    m1[i1 + (long)e38 * m1_rows] = (float)v115;
  }
  if (i < rows && e39 < cols) {
    m1[i1 + (long)e40 * m1_rows] = (float)v116;
  }
  if (i < rows && e41 < cols) {
    m1[i1 + (long)e42 * m1_rows] = (float)v117;
  }
  if (i < rows && e43 < cols) {
    m1[i1 + (long)e44 * m1_rows] = (float)v118;
  }
  if (i < rows && e45 < cols) {
    m1[i1 + (long)e46 * m1_rows] = (float)v119;
  }
  if (i < rows && e47 < cols) {
    m1[i1 + (long)e48 * m1_rows] = (float)v120;
  }
  if (i < rows && e49 < cols) {
    m1[i1 + (long)e50 * m1_rows] = (float)v121;
  }
  if (i < rows && e51 < cols) {
    m1[i1 + (long)e52 * m1_rows] = (float)v122;
  }
  if (i < rows && e53 < cols) {
    m1[i1 + (long)e54 * m1_rows] = (float)v123;
  }
  if (i < rows && e55 < cols) {
    m1[i1 + (long)e56 * m1_rows] = (float)v124;
  }
  if (i < rows && e57 < cols) {
    m1[i1 + (long)e58 * m1_rows] = (float)v125;
  }
  if (i < rows && e59 < cols) {
    m1[i1 + (long)e60 * m1_rows] = (float)v126;
  }
  if (i < rows && e61 < cols) {
    m1[i1 + (long)e62 * m1_rows] = (float)v127;
  }
  if (i < rows && e63 < cols) {
    m1[i1 + (long)e64 * m1_rows] = (float)v128;
  }
}
