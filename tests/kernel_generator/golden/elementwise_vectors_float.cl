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
    global const float* restrict m5,
    int m5_rows,
    int m5_view,
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
    const float4 v3 = *(global const float4*)(m3 + (i + (long)j * m3_rows));
    const float v4 = v3.s0;
    const float v5 = v2 + v4;
    const float4 v6 = *(global const float4*)(m4 + (i + (long)0 * m4_rows));
    const float v7 = v6.s0;
    const float v8 = v5 * v7;
    const float v9 = m5[0 + (long)j * m5_rows];
    const float v10 = v8 - v9;
    const float v11 = v1.s1;
    const float v12 = v3.s1;
    const float v13 = v11 + v12;
    const float v14 = v6.s1;
    const float v15 = v13 * v14;
    const float v16 = v15 - v9;
    const float v17 = v1.s2;
    const float v18 = v3.s2;
    const float v19 = v17 + v18;
    const float v20 = v6.s2;
    const float v21 = v19 * v20;
    const float v22 = v21 - v9;
    const float v23 = v1.s3;
    const float v24 = v3.s3;
    const float v25 = v23 + v24;
    const float v26 = v6.s3;
    const float v27 = v25 * v26;
    const float v28 = v27 - v9;
    *(global float4*)(m1 + (i + (long)j * m1_rows)) = (float4)((float)v10, (float)v16, (float)v22, (float)v28);
  }
}
