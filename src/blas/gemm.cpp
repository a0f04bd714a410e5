#include <tessera/blas/gemm.hpp>
#include <tessera/blas/gemm_defaults.hpp>
#include <tessera/codegen/type_names.hpp>
#include <tessera/runtime/workspace.hpp>
#include <tessera/runtime/checked_size.hpp>
#include <tessera/runtime/covering_event.hpp>
#include <tessera/runtime/embedded_sources.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/runtime/kernel.hpp>
#include <tessera/runtime/kernel_cache.hpp>

#include <algorithm>
#include <atomic>
#include <climits>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace tessera::blas {

namespace {

constexpr std::int64_t int_max = INT32_MAX;
std::atomic<std::size_t> launches{0};

// OpenCL C's name of T, from codegen's one mapping (in build options and messages).
template <typename T>
constexpr std::string_view type_name() {
  return codegen::opencl_type_name<T>();
}

[[noreturn]] void fail(std::string_view what) {
  throw argument_error(fmt::format("tessera::blas::gemm: {}", what));
}

constexpr std::string_view operation = "tessera::blas::gemm";

struct operand_shape {
  const char* name;  // "A"
  const char* ld_name;
  const char* stride_name;
  const char* offset_name;
  std::int64_t rows, cols;  // of the stored matrix
  // What makes the rows, "trans_a = N, m = 5" (flag null: "m = 5"), formatted only for a message.
  const char* rows_flag;
  transpose rows_transpose;
  const char* rows_dimension;
  std::int64_t rows_value;
  std::string rows_why() const {
    return rows_flag == nullptr ? fmt::format("{} = {}", rows_dimension, rows_value)
                                : fmt::format("{} = {}, {} = {}", rows_flag, to_char(rows_transpose), rows_dimension,
                                              rows_value);
  }
  // What the span's checked steps name: literals, so that a call that passes allocates nothing.
  const char* batches_name;  // "(batch_count - 1) * stride_a"
  const char* columns_name;  // "(columns of A - 1) * lda"
  const char* span_name;     // "the elements A spans"
};

// Elements one operand spans: offset + (batch - 1) * stride + (cols - 1) * ld + rows, every
// step checked, so that no sum or product that wrapped around passes the bounds check.
std::int64_t span_elements(const operand_shape& s, std::int64_t offset, std::int64_t ld, std::int64_t stride,
                           std::int64_t batch) {
  if (s.rows == 0 || s.cols == 0 || batch == 0) return 0;
  const std::int64_t batches = runtime::checked_product(batch - 1, stride, s.batches_name, operation);
  const std::int64_t columns = runtime::checked_product(s.cols - 1, ld, s.columns_name, operation);
  const std::int64_t start = runtime::checked_sum(offset, batches, s.span_name, operation);
  return runtime::checked_sum(runtime::checked_sum(start, columns, s.span_name, operation), s.rows, s.span_name,
                              operation);
}

// The elements of one operand: their size and OpenCL's name (in messages).
struct element_kind {
  std::int64_t bytes;
  std::string_view name;
};

template <typename T>
element_kind element_of(operand_type type) {
  return {operand_bytes(type, sizeof(T)), type == operand_type::float32 ? type_name<T>() : to_string(type)};
}

void check_operand(const operand_shape& s, const element_kind& element, const device_buffer* buffer,
                   std::int64_t offset, std::int64_t ld, std::int64_t stride, std::int64_t batch, bool used) {
  if (ld < std::max<std::int64_t>(1, s.rows))
    fail(fmt::format("{} = {} is less than the {} rows of {} ({}); it must be at least max(1, rows)", s.ld_name, ld,
                     s.rows, s.name, s.rows_why()));
  if (ld > int_max) fail(fmt::format("{} = {} exceeds 2^31 - 1", s.ld_name, ld));
  if (stride < 0) fail(fmt::format("{} = {} is negative", s.stride_name, stride));
  if (!used) return;
  if (buffer == nullptr) fail(fmt::format("{} is missing (a null buffer)", s.name));
  const std::int64_t need = span_elements(s, offset, ld, stride, batch);
  const std::int64_t have = static_cast<std::int64_t>(buffer->bytes()) / element.bytes;
  if (need > have)
    fail(fmt::format("buffer {} holds {} {} elements, but {} = {}, {} = {}, {} = {} and batch_count = {} "
                     "for a {} x {} matrix need {}",
                     s.name, have, element.name, s.offset_name, offset, s.ld_name, ld, s.stride_name, stride, batch,
                     s.rows, s.cols, need));
}

}  // namespace

std::string_view to_string(math_mode mode) { return mode == math_mode::tf32 ? "tf32" : "exact"; }

std::string_view to_string(operand_type type) {
  switch (type) {
    case operand_type::float16: return "float16";
    case operand_type::bfloat16: return "bfloat16";
    default: return "float32";
  }
}

template <device_scalar T>
void validate(const gemm_arguments<T>& args) {
  const auto check_size = [](const char* name, std::int64_t v) {
    if (v < 0) fail(fmt::format("{} = {} is negative", name, v));
    if (v > int_max) fail(fmt::format("{} = {} exceeds 2^31 - 1", name, v));
  };
  check_size("m", args.m);
  check_size("n", args.n);
  check_size("k", args.k);
  check_size("batch_count", args.batch_count);
  const bool ta = args.trans_a == transpose::trans, tb = args.trans_b == transpose::trans;
  const std::int64_t batch = args.batch_count;
  const bool c_used = args.m > 0 && args.n > 0 && batch > 0;
  const bool ab_used = c_used && args.k > 0;

  const operand_shape a{"A", "lda", "stride_a", "a_offset", ta ? args.k : args.m, ta ? args.m : args.k,
                        "trans_a", args.trans_a, ta ? "k" : "m", ta ? args.k : args.m,
                        "(batch_count - 1) * stride_a", "(columns of A - 1) * lda",
                        "the elements A spans (a_offset + (batch_count - 1) * stride_a + (columns - 1) * lda + rows)"};
  const operand_shape b{"B", "ldb", "stride_b", "b_offset", tb ? args.n : args.k, tb ? args.k : args.n,
                        "trans_b", args.trans_b, tb ? "n" : "k", tb ? args.n : args.k,
                        "(batch_count - 1) * stride_b", "(columns of B - 1) * ldb",
                        "the elements B spans (b_offset + (batch_count - 1) * stride_b + (columns - 1) * ldb + rows)"};
  const operand_shape c{"C", "ldc", "stride_c", "c_offset", args.m, args.n, nullptr, transpose::none, "m", args.m,
                        "(batch_count - 1) * stride_c", "(columns of C - 1) * ldc",
                        "the elements C spans (c_offset + (batch_count - 1) * stride_c + (columns - 1) * ldc + rows)"};
  // An offset of 2^63 or more is a negative one converted to size_t: refused even where unread.
  const std::int64_t a_offset = runtime::checked_size(args.a_offset, "a_offset", operation);
  const std::int64_t b_offset = runtime::checked_size(args.b_offset, "b_offset", operation);
  const std::int64_t c_offset = runtime::checked_size(args.c_offset, "c_offset", operation);
  if (args.operands != operand_type::float32 && !std::is_same_v<T, float>)
    fail(fmt::format("operands = {}: 16-bit A and B are for float calls (C in float), not {}", to_string(args.operands),
                     type_name<T>()));
  if (args.result != operand_type::float32 && args.result != args.operands)
    fail(fmt::format("result = {}: C in 16 bits goes with A and B of the same type (operands = {})",
                     to_string(args.result), to_string(args.operands)));
  const element_kind ab_element = element_of<T>(args.operands), c_element = element_of<T>(args.result);
  check_operand(a, ab_element, args.a, a_offset, args.lda, args.stride_a, batch, ab_used);
  check_operand(b, ab_element, args.b, b_offset, args.ldb, args.stride_b, batch, ab_used);
  check_operand(c, c_element, args.c, c_offset, args.ldc, args.stride_c, batch, c_used);
  if (c_used && batch > 1 && args.stride_c < (args.n - 1) * args.ldc + args.m)
    fail(fmt::format("stride_c = {} makes the batch entries of C overlap: it must be at least "
                     "(n - 1) * ldc + m = {}",
                     args.stride_c, (args.n - 1) * args.ldc + args.m));
  if (!c_used) return;

  const runtime::context* ctx = args.c->owner();
  if (ab_used && (args.a->owner() != ctx || args.b->owner() != ctx))
    fail("A, B and C must live in the same tessera context");
  // C must not share memory with A or B: the kernel reads them while C is written. In bytes: A
  // and B may hold 16-bit values.
  const auto overlaps = [&](const device_buffer* x, std::int64_t x_offset, const operand_shape& xs, std::int64_t ld,
                            std::int64_t stride) {
    if (!ab_used || x->handle()() != args.c->handle()()) return false;
    const std::int64_t x_end = span_elements(xs, x_offset, ld, stride, batch) * ab_element.bytes;
    const std::int64_t c_end = span_elements(c, c_offset, args.ldc, args.stride_c, batch) * c_element.bytes;
    return x_offset * ab_element.bytes < c_end && c_offset * c_element.bytes < x_end;
  };
  if (overlaps(args.a, a_offset, a, args.lda, args.stride_a))
    fail("C overlaps A in the same buffer (BLAS requires distinct memory)");
  if (overlaps(args.b, b_offset, b, args.ldb, args.stride_b))
    fail("C overlaps B in the same buffer (BLAS requires distinct memory)");
}

namespace {

std::string_view family_source(gemm_family family) {
  const auto i = static_cast<std::size_t>(family);
  if (i >= std::size(gemm_families)) fail(fmt::format("gemm_params::family = {} is not a kernel family", i));
  return runtime::embedded_source(gemm_families[i].source);
}

bool vector_aligned(int vw, std::size_t offset, std::int64_t ld, std::int64_t stride, std::int64_t batch) {
  return vw > 1 && offset % vw == 0 && ld % vw == 0 && (batch <= 1 || stride % vw == 0);
}

// Everything a call's kernel is built from, besides the epilogue's source: the kernel cache's key
// (a comparison of a few integers per call, where formatting the build options cost more host time
// than PoCL's enqueue) and, with the context's device, the input of kernel_options.
struct kernel_variant {
  gemm_params params;  // as the call runs it (for_call)
  int element_bytes = 4;  // of T
  operand_type operands = operand_type::float32, result = operand_type::float32;
  bool trans_a = false, trans_b = false, wide_index = false;
  bool a_aligned = false, b_aligned = false, c_aligned = false;
  friend auto operator<=>(const kernel_variant&, const kernel_variant&) = default;
};

template <typename T>
kernel_variant variant_of(const gemm_params& p, const gemm_arguments<T>& args) {
  kernel_variant v;
  v.params = p;
  v.element_bytes = sizeof(T);
  v.operands = args.operands, v.result = args.result;
  v.trans_a = args.trans_a == transpose::trans, v.trans_b = args.trans_b == transpose::trans;
  const std::int64_t batch = args.batch_count;
  // Offsets inside one matrix fit an int unless a matrix spans 2^31 elements.
  const auto extent = [](std::int64_t rows, std::int64_t cols, std::int64_t ld) {
    return rows == 0 || cols == 0 ? 0 : (cols - 1) * ld + rows;
  };
  const std::int64_t largest = std::max({extent(v.trans_a ? args.k : args.m, v.trans_a ? args.m : args.k, args.lda),
                                         extent(v.trans_b ? args.n : args.k, v.trans_b ? args.k : args.n, args.ldb),
                                         extent(args.m, args.n, args.ldc)});
  v.wide_index = largest > int_max - 1024;
  // The mma family copies operands in 16-byte chunks where they are aligned to 16 bytes.
  const int vw = p.family == gemm_family::mma ? 16 / operand_bytes(args.operands, sizeof(T)) : p.vector_width;
  v.a_aligned = vector_aligned(vw, args.a_offset, args.lda, args.stride_a, batch);
  v.b_aligned = vector_aligned(vw, args.b_offset, args.ldb, args.stride_b, batch);
  v.c_aligned = vector_aligned(vw, args.c_offset, args.ldc, args.stride_c, batch);
  return v;
}

// The variant's defines, and DEVICE_IS_CPU (the CPU form of the register blocks' arithmetic,
// gemm_common.cl) from the context's device: one device per context, so not part of the variant.
std::string kernel_options(const kernel_variant& v, const runtime::context& ctx) {
  const bool device_is_cpu = ctx.device().type == runtime::device_type::cpu;
  const bool is_double = v.element_bytes == 8;
  const int ab_bytes = operand_bytes(v.operands, v.element_bytes);
  // What the call decides, then what the configuration does (gemm_params.def, gemm_rules.def).
  // A and B of 16 bits are ushort to OpenCL (MMA_INPUT says which format: 0 float in TF32, 1
  // float16, 2 bfloat16); the rules' element size is theirs.
  const auto format_of = [](operand_type type) { return type == operand_type::float16 ? 1 : 2; };
  std::string operands =
      v.operands == operand_type::float32
          ? std::string()
          : fmt::format("-DOPERAND_REAL=ushort -DMMA_INPUT={} ", format_of(v.operands));
  // C in 16 bits: RESULT_TYPE 1 float16, 2 bfloat16 (gemm_common.cl's store).
  if (v.result != operand_type::float32) operands += fmt::format("-DRESULT_TYPE={} ", format_of(v.result));
  return fmt::format("-DREAL={} -DIS_DOUBLE={} {}-DTRANS_A={} -DTRANS_B={} -DIDX={} -DA_ALIGNED={} -DB_ALIGNED={} "
                     "-DC_ALIGNED={} -DDEVICE_IS_CPU={} {}",
                     is_double ? type_name<double>() : type_name<float>(), int(is_double), operands, int(v.trans_a),
                     int(v.trans_b), v.wide_index ? "long" : "int", int(v.a_aligned), int(v.b_aligned),
                     int(v.c_aligned), int(device_is_cpu), kernel_defines(v.params, ab_bytes));
}

std::string program_source(gemm_family family, std::string_view epilogue_source = {}) {
  std::string source(epilogue_source);
  if (!source.empty() && source.back() != '\n') source += '\n';
  source += runtime::embedded_source("blas/gemm_common.cl");
  source += family_source(family);
  return source;
}

// The program's main kernel, (split-K) the kernel that sums the partial tiles, or (pretranspose)
// the copy of an operand stored along K.
enum class gemm_kernel_role { main, split_k_reduce, pretranspose };

std::string_view kernel_name(gemm_kernel_role role) {
  switch (role) {
    case gemm_kernel_role::split_k_reduce: return "tessera_gemm_split_k_reduce";
    case gemm_kernel_role::pretranspose: return "tessera_gemm_pretranspose";
    default: return "tessera_gemm";
  }
}

// Kernel objects by OpenCL context, variant, role and the epilogue's source (empty for plain ones).
struct kernel_key {
  kernel_variant variant;
  gemm_kernel_role role = gemm_kernel_role::main;
  std::string epilogue_source;
  friend auto operator<=>(const kernel_key&, const kernel_key&) = default;
};
runtime::kernel_cache<kernel_key, runtime::kernel> kernels;

std::shared_ptr<runtime::kernel> get_kernel(const runtime::context& ctx, const kernel_variant& variant,
                                            const detail::gemm_epilogue* epilogue,
                                            gemm_kernel_role role = gemm_kernel_role::main) {
  const gemm_params& p = variant.params;
  kernel_key key{variant, role, epilogue != nullptr ? std::string(epilogue->source) : std::string()};
  return kernels.get(ctx, key, [&] {
    const gemm_family family = p.family;
    const std::string source = program_source(family, key.epilogue_source);
    const std::string name = epilogue != nullptr
                                 ? fmt::format("gemm {} ({}) + {}", to_string(family), to_string(p), epilogue->name)
                                 : fmt::format("gemm {} ({})", to_string(family), to_string(p));
    return ctx.programs().get(name, source, kernel_options(key.variant, ctx))->make_kernel(std::string(kernel_name(role)));
  });
}

template <typename T>
pretransposed_operands copies_of(const gemm_params& p, const gemm_arguments<T>& args, const runtime::context& ctx) {
  return pretransposed(p, operand_bytes(args.operands, sizeof(T)), args.m, args.n, args.k,
                       args.trans_a == transpose::trans, args.trans_b == transpose::trans,
                       ctx.device().max_allocation_bytes);
}

// The configuration as the call runs it: split_k = 0 chosen for the call's shape and device;
// pretranspose = 1 kept only where the call copies an operand (an NT call shares NT's kernel).
template <typename T>
gemm_params for_call(gemm_params p, const gemm_arguments<T>& args, const runtime::context& ctx) {
  p.split_k = chosen_split_k(p, operand_bytes(args.operands, sizeof(T)), args.m, args.n, args.k, args.batch_count,
                             ctx.device().compute_units);
  if (!copies_of(p, args, ctx).any()) p.pretranspose = 0;
  return p;
}

// What the product kernel reads: the call's operands, or their pretransposed copies (offset 0,
// leading dimension its rows rounded up to pretranspose_row_alignment, one copy per batch entry
// of the launch). The buffers stay the call's until run() has leased the copies' memory.
template <typename T>
gemm_arguments<T> product_arguments(const gemm_arguments<T>& args, const pretransposed_operands& copies) {
  gemm_arguments<T> product = args;
  if (copies.a) {
    product.trans_a = transpose::none, product.a_offset = 0, product.lda = pretransposed_leading_dimension(args.m);
    product.stride_a = product.lda * args.k;
  }
  if (copies.b) {
    product.trans_b = transpose::trans, product.b_offset = 0, product.ldb = pretransposed_leading_dimension(args.n);
    product.stride_b = product.ldb * args.k;
  }
  return product;
}

template <typename T>
const runtime::context& context_of(const gemm_arguments<T>& args) {
  return args.c != nullptr && args.c->owner() != nullptr ? *args.c->owner() : runtime::context::get();
}

// Split-K's partial tiles take batch x split_k x m x n elements of workspace; past this (or the
// device's largest allocation) the call runs unsplit: a split that large has output tiles enough.
constexpr std::int64_t max_split_k_workspace_bytes = std::int64_t(256) << 20;

template <typename T>
gemm_problem_shape shape_of(const gemm_arguments<T>& args) {
  return {args.m, args.n, args.k, args.batch_count, args.trans_a == transpose::trans, args.trans_b == transpose::trans};
}

// Whether a call's split was chosen for it (split_k = 0, or the defaults' pick: chosen_split_k),
// and may then run as a tail split, or was set by the caller and runs as given.
enum class split_choice { as_given, chosen };

template <typename T>
cl::Event run(const runtime::context& ctx, gemm_params p, const gemm_arguments<T>& args,
              const detail::gemm_epilogue* epilogue = nullptr, split_choice choice = split_choice::as_given);

// A call run as a tail split (chosen_tail_split): the whole batches' rows or columns of blocks
// unsplit, then the rest of C with the tail's split, each a call of its own on the same
// buffers (offsets into A or B and C), in order on the in-order queue.
template <typename T>
cl::Event run_tail_split(const runtime::context& ctx, gemm_params p, const gemm_arguments<T>& args,
                         const tail_split& plan, const gemm_rule_values& d) {
  gemm_arguments<T> head = args, tail = args;
  const bool trans_a = args.trans_a == transpose::trans, trans_b = args.trans_b == transpose::trans;
  if (plan.along_rows) {
    const std::int64_t rows = plan.whole_blocks * d.block_rows;
    head.m = rows, tail.m = args.m - rows;
    tail.a_offset += static_cast<std::size_t>(trans_a ? rows * args.lda : rows);
    tail.c_offset += static_cast<std::size_t>(rows);
  } else {
    const std::int64_t cols = plan.whole_blocks * d.block_cols;
    head.n = cols, tail.n = args.n - cols;
    tail.b_offset += static_cast<std::size_t>(trans_b ? cols : cols * args.ldb);
    tail.c_offset += static_cast<std::size_t>(cols * args.ldc);
  }
  p.split_k = 1;
  const cl::Event first = run(ctx, p, head);
  p.split_k = plan.split;
  const cl::Event last = run(ctx, p, tail);
  return args.event == runtime::launch_event::returned ? runtime::covering_event(ctx, first) : last;
}

template <typename T>
cl::Event run(const runtime::context& ctx, gemm_params p, const gemm_arguments<T>& args,
              const detail::gemm_epilogue* epilogue, split_choice choice) {
  const std::int64_t batch = args.batch_count;
  const bool returns_event = args.event == runtime::launch_event::returned;
  if (args.m == 0 || args.n == 0 || batch == 0) {
    cl::Event event;
    if (!returns_event) return event;
    runtime::check_cl(ctx.queue().enqueueMarkerWithWaitList(nullptr, &event), "clEnqueueMarkerWithWaitList");
    return event;
  }
  if (std::is_same_v<T, double>) runtime::require_fp64(ctx.device());
  p = for_call(p, args, ctx);
  // Precision is the caller's choice: a configuration never lowers it on its own.
  const bool sixteen_bit = args.operands != operand_type::float32;
  if (p.family == gemm_family::mma && !sixteen_bit && !(std::is_same_v<T, float> && args.math == math_mode::tf32))
    fail(fmt::format("configuration '{}' multiplies in TF32 on tensor cores, but the call's math mode is {} for {}: "
                     "pass math_mode::tf32 (float only) or use another family",
                     to_string(p), to_string(args.math), type_name<T>()));
  if (sixteen_bit && p.family != gemm_family::mma)
    fail(fmt::format("configuration '{}' reads float operands, but A and B hold {} values: only the mma family "
                     "reads 16-bit operands",
                     to_string(p), to_string(args.operands)));
  const int ab_bytes = operand_bytes(args.operands, sizeof(T));
  const auto broken = check_gemm_rules(p, ab_bytes, device_limits(ctx.device()));
  if (!broken.empty()) {
    std::string why;
    for (const auto& v : broken) why += fmt::format("\n  rule '{}': {}", v.rule, v.message);
    throw unsupported_error(fmt::format("tessera::blas::gemm: configuration '{}' does not fit {} for {}:{}",
                                        to_string(p), ctx.device().name, element_of<T>(args.operands).name, why));
  }
  // Split-K's workspace holds a chunk of batch entries (see the launches below) at a time.
  const std::int64_t split_chunk = std::min<std::int64_t>(batch, 65535 / std::max(p.split_k, 1));
  const std::int64_t workspace_bytes = split_chunk * p.split_k * args.m * args.n * std::int64_t(sizeof(T));
  if (p.split_k > 1 && (workspace_bytes > max_split_k_workspace_bytes ||
                        (ctx.device().max_allocation_bytes > 0 &&
                         workspace_bytes > static_cast<std::int64_t>(ctx.device().max_allocation_bytes))))
    p.split_k = 1;
  // pretranspose: the product reads copies of the operands stored along K (offset 0, their own
  // leading dimensions); one variant for the call's kernels (the copies, the product and split-K's
  // sum), made from what the product reads.
  const pretransposed_operands copies = copies_of(p, args, ctx);
  // A chosen split may run as a tail split; not with an epilogue (its inputs are indexed as C's whole).
  if (choice == split_choice::chosen && epilogue == nullptr)
    if (const auto plan = tail_split_for_call(p, ab_bytes, shape_of(args), ctx.device().compute_units,
                                              ctx.device().max_allocation_bytes))
      return run_tail_split(ctx, p, args, *plan, derive(p, ab_bytes));
  gemm_arguments<T> product = product_arguments(args, copies);
  const kernel_variant variant = variant_of(p, product);
  const auto built = get_kernel(ctx, variant, epilogue);
  const gemm_rule_values d = derive(p, ab_bytes);
  if (static_cast<std::int64_t>(built->max_work_group_size()) < d.work_group_size)
    throw unsupported_error(fmt::format(
        "tessera::blas::gemm: configuration '{}' needs work-groups of {} work-items, but its kernel runs at most "
        "{} on {} (registers or local memory)",
        to_string(p), d.work_group_size, built->max_work_group_size(), ctx.device().name));

  const bool naive = p.family == gemm_family::naive;
  const std::int64_t rows_per_group = naive ? p.wg_rows : d.block_rows;
  const std::int64_t cols_per_group = naive ? p.wg_cols : d.block_cols;
  // mma's wg counts warps: a work-group is 32 x wg_rows work-items along M.
  const std::int64_t local_rows = p.family == gemm_family::mma ? 32 * std::int64_t(p.wg_rows) : p.wg_rows;
  runtime::launch_range range;
  range.dimensions = 3;
  range.global[0] = static_cast<std::size_t>((args.m + rows_per_group - 1) / rows_per_group * local_rows);
  // local's k-groups (k_groups > 1) are grids of wg_rows x wg_cols stacked along local size 1.
  const std::int64_t local_cols = std::int64_t(p.wg_cols) * p.k_groups;
  range.global[1] = static_cast<std::size_t>((args.n + cols_per_group - 1) / cols_per_group * local_cols);
  range.local = {static_cast<std::size_t>(local_rows), static_cast<std::size_t>(local_cols),
                 static_cast<std::size_t>(p.wg_batch)};

  // Launches of at most 65535 work-groups along the batch (the grid limit of some devices);
  // split-K's slices share that dimension.
  const int split = p.split_k;
  std::int64_t chunk = split > 1 ? split_chunk : 65535 * static_cast<std::int64_t>(p.wg_batch);
  // The copies hold a chunk of batch entries too: within the same limit as one entry's copy.
  const std::int64_t a_copy_bytes = copies.a ? product.stride_a * std::int64_t(sizeof(T)) : 0;
  const std::int64_t b_copy_bytes = copies.b ? product.stride_b * std::int64_t(sizeof(T)) : 0;
  if (copies.any())
    chunk = std::clamp<std::int64_t>(
        pretranspose_limit_bytes(ctx.device().max_allocation_bytes) / std::max(a_copy_bytes, b_copy_bytes), 1, chunk);
  // The partial tiles go to the context's kept scratch memory: a buffer made and released per
  // call cost more than the whole product at small sizes (H200, 512^3 split in 4: 0.74x cuBLAS
  // unsplit, 0.11x split with a buffer per call).
  runtime::workspace_lease lease;
  const device_buffer* workspace = nullptr;
  std::shared_ptr<runtime::kernel> reduce, copy;
  runtime::launch_range reduce_range, copy_range;
  if (split > 1 || copies.any()) lease = runtime::workspace_lease(ctx, runtime::workspace_owner::gemm);
  if (copies.any()) {
    copy = get_kernel(ctx, variant, epilogue, gemm_kernel_role::pretranspose);
    // gemm_local.cl's tile: 32 x 8 work-items move a 32 x 32 tile.
    copy_range.dimensions = 3;
    copy_range.local = {32, 8, 1};
    if (copy->max_work_group_size() < 32 * 8)
      throw unsupported_error(fmt::format(
          "tessera::blas::gemm: configuration '{}' copies operands in work-groups of 256 work-items, but its copy "
          "kernel runs at most {} on {}: use pretranspose=0",
          to_string(p), copy->max_work_group_size(), ctx.device().name));
    const std::size_t chunk_entries = static_cast<std::size_t>(std::min(chunk, batch));
    if (copies.a) product.a = &lease.buffer(1, chunk_entries * static_cast<std::size_t>(a_copy_bytes));
    if (copies.b) product.b = &lease.buffer(2, chunk_entries * static_cast<std::size_t>(b_copy_bytes));
  }
  if (split > 1) {
    workspace = &lease.buffer(0, static_cast<std::size_t>(workspace_bytes));
    reduce = get_kernel(ctx, variant, epilogue, gemm_kernel_role::split_k_reduce);
    // Work-items along M read and write neighbouring elements (coalesced).
    const std::size_t reduce_rows = 64, reduce_cols = 4;
    reduce_range.dimensions = 3;
    reduce_range.global[0] = static_cast<std::size_t>((args.m + reduce_rows - 1) / reduce_rows * reduce_rows);
    reduce_range.global[1] = static_cast<std::size_t>((args.n + reduce_cols - 1) / reduce_cols * reduce_cols);
    reduce_range.local = {reduce_rows, reduce_cols, 1};
    if (reduce->max_work_group_size() < reduce_rows * reduce_cols) reduce_range.local = {0, 0, 0};
  }
  const int m = static_cast<int>(args.m), n = static_cast<int>(args.n), k = static_cast<int>(args.k);
  const int ldc = static_cast<int>(args.ldc);
  // A and B are not read when k == 0 and may be absent: C stands in for them.
  const cl::Buffer& a_buffer = args.k > 0 ? product.a->handle() : args.c->handle();
  const cl::Buffer& b_buffer = args.k > 0 ? product.b->handle() : args.c->handle();
  const int product_lda = static_cast<int>(product.lda), product_ldb = static_cast<int>(product.ldb);
  cl::Event first_launch, event;
  for (std::int64_t first = 0; first < batch; first += chunk) {
    const std::int64_t count = std::min(chunk, batch - first);
    range.global[2] = static_cast<std::size_t>((count + p.wg_batch - 1) / p.wg_batch * p.wg_batch * split);
    const auto offset = [first](std::size_t base, std::int64_t stride) {
      return static_cast<cl_ulong>(base + static_cast<std::size_t>(first * stride));
    };
    // The copies of this chunk's entries: each stored k x cols matrix becomes cols x k.
    const auto launch_copy = [&](const device_buffer& source, std::size_t source_offset, std::int64_t ld,
                                 std::int64_t stride, std::int64_t cols, const device_buffer& copied,
                                 std::int64_t copied_ld, std::int64_t copied_stride) {
      copy_range.global[0] = static_cast<std::size_t>((args.k + 31) / 32 * 32);
      copy_range.global[1] = static_cast<std::size_t>(std::min<std::int64_t>((cols + 31) / 32, 65535) * 8);
      copy_range.global[2] = static_cast<std::size_t>(count);
      const runtime::kernel_argument copy_arguments[] = {
          k, static_cast<int>(cols), source.handle(), offset(source_offset, stride), static_cast<int>(ld),
          static_cast<cl_ulong>(stride), copied.handle(), static_cast<int>(copied_ld),
          static_cast<cl_ulong>(copied_stride)};
      const cl::Event copied_event = copy->launch(ctx, copy_range, copy_arguments, args.event);
      if (first == 0 && first_launch() == nullptr) first_launch = copied_event;
      ++launches;
    };
    if (copies.a) launch_copy(*args.a, args.a_offset, args.lda, args.stride_a, args.m, *product.a, product.lda,
                              product.stride_a);
    if (copies.b) launch_copy(*args.b, args.b_offset, args.ldb, args.stride_b, args.n, *product.b, product.ldb,
                              product.stride_b);
    // The GEMM's own parameters, then the epilogue's (gemm_common.cl's GEMM_EPILOGUE_PARAMETERS).
    // The copies start at offset 0 for every chunk.
    std::vector<runtime::kernel_argument> arguments{
        m, n, k, args.alpha, a_buffer,
        args.k > 0 && !copies.a ? offset(args.a_offset, args.stride_a) : cl_ulong(0), product_lda,
        static_cast<cl_ulong>(product.stride_a), b_buffer,
        args.k > 0 && !copies.b ? offset(args.b_offset, args.stride_b) : cl_ulong(0), product_ldb,
        static_cast<cl_ulong>(product.stride_b), args.beta, args.c->handle(), offset(args.c_offset, args.stride_c),
        ldc, static_cast<cl_ulong>(args.stride_c), static_cast<int>(count)};
    if (epilogue != nullptr) arguments.insert(arguments.end(), epilogue->arguments.begin(), epilogue->arguments.end());
    if (split > 1) arguments.emplace_back(workspace->handle());
    event = built->launch(ctx, range, arguments, args.event);
    if (first == 0 && first_launch() == nullptr) first_launch = event;
    ++launches;
    if (split > 1) {
      // The in-order queue runs the sum after every partial tile is written.
      reduce_range.global[2] = static_cast<std::size_t>(count);
      event = reduce->launch(ctx, reduce_range, arguments, args.event);
      ++launches;
    }
  }
  // Several launches (chunks of the batch, the copies before the product): the caller's event
  // must cover them all, for waiting and for timing.
  return (batch > chunk || copies.any()) && returns_event ? runtime::covering_event(ctx, first_launch) : event;
}

}  // namespace

namespace detail {
std::size_t launch_count() { return launches.load(); }

template <device_scalar T>
gemm_program_text program_text(const gemm_params& params, const gemm_arguments<T>& args,
                               const runtime::context& ctx) {
  return program_text(params, args, ctx, {});
}
template gemm_program_text program_text<float>(const gemm_params&, const gemm_arguments<float>&,
                                               const runtime::context&);
template gemm_program_text program_text<double>(const gemm_params&, const gemm_arguments<double>&,
                                                const runtime::context&);

template <device_scalar T>
gemm_program_text program_text(const gemm_params& params, const gemm_arguments<T>& args,
                               const runtime::context& ctx, std::string_view epilogue_source) {
  const gemm_params p = for_call(params, args, ctx);
  return {program_source(params.family, epilogue_source),
          kernel_options(variant_of(p, product_arguments(args, copies_of(p, args, ctx))), ctx)};
}

template <device_scalar T>
cl::Event gemm_with_epilogue(const gemm_params& params, const gemm_arguments<T>& args, const gemm_epilogue& epilogue) {
  validate(args);
  return run(context_of(args), params, args, &epilogue);
}

template <device_scalar T>
cl::Event gemm_with_epilogue(const gemm_arguments<T>& args, const gemm_epilogue& epilogue) {
  validate(args);
  const runtime::context& ctx = context_of(args);
  return run(ctx, default_params_for(args, ctx), args, &epilogue);
}

#define TESSERA_INSTANTIATE_GEMM_EPILOGUE(T)                                                                    \
  template gemm_program_text program_text<T>(const gemm_params&, const gemm_arguments<T>&,                      \
                                             const runtime::context&, std::string_view);                        \
  template cl::Event gemm_with_epilogue<T>(const gemm_params&, const gemm_arguments<T>&, const gemm_epilogue&); \
  template cl::Event gemm_with_epilogue<T>(const gemm_arguments<T>&, const gemm_epilogue&);
TESSERA_INSTANTIATE_GEMM_EPILOGUE(float)
TESSERA_INSTANTIATE_GEMM_EPILOGUE(double)
#undef TESSERA_INSTANTIATE_GEMM_EPILOGUE
}  // namespace detail

template <device_scalar T>
gemm_params default_params_for(const gemm_arguments<T>& args, const runtime::context& ctx) {
  const gemm_problem_shape shape = shape_of(args);
  const bool sixteen_bit = args.operands != operand_type::float32;
  if (!sixteen_bit && !(std::is_same_v<T, float> && args.math == math_mode::tf32))
    return choose_default(ctx.device(), sizeof(T), shape).params;
  // Tensor cores, where their blocks are not too few (choose_tensor_core_default).
  const int ab_bytes = operand_bytes(args.operands, sizeof(T));
  const std::string_view precision = args.operands == operand_type::float16    ? "fp16"
                                     : args.operands == operand_type::bfloat16 ? "bf16"
                                                                               : "tf32";
  const auto& device = ctx.device();
  const auto pick = choose_tensor_core_default(gemm_defaults_table_index(), describe_device(device), device_limits(device),
                                               ab_bytes, shape, precision, device.compute_units);
  if (pick.entry != nullptr) return pick.params;
  if (!sixteen_bit) return choose_default(ctx.device(), sizeof(T), shape).params;
  throw unsupported_error(fmt::format(
      "tessera::blas::gemm: A and B hold {} values, which only tensor cores multiply here (the mma family: NVIDIA, "
      "compute capability 8.0 and up), and {} has none that fits: convert them to float",
      to_string(args.operands), ctx.device().name));
}

template <device_scalar T>
cl::Event gemm_with(const gemm_params& params, const gemm_arguments<T>& args) {
  validate(args);
  return run(context_of(args), params, args, nullptr, params.split_k == 0 ? split_choice::chosen : split_choice::as_given);
}

template <device_scalar T>
cl::Event gemm(const gemm_arguments<T>& args) {
  validate(args);
  const runtime::context& ctx = context_of(args);
  return run(ctx, default_params_for(args, ctx), args, nullptr, split_choice::chosen);
}

namespace {

template <typename T>
void check_matrix_shape(const char* name, const runtime::matrix<T>& x, std::int64_t rows, std::int64_t cols,
                        const std::string& why, const char* ld_name, std::int64_t ld) {
  if (x.rows() != rows || x.cols() != cols)
    fail(fmt::format("{} is {} but {} make it {}", name, runtime::shape_string(x.rows(), x.cols()), why,
                     runtime::shape_string(rows, cols)));
  if (ld != std::max<std::int64_t>(1, x.rows()))
    fail(fmt::format("{} = {} differs from the leading dimension of matrix {} (its {} rows)", ld_name, ld, name,
                     x.rows()));
}

}  // namespace

template <device_scalar T>
cl::Event gemm(transpose trans_a, transpose trans_b, index_t m, index_t n, index_t k, T alpha,
               const runtime::matrix<T>& a, index_t lda, const runtime::matrix<T>& b, index_t ldb, T beta,
               runtime::matrix<T>& c, index_t ldc) {
  if (m < 0) fail(fmt::format("m = {} is negative", m));
  if (n < 0) fail(fmt::format("n = {} is negative", n));
  if (k < 0) fail(fmt::format("k = {} is negative", k));
  const bool ta = trans_a == transpose::trans, tb = trans_b == transpose::trans;
  check_matrix_shape("A", a, ta ? k : m, ta ? m : k,
                     fmt::format("trans_a = {}, m = {}, k = {}", to_char(trans_a), m, k), "lda", lda);
  check_matrix_shape("B", b, tb ? n : k, tb ? k : n,
                     fmt::format("trans_b = {}, k = {}, n = {}", to_char(trans_b), k, n), "ldb", ldb);
  check_matrix_shape("C", c, m, n, fmt::format("m = {}, n = {}", m, n), "ldc", ldc);
  if (&c == &a || &c == &b) fail("C is also an operand (BLAS requires distinct memory)");
  gemm_arguments<T> args;
  args.trans_a = trans_a, args.trans_b = trans_b, args.m = m, args.n = n, args.k = k;
  args.alpha = alpha, args.beta = beta;
  args.a = &a.storage(), args.lda = lda;
  args.b = &b.storage(), args.ldb = ldb;
  args.c = &c.storage(), args.ldc = ldc;
  return gemm(args);
}

template <device_scalar T>
cl::Event gemm(transpose trans_a, transpose trans_b, T alpha, const runtime::matrix<T>& a,
               const runtime::matrix<T>& b, T beta, runtime::matrix<T>& c, math_mode math) {
  const bool ta = trans_a == transpose::trans, tb = trans_b == transpose::trans;
  const index_t m = ta ? a.cols() : a.rows(), k = ta ? a.rows() : a.cols();
  const index_t kb = tb ? b.cols() : b.rows(), n = tb ? b.rows() : b.cols();
  if (kb != k)
    fail(fmt::format("op(A) is {} and op(B) is {}: their inner dimensions differ", runtime::shape_string(m, k),
                     runtime::shape_string(kb, n)));
  if (c.rows() != m || c.cols() != n)
    fail(fmt::format("C is {} but op(A) * op(B) is {}", runtime::shape_string(c.rows(), c.cols()),
                     runtime::shape_string(m, n)));
  if (&c == &a || &c == &b) fail("C is also an operand (BLAS requires distinct memory)");
  gemm_arguments<T> args;
  args.trans_a = trans_a, args.trans_b = trans_b, args.m = m, args.n = n, args.k = k;
  args.alpha = alpha, args.beta = beta;
  args.a = &a.storage(), args.lda = std::max<index_t>(1, a.rows());
  args.b = &b.storage(), args.ldb = std::max<index_t>(1, b.rows());
  args.c = &c.storage(), args.ldc = std::max<index_t>(1, c.rows());
  args.math = math;
  return gemm(args);
}

#define TESSERA_INSTANTIATE_GEMM(T)                                                                              \
  template void validate<T>(const gemm_arguments<T>&);                                                           \
  template gemm_params default_params_for<T>(const gemm_arguments<T>&, const runtime::context&);                 \
  template cl::Event gemm_with<T>(const gemm_params&, const gemm_arguments<T>&);                                 \
  template cl::Event gemm<T>(const gemm_arguments<T>&);                                                          \
  template cl::Event gemm<T>(transpose, transpose, index_t, index_t, index_t, T, const runtime::matrix<T>&,     \
                             index_t, const runtime::matrix<T>&, index_t, T, runtime::matrix<T>&, index_t);      \
  template cl::Event gemm<T>(transpose, transpose, T, const runtime::matrix<T>&, const runtime::matrix<T>&, T,  \
                             runtime::matrix<T>&, math_mode);
TESSERA_INSTANTIATE_GEMM(float)
TESSERA_INSTANTIATE_GEMM(double)
#undef TESSERA_INSTANTIATE_GEMM

}  // namespace tessera::blas
