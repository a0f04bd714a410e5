// Compiled (syntax only) by CTest with -DVIOLATION=<check>: a typed configuration that breaks
// that check must fail to compile with the check's name in the message; -DVIOLATION=none
// is the control that must compile.
#include <tessera/blas/gemm_config.hpp>

namespace blas = tessera::blas;
using blas::gemm_family;

#define none 0
#define item_applies 1
#define vector_width_allowed 2
#define local_a_tile_loads_split_evenly 3
#define local_memory_limit 4
#define full_vector_whole_rows 5
#define sub_group_tile_divides_work_group 6

#if VIOLATION == none
constexpr blas::gemm_params params{.family = gemm_family::local, .item_rows = 8, .item_cols = 8, .wg_rows = 16,
                                   .wg_cols = 16, .sg_rows = 4, .sg_cols = 8, .double_buffer = true,
                                   .no_bank_conflict_a = true, .no_bank_conflict_b = true, .vector_width = 4};
using config = blas::gemm_kernel_config<params, false, false, float>;
#elif VIOLATION == item_applies
constexpr blas::gemm_params params{.family = gemm_family::naive, .cache_line_bytes = 0, .item_rows = 2, .item_cols = 1};
using config = blas::gemm_kernel_config<params, false, false, float>;
#elif VIOLATION == vector_width_allowed
constexpr blas::gemm_params params{.family = gemm_family::no_local, .item_rows = 6, .vector_width = 3};
using config = blas::gemm_kernel_config<params, false, false, float>;
#elif VIOLATION == local_a_tile_loads_split_evenly
constexpr blas::gemm_params params{.family = gemm_family::local, .cache_line_bytes = 4, .item_rows = 1, .item_cols = 1};
using config = blas::gemm_kernel_config<params, false, false, float>;
#elif VIOLATION == local_memory_limit
constexpr blas::gemm_params params{.family = gemm_family::local, .cache_line_bytes = 256, .item_rows = 8,
                                   .item_cols = 8, .wg_rows = 16, .wg_cols = 16, .double_buffer = true,
                                   .vector_width = 4};
using config = blas::gemm_kernel_config<params, false, false, double>;
#elif VIOLATION == full_vector_whole_rows
constexpr blas::gemm_params params{.family = gemm_family::no_local_full, .cache_line_bytes = 0, .item_rows = 8,
                                   .item_cols = 4, .vector_width = 4};
using config = blas::gemm_kernel_config<params, false, false, float>;
#elif VIOLATION == sub_group_tile_divides_work_group
constexpr blas::gemm_params params{.family = gemm_family::local, .sg_rows = 3};
using config = blas::gemm_kernel_config<params, false, false, float>;
#endif

static_assert(config::params.wg_rows > 0);
