// Peak mma.sync rate: CHAINS independent accumulators per warp, ITERS rounds, no memory.
#if KIND == 0
#define MMA "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
#define FLOPS (2 * 16 * 8 * 8)
#elif KIND == 1
#define MMA "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
#define FLOPS (2 * 16 * 8 * 16)
#else
#define MMA "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
#define FLOPS (2 * 16 * 8 * 16)
#endif
kernel void peak(global float* out, const int iters, const uint seed) {
  uint a0 = seed ^ get_local_id(0), a1 = a0 * 3u, a2 = a0 * 5u, a3 = a0 * 7u, b0 = a0 * 11u, b1 = a0 * 13u;
  a0 &= 0x3c003c00u; a1 &= 0x3c003c00u; a2 &= 0x3c003c00u; a3 &= 0x3c003c00u; b0 &= 0x3c003c00u; b1 &= 0x3c003c00u;
  float acc[CHAINS][4];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) acc[c][0] = acc[c][1] = acc[c][2] = acc[c][3] = 0.f;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c)
      asm(MMA " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
          : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  out[get_global_id(0)] = s;
}
