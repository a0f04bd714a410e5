// Compiled (syntax only) by CTest with -DVIOLATION=<rule>: a typed configuration that breaks
// that rule must fail to compile with the rule's name in the message; -DVIOLATION=none
// is the control that must compile.
#include <tessera/blas/gemm_config.hpp>

namespace blas = tessera::blas;
using local = blas::gemm_config<false, false, blas::gemm_memory::local, blas::gemm_algorithm::standard>;
using naive = blas::gemm_config<false, false, blas::gemm_memory::no_local, blas::gemm_algorithm::naive>;
using no_local_full = blas::gemm_config<false, false, blas::gemm_memory::no_local, blas::gemm_algorithm::standard,
                                        blas::gemm_batch_type::strided, blas::gemm_vectorization::full>;

#define none 0
#define naive_one_element_per_item 1
#define local_a_tile_loads_split_evenly 2
#define local_memory_limit 3
#define full_vector_whole_rows 4
#define sub_group_tile_divides_work_group 5

#if VIOLATION == none
using config = blas::gemm_kernel_config<4, 64, blas::tile<8, 8, 16, 16, 4, 8>, true, true, true, local, float>;
#elif VIOLATION == naive_one_element_per_item
using config = blas::gemm_kernel_config<1, 0, blas::tile<2, 1, 8, 8>, false, false, false, naive, float>;
#elif VIOLATION == local_a_tile_loads_split_evenly
using config = blas::gemm_kernel_config<1, 4, blas::tile<1, 1, 8, 8>, false, false, false, local, float>;
#elif VIOLATION == local_memory_limit
using config = blas::gemm_kernel_config<4, 256, blas::tile<8, 8, 16, 16>, true, false, false, local, double>;
#elif VIOLATION == full_vector_whole_rows
using config = blas::gemm_kernel_config<4, 0, blas::tile<8, 4, 8, 8>, false, false, false, no_local_full, float>;
#elif VIOLATION == sub_group_tile_divides_work_group
using config = blas::gemm_kernel_config<1, 64, blas::tile<4, 4, 8, 8, 3, 1>, false, false, false, local, float>;
#endif

static_assert(config::params.item_rows > 0);
