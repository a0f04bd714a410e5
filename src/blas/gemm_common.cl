// Shared part of tessera's GEMM kernels (column-major C = alpha * op(A) * op(B) + beta * C,
// strided batches). The host (src/blas/gemm.cpp) prepends the call's defines: REAL
// (float|double), IS_DOUBLE, TRANS_A, TRANS_B (0|1), DEVICE_IS_CPU (0|1), IDX (the index type
// inside one matrix: int, or long for matrices past 2^31 elements), A_ALIGNED, B_ALIGNED,
// C_ALIGNED (1: vector accesses may be plain vector loads/stores); then the configuration's,
// each a name of include/tessera/blas/gemm_params.def or gemm_rules.def in upper case:
// IS_<FAMILY> (IS_LOCAL, IS_NO_LOCAL_FULL, ...), every parameter (VECTOR_WIDTH, ITEM_ROWS,
// ITEM_COLS, WG_ROWS, WG_COLS, SG_ROWS, SG_COLS, WG_BATCH, DOUBLE_BUFFER, ...) and every derived
// value (K_TILE, PAD_A, PAD_B, ...). Their validity rules are include/tessera/blas/gemm_rules.def.

#if IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

// For the helpers that take a work-item's sums through K (the no_local family's): PoCL's compiler
// left them as calls otherwise, the sums passed through memory at every call (a third of the
// speed on a CPU). The local family's loads and stores ran slower inlined on PoCL, so not those.
#define GEMM_INLINE inline __attribute__((always_inline))

// acc + a * b in the register blocks. On CPU devices (DEVICE_IS_CPU, from the host) written as an
// expression, which the compiler contracts into an fma where the CPU has one: PoCL's mad() was a
// multiply and an add. Elsewhere mad(), what the GPU kernels were tuned with.
#if DEVICE_IS_CPU
#define GEMM_MAD(a, b, acc) ((a) * (b) + (acc))
#else
#define GEMM_MAD(a, b, acc) mad((a), (b), (acc))
#endif

typedef REAL real;
// A and B: real, or (OPERAND_REAL=ushort, the mma family only) 16-bit values.
#ifndef OPERAND_REAL
#define OPERAND_REAL real
#endif
typedef OPERAND_REAL operand_real;
// C: real, or (the mma family with 16-bit A and B) 16-bit values, RESULT_TYPE 1 float16, 2
// bfloat16, read and written by gemm_store_element alone, rounded to nearest even as the host's
// runtime::float16 and bfloat16 round (vstore_half_rte is core OpenCL; NVIDIA's has no half type).
#ifndef RESULT_TYPE
#define RESULT_TYPE 0
#endif
#if RESULT_TYPE == 0
typedef real result_real;
#define RESULT_LOAD(C, i) ((C)[i])
#define RESULT_STORE(C, i, value) ((C)[i] = (value))
#elif RESULT_TYPE == 1
typedef ushort result_real;
#define RESULT_LOAD(C, i) vload_half((i), (const global half*)(C))
#define RESULT_STORE(C, i, value) vstore_half_rte((value), (i), (global half*)(C))
#else
typedef ushort result_real;
#define RESULT_LOAD(C, i) as_float((uint)(C)[i] << 16)
// A NaN stays a quiet NaN; otherwise round to nearest even on the 16 dropped bits (a carry moves
// up the exponent, to infinity past the largest finite value).
inline ushort bfloat16_of(const float value) {
  const uint x = as_uint(value);
  return (x & 0x7fffffffu) > 0x7f800000u ? (ushort)((x >> 16) | 0x40u) : (ushort)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
#define RESULT_STORE(C, i, value) ((C)[i] = bfloat16_of(value))
#endif
#define VW VECTOR_WIDTH  // the kernels' shorthand
#define GEMM_CAT_(a, b) a##b
#define GEMM_CAT(a, b) GEMM_CAT_(a, b)

// ---- vectors of VW elements ---------------------------------------------------------------
#if VW == 1
typedef real realv;
#define VLOAD_ANY(p) (*(p))
#define VSTORE_ANY(v, p) (*(p) = (v))
#define SPLIT_VEC(v, out, base) (out)[(base)] = (v);
#define JOIN_VEC(in, base) ((in)[(base)])
#else
typedef GEMM_CAT(REAL, VW) realv;
#define VLOAD_ANY(p) GEMM_CAT(vload, VW)(0, (p))
#define VSTORE_ANY(v, p) GEMM_CAT(vstore, VW)((v), 0, (p))
#endif
#if VW == 2
#define SPLIT_VEC(v, out, base) (out)[(base)] = (v).s0; (out)[(base) + 1] = (v).s1;
#define JOIN_VEC(in, base) ((realv)((in)[(base)], (in)[(base) + 1]))
#elif VW == 4
#define SPLIT_VEC(v, out, base) \
  (out)[(base)] = (v).s0; (out)[(base) + 1] = (v).s1; (out)[(base) + 2] = (v).s2; (out)[(base) + 3] = (v).s3;
#define JOIN_VEC(in, base) ((realv)((in)[(base)], (in)[(base) + 1], (in)[(base) + 2], (in)[(base) + 3]))
#elif VW == 8
#define SPLIT_VEC(v, out, base) \
  (out)[(base)] = (v).s0; (out)[(base) + 1] = (v).s1; (out)[(base) + 2] = (v).s2; (out)[(base) + 3] = (v).s3; \
  (out)[(base) + 4] = (v).s4; (out)[(base) + 5] = (v).s5; (out)[(base) + 6] = (v).s6; (out)[(base) + 7] = (v).s7;
#define JOIN_VEC(in, base) \
  ((realv)((in)[(base)], (in)[(base) + 1], (in)[(base) + 2], (in)[(base) + 3], \
           (in)[(base) + 4], (in)[(base) + 5], (in)[(base) + 6], (in)[(base) + 7]))
#elif VW == 16
#define SPLIT_VEC(v, out, base) \
  (out)[(base)] = (v).s0; (out)[(base) + 1] = (v).s1; (out)[(base) + 2] = (v).s2; (out)[(base) + 3] = (v).s3; \
  (out)[(base) + 4] = (v).s4; (out)[(base) + 5] = (v).s5; (out)[(base) + 6] = (v).s6; (out)[(base) + 7] = (v).s7; \
  (out)[(base) + 8] = (v).s8; (out)[(base) + 9] = (v).s9; (out)[(base) + 10] = (v).sa; (out)[(base) + 11] = (v).sb; \
  (out)[(base) + 12] = (v).sc; (out)[(base) + 13] = (v).sd; (out)[(base) + 14] = (v).se; (out)[(base) + 15] = (v).sf;
#define JOIN_VEC(in, base) \
  ((realv)((in)[(base)], (in)[(base) + 1], (in)[(base) + 2], (in)[(base) + 3], \
           (in)[(base) + 4], (in)[(base) + 5], (in)[(base) + 6], (in)[(base) + 7], \
           (in)[(base) + 8], (in)[(base) + 9], (in)[(base) + 10], (in)[(base) + 11], \
           (in)[(base) + 12], (in)[(base) + 13], (in)[(base) + 14], (in)[(base) + 15]))
#endif

// A vector of VW consecutive elements at p; the aligned form is one vector load.
#define VLOAD_ALIGNED(p) (*(const global realv*)(p))
#define VSTORE_ALIGNED(v, p) (*(global realv*)(p) = (v))

// ---- cp.async: global -> local copies that bypass registers (NVIDIA, compute capability 8.0+) ----
// The mma family's stages, and the local family's with STAGES > 1: gemm_rules.def allows both only
// where the device has tensor_cores, which names the same devices. A copy reads `bytes` (0 to its
// size) from src and zero-fills the rest; copies complete asynchronously, in the commit groups
// GEMM_CP_ASYNC_COMMIT closes, and GEMM_CP_ASYNC_WAIT(n) waits until at most n groups are pending
// (n a constant expression; a barrier after it makes the copies seen by the whole work-group).
// A local pointer converted to an integer is its offset in the shared window, which the .shared
// instructions take.
#if IS_MMA || STAGES > 1
#define GEMM_STR_(x) #x
#define GEMM_STR(x) GEMM_STR_(x)
inline uint gemm_local_address(const local void* p) { return (uint)(size_t)p; }
inline void gemm_cp_async16(local void* dst, const global void* src, const uint bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(gemm_local_address(dst)), "l"(src), "r"(bytes));
}
inline void gemm_cp_async8(local void* dst, const global void* src, const uint bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(gemm_local_address(dst)), "l"(src), "r"(bytes));
}
inline void gemm_cp_async4(local void* dst, const global void* src, const uint bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(gemm_local_address(dst)), "l"(src), "r"(bytes));
}
#define GEMM_CP_ASYNC_COMMIT() asm volatile("cp.async.commit_group;" ::)
#define GEMM_CP_ASYNC_WAIT(n) asm volatile("cp.async.wait_group " GEMM_STR(n) ";" ::)
#endif

// ---- operands: column-major storage, op() applied by index -----------------------------
// op(A)(m, k), op(B)(k, n) and C(m, n) as offsets from the matrix's first element.
#if TRANS_A
#define A_INDEX(m, k) ((IDX)(k) + (IDX)(m) * lda)
#else
#define A_INDEX(m, k) ((IDX)(m) + (IDX)(k) * lda)
#endif
#if TRANS_B
#define B_INDEX(k, n) ((IDX)(n) + (IDX)(k) * ldb)
#else
#define B_INDEX(k, n) ((IDX)(k) + (IDX)(n) * ldb)
#endif
#define C_INDEX(m, n) ((IDX)(m) + (IDX)(n) * ldc)

// Every family has this signature, so the host launches them alike. Offsets and strides
// are in elements; batch entry b starts at base + offset + b * stride.
#define GEMM_PARAMETERS                                                                    \
  const int M, const int N, const int K, const real alpha,                                 \
  const global operand_real* restrict A_base, const ulong a_offset, const int lda, const ulong a_stride, \
  const global operand_real* restrict B_base, const ulong b_offset, const int ldb, const ulong b_stride, \
  const real beta, global result_real* C_base, const ulong c_offset, const int ldc, const ulong c_stride, \
  const int batch_count GEMM_EPILOGUE_PARAMETERS

#define GEMM_BATCH_POINTERS(batch)                                                      \
  const global operand_real* restrict A = A_base + a_offset + (ulong)(batch) * a_stride; \
  const global operand_real* restrict B = B_base + b_offset + (ulong)(batch) * b_stride; \
  global result_real* C = C_base + c_offset + (ulong)(batch) * c_stride

// The work-item's column in its WG_ROWS x WG_COLS grid: local's k-groups (K_GROUPS > 1) are
// grids stacked along local dimension 1.
#if defined(K_GROUPS) && K_GROUPS > 1
#define GEMM_LOCAL_COL ((int)get_local_id(1) % WG_COLS)
#else
#define GEMM_LOCAL_COL ((int)get_local_id(1))
#endif

// Position (lr, lc) in the WG_ROWS x WG_COLS grid of the work-item numbered tid in it (tid =
// local id 0 + WG_ROWS x its column's local id). Consecutive work-items fill SG_ROWS x SG_COLS
// blocks first (a hardware sub-group when that is its size), so that a sub-group reads few
// distinct rows and columns of the tiles.
#if SG_ROWS * SG_COLS == 1
#define GEMM_COORDS_OF(tid, lr, lc) \
  const int lr = (tid) % WG_ROWS;     \
  const int lc = (tid) / WG_ROWS
#define GEMM_THREAD_COORDS(lr, lc)        \
  const int lr = (int)get_local_id(0);    \
  const int lc = GEMM_LOCAL_COL
#else
#define GEMM_COORDS_OF(tid, lr, lc)                                                        \
  const int lr##_lane_ = (tid) % (SG_ROWS * SG_COLS);                                      \
  const int lr##_sg_ = (tid) / (SG_ROWS * SG_COLS);                                        \
  const int lr = (lr##_sg_ % (WG_ROWS / SG_ROWS)) * SG_ROWS + lr##_lane_ % SG_ROWS;        \
  const int lc = (lr##_sg_ / (WG_ROWS / SG_ROWS)) * SG_COLS + lr##_lane_ / SG_ROWS
#define GEMM_THREAD_COORDS(lr, lc) GEMM_COORDS_OF((int)get_local_id(0) + GEMM_LOCAL_COL * WG_ROWS, lr, lc)
#endif

// ---- the store of the result ---------------------------------------------------------------
// The one place where results are written: every family ends in gemm_store_element or
// gemm_store_vector. beta == 0 never reads C and alpha == 0 never uses the accumulator
// (as BLAS defines them). Two hooks fuse work into the store (both default to nothing):
//  - GEMM_EPILOGUE(value, row, col): the value written to C(row, col), given
//    alpha * acc + beta * C (row + i per lane in the vector stores);
//  - GEMM_STORE_STEP(value, row, col): replaces the write altogether; it gets alpha * acc
//    per element (C is neither read nor written: a caller's store step writes its results,
//    e.g. the kernel generator's, and beta must be 0).
// Their extra inputs are extra kernel parameters: GEMM_EPILOGUE_PARAMETERS (", type name"
// entries appended to the kernel's and the store functions' parameter lists) and
// GEMM_EPILOGUE_ARGUMENTS (", name" entries, passed along), so the hooks can read them.
#ifndef GEMM_EPILOGUE
#define GEMM_EPILOGUE(value, row, col) (value)
#endif
#ifndef GEMM_EPILOGUE_PARAMETERS
#define GEMM_EPILOGUE_PARAMETERS
#define GEMM_EPILOGUE_ARGUMENTS
#endif

#ifdef GEMM_STORE_STEP
inline void gemm_store_element(global result_real* C, const IDX index, const int row, const int col,
                               const real acc, const real alpha, const real beta GEMM_EPILOGUE_PARAMETERS) {
  GEMM_STORE_STEP(alpha == (real)0 ? (real)0 : alpha * acc, row, col);
}

inline void gemm_store_vector(global real* C, const IDX index, const int row, const int col,
                              const realv acc, const real alpha, const real beta GEMM_EPILOGUE_PARAMETERS) {
  const realv r = alpha == (real)0 ? (realv)0 : (realv)alpha * acc;
  real e[VW];
  SPLIT_VEC(r, e, 0)
#pragma unroll
  for (int i = 0; i < VW; ++i) GEMM_STORE_STEP(e[i], row + i, col);
}
#else
inline void gemm_store_element(global result_real* C, const IDX index, const int row, const int col,
                               const real acc, const real alpha, const real beta GEMM_EPILOGUE_PARAMETERS) {
  real r = alpha == (real)0 ? (real)0 : alpha * acc;
  if (beta != (real)0) r = mad(beta, RESULT_LOAD(C, index), r);
  RESULT_STORE(C, index, GEMM_EPILOGUE(r, row, col));
}

// Rows row .. row + VW - 1 of column col, consecutive in C.
inline void gemm_store_vector(global real* C, const IDX index, const int row, const int col,
                              const realv acc, const real alpha, const real beta GEMM_EPILOGUE_PARAMETERS) {
  realv r = alpha == (real)0 ? (realv)0 : (realv)alpha * acc;
  if (beta != (real)0) {
#if C_ALIGNED
    r = mad((realv)beta, VLOAD_ALIGNED(C + index), r);
#else
    r = mad((realv)beta, VLOAD_ANY(C + index), r);
#endif
  }
  real e[VW];
  SPLIT_VEC(r, e, 0)
#pragma unroll
  for (int i = 0; i < VW; ++i) e[i] = GEMM_EPILOGUE(e[i], row + i, col);
  r = JOIN_VEC(e, 0);
#if C_ALIGNED
  VSTORE_ALIGNED(r, C + index);
#else
  VSTORE_ANY(r, C + index);
#endif
}
#endif

// The elements of a vector that lie inside the matrix (row + i < M, col < N), one by one.
inline void gemm_store_vector_guarded(global real* C, const int ldc, const int M, const int N, const int row,
                                      const int col, const realv acc, const real alpha,
                                      const real beta GEMM_EPILOGUE_PARAMETERS) {
  if (col >= N) return;
  real e[VW];
  SPLIT_VEC(acc, e, 0)
  // No `#pragma unroll` here: PoCL 3.1 (LLVM 15) compiled the unrolled loop of guarded stores,
  // for two-element vectors of 2 x 2 items (local item=2x2 wg=8x8 vector_width=2), into stores
  // at column N, outside C (tests/blas: GemmAllSizesEveryFamily with that tile). A loop of VW
  // steps is unrolled without it where it pays.
  for (int i = 0; i < VW; ++i)
    if (row + i < M)
      gemm_store_element(C, C_INDEX(row + i, col), row + i, col, e[i], alpha, beta GEMM_EPILOGUE_ARGUMENTS);
}
