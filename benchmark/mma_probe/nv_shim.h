#define get_local_id(x) ((size_t)__nvvm_read_ptx_sreg_tid_x())
#define get_group_id(x) ((size_t)__nvvm_read_ptx_sreg_ctaid_x())
#define barrier(x) __asm__ volatile("bar.sync 0;" ::: "memory")
#define min(a, b) ((a) < (b) ? (a) : (b))
#define as_uint(x) __builtin_astype((x), uint)
#define as_float(x) __builtin_astype((x), float)
typedef float float2 __attribute__((ext_vector_type(2)));
#define vload2(o, p) (*(const __local float2*)((p) + 2 * (o)))
