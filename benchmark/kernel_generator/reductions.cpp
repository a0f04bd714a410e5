// Reductions: the kernel generator's row and column reductions, and expressions built on
// them (softmax, log-sum-exp, row normalization), against the device's copy bandwidth and
// hand-written OpenCL reductions, at ten aspect ratios, in one process.
//
// Shapes (column-major floats): 2^24 elements as 4096x4096, 256x65536, 65536x256, 1x16777216,
// 16777216x1; with TESSERA_BENCH_LARGE=1 also 2^26 as 8192x8192, 1024x65536, 65536x1024,
// 1x67108864, 67108864x1. Benchmarks are named OPERATION/ROWSxCOLS and run shape by shape, the
// copy of each shape first.
//
// Every benchmark checks its result against the host (double accumulation; sums within a few
// float epsilons of the sum of |values| of the row or column) once before timing, and fails
// with SkipWithError("mismatch ...") otherwise. A kernel-generator operation is first run at
// shapes ..., 16x, 4x smaller: when one of them takes over TESSERA_BENCH_MAX_SECONDS (default
// 2) per evaluation, or its time grows much faster than the elements and, extrapolated to the
// full shape, is over that, it is not run (SkipWithError("not run: ...")), so that a reduction
// recomputed for every element (quadratic in the row length) reports itself instead of
// running for hours.
//
// Each iteration enqueues the operation and finishes the queue; its time is device time from
// OpenCL profiling events, from the first command's start to the last one's end. Counters:
//   bytes_per_second  the bytes the operation must move at least (each input read once, each
//                     output written once) over that time; for the copy, bytes read + written
//   kernels           kernels one evaluation launched (runtime::kernels_enqueued; the copy is a
//                     clEnqueueCopyBuffer, no kernel: 0)
//   copy_ratio        bytes_per_second over the copy's, of the same shape in the same process
#include <tessera/kernel_generator/kernel_generator.hpp>
#include <tessera/runtime/covering_event.hpp>
#include <tessera/runtime/runtime.hpp>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace rt = tessera::runtime;
namespace kg = tessera::kernel_generator;
using tessera::index_t;
using tessera::matrix;

namespace {

struct shape {
  index_t rows, cols;
  index_t size() const { return rows * cols; }
  std::string name() const { return fmt::format("{}x{}", rows, cols); }
  auto operator<=>(const shape&) const = default;
};

std::vector<shape> shapes() {
  std::vector<shape> out{{4096, 4096}, {256, 65536}, {65536, 256}, {1, 16777216}, {16777216, 1}};
  const char* large = std::getenv("TESSERA_BENCH_LARGE");
  if (large != nullptr && std::string(large) == "1")
    out.insert(out.end(), {{8192, 8192}, {1024, 65536}, {65536, 1024}, {1, 67108864}, {67108864, 1}});
  return out;
}

double max_seconds() {
  const char* v = std::getenv("TESSERA_BENCH_MAX_SECONDS");
  return v != nullptr ? std::atof(v) : 2.0;
}

/// n floats uniform in [-1, 1), none zero.
std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<float> out(n);
  for (auto& v : out) {
    do v = static_cast<float>(rng() >> 8) * 0x1p-23f - 1.0f;
    while (v == 0.0f);
  }
  return out;
}

/// Host and device inputs of one shape: a, b and c, random. Column-major, like matrix<T>.
struct operands {
  shape s;
  const float* a;
  const float* b;
  const float* c;
  const matrix<float>* da;
  const matrix<float>* db;
  const matrix<float>* dc;
  float at(const float* m, index_t i, index_t j) const { return m[j * s.rows + i]; }
};

/// The inputs of the shape being benchmarked, shared by its benchmarks (they run shape by
/// shape): generating and uploading 2^26 floats three times per benchmark would dominate.
class shape_inputs {
 public:
  explicit shape_inputs(shape s)
      : s_(s),
        a_(random_floats(static_cast<std::size_t>(s.size()), 1)),
        b_(random_floats(static_cast<std::size_t>(s.size()), 2)),
        c_(random_floats(static_cast<std::size_t>(s.size()), 3)),
        da_(a_, s.rows, s.cols),
        db_(b_, s.rows, s.cols),
        dc_(c_, s.rows, s.cols) {}

  operands full() const { return {s_, a_.data(), b_.data(), c_.data(), &da_, &db_, &dc_}; }
  const std::vector<float>& a() const { return a_; }
  const std::vector<float>& b() const { return b_; }
  const std::vector<float>& c() const { return c_; }

 private:
  shape s_;
  std::vector<float> a_, b_, c_;
  matrix<float> da_, db_, dc_;
};

const shape_inputs& inputs_for(shape s) {
  static std::unique_ptr<shape_inputs> current;
  static shape current_shape{-1, -1};
  if (current_shape != s) {
    current.reset();  // free the previous shape's memory first
    current = std::make_unique<shape_inputs>(s);
    current_shape = s;
  }
  return *current;
}

// ---------------------------------------------------------------------------------------------
// Checking against the host

/// The first element where |got - want| > factor * epsilon * scale, as a message; empty if none.
std::string first_mismatch(const std::vector<float>& got, const std::vector<double>& want,
                           const std::vector<double>& scale, double factor, index_t rows) {
  if (got.size() != want.size()) return fmt::format("mismatch: {} elements, expected {}", got.size(), want.size());
  const double epsilon = std::numeric_limits<float>::epsilon();
  for (std::size_t k = 0; k < got.size(); ++k) {
    const double error = std::abs(static_cast<double>(got[k]) - want[k]);
    if (!(error <= factor * epsilon * scale[k]))  // NaN fails too
      return fmt::format("mismatch at ({}, {}): {} instead of {} (error {:.3g}, tolerance {:.3g})",
                         static_cast<index_t>(k) % rows, static_cast<index_t>(k) / rows, got[k], want[k], error,
                         factor * epsilon * scale[k]);
  }
  return {};
}

enum class direction { rows, cols };

/// Per row (direction::rows, M values) or per column (N values): sum, sum of |x|, max.
struct host_reductions {
  std::vector<double> sum, magnitude, max;
};
host_reductions reduce_on_host(const operands& in, const float* m, direction d) {
  const index_t n = d == direction::rows ? in.s.rows : in.s.cols;
  host_reductions r{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0),
                    std::vector<double>(n, -std::numeric_limits<double>::infinity())};
  for (index_t j = 0; j < in.s.cols; ++j)
    for (index_t i = 0; i < in.s.rows; ++i) {
      const double v = in.at(m, i, j);
      const index_t k = d == direction::rows ? i : j;
      r.sum[k] += v;
      r.magnitude[k] += std::abs(v);
      r.max[k] = std::max(r.max[k], v);
    }
  return r;
}

/// softmax of every row (direction::rows) or column, with the magnitude of each value.
std::pair<std::vector<double>, std::vector<double>> softmax_on_host(const operands& in, direction d) {
  const host_reductions r = reduce_on_host(in, in.a, d);
  const auto k_of = [&](index_t i, index_t j) { return d == direction::rows ? i : j; };
  std::vector<double> sums(r.max.size(), 0.0), want(static_cast<std::size_t>(in.s.size()));
  for (index_t j = 0; j < in.s.cols; ++j)
    for (index_t i = 0; i < in.s.rows; ++i) sums[k_of(i, j)] += std::exp(in.at(in.a, i, j) - r.max[k_of(i, j)]);
  for (index_t j = 0; j < in.s.cols; ++j)
    for (index_t i = 0; i < in.s.rows; ++i)
      want[j * in.s.rows + i] = std::exp(in.at(in.a, i, j) - r.max[k_of(i, j)]) / sums[k_of(i, j)];
  std::vector<double> scale(want);
  return {std::move(want), std::move(scale)};
}

// ---------------------------------------------------------------------------------------------
// Operations

/// One operation on one shape's inputs: run() enqueues it, finishes the queue and returns its
/// device seconds; mismatch() compares the last result with the host.
class operation {
 public:
  virtual ~operation() = default;
  virtual double run() = 0;
  virtual std::string mismatch() const = 0;
};

double finished_seconds(const cl::Event& event) {
  rt::context::get().finish();
  return rt::elapsed_seconds(event);
}

class copy_operation final : public operation {
 public:
  explicit copy_operation(const operands& in) : in_(in), d_(in.s.rows, in.s.cols) {}
  double run() override {
    cl::Event event;
    rt::check_cl(rt::context::get().queue().enqueueCopyBuffer(in_.da->buffer(), d_.buffer(), 0, 0,
                                                               static_cast<std::size_t>(in_.s.size()) * sizeof(float),
                                                               nullptr, &event),
                 "clEnqueueCopyBuffer");
    return finished_seconds(event);
  }
  std::string mismatch() const override {
    const std::vector<float> got = d_.to_host();
    return std::equal(got.begin(), got.end(), in_.a) ? std::string() : std::string("mismatch: the copy differs");
  }

 private:
  operands in_;
  matrix<float> d_;
};

/// A kernel-generator assignment into one target, checked against want within factor * eps * scale.
class generated_operation final : public operation {
 public:
  using assignment = std::function<cl::Event(matrix<float>& target, const operands& in)>;
  using reference = std::function<std::pair<std::vector<double>, std::vector<double>>(const operands& in)>;
  generated_operation(const operands& in, assignment assign, reference host, double factor)
      : in_(in), assign_(std::move(assign)), host_(std::move(host)), factor_(factor) {}
  double run() override { return finished_seconds(assign_(d_, in_)); }
  std::string mismatch() const override {
    const auto [want, scale] = host_(in_);
    return first_mismatch(d_.to_host(), want, scale, factor_, std::max<index_t>(d_.rows(), 1));
  }

 private:
  operands in_;
  assignment assign_;
  reference host_;
  double factor_;
  matrix<float> d_;
};

// Hand-written reductions: what the generated ones are compared with. Sums are Kahan-compensated
// in each work-item, as the generator's are.
constexpr const char* handwritten_source = R"CL(
// Column sums of a rows x cols column-major matrix: `width` work-items per column (a power of
// two, at most the work-group size), each summing a strided part of it; the work-group's
// columns are then finished by a tree in local memory. One work-group per column when the
// columns are long; several short columns per work-group otherwise.
kernel void column_sums(global float* restrict out, global const float* restrict a, long rows, long cols,
                        int width, local float* scratch) {
  const int lid = get_local_id(0);
  const int lane = lid % width;
  const long col = (long)get_group_id(0) * (long)(get_local_size(0) / width) + lid / width;
  float sum = 0, c = 0;
  if (col < cols) {
    global const float* column = a + col * rows;
    for (long i = lane; i < rows; i += width) {
      const float y = column[i] - c;
      const float t = sum + y;
      c = (t - sum) - y;
      sum = t;
    }
  }
  scratch[lid] = sum - c;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int step = width / 2; step > 0; step /= 2) {
    if (lane < step) scratch[lid] += scratch[lid + step];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0 && col < cols) out[col] = scratch[lid];
}

// Partial row sums of a rows x cols column-major matrix: work-item g sums row g % rows over the
// columns c, c + chunks, c + 2 chunks, ... (c = g / rows), so that neighbouring work-items read
// neighbouring elements (along a column, or along a row when rows == 1). partial is chunks x
// rows, column-major: each row's partial sums are contiguous, finished by column_sums.
kernel void row_partial_sums(global float* restrict partial, global const float* restrict a, long rows, long cols,
                             long chunks) {
  const long g = get_global_id(0);
  if (g >= rows * chunks) return;
  const long i = g % rows, first = g / rows;
  float sum = 0, c = 0;
  for (long j = first; j < cols; j += chunks) {
    const float y = a[j * rows + i] - c;
    const float t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  partial[i * chunks + first] = sum - c;
}
)CL";

struct handwritten_kernels {
  rt::kernel column_sums, row_partial_sums;
};
const handwritten_kernels& handwritten() {
  static const handwritten_kernels k = [] {
    const auto program = rt::context::get().programs().get("bench_reductions_handwritten", handwritten_source);
    return handwritten_kernels{program->make_kernel("column_sums"), program->make_kernel("row_partial_sums")};
  }();
  return k;
}

/// Enqueues out = the column sums of the rows x cols buffer a.
cl::Event enqueue_column_sums(const cl::Buffer& out, const cl::Buffer& a, index_t rows, index_t cols) {
  const rt::kernel& k = handwritten().column_sums;
  const std::size_t group = k.power_of_two_work_group(256);
  const std::size_t width = std::min(group, std::bit_ceil(static_cast<std::size_t>(std::max<index_t>(rows, 1))));
  const std::size_t groups = (static_cast<std::size_t>(cols) + group / width - 1) / (group / width);
  return k.launch(rt::context::get(), rt::launch_range::one_d(groups * group, group), out, a,
                  static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols), static_cast<int>(width),
                  rt::local_memory{group * sizeof(float)});
}

class handwritten_column_sums final : public operation {
 public:
  explicit handwritten_column_sums(const operands& in) : in_(in), d_(1, in.s.cols) {}
  double run() override {
    return finished_seconds(enqueue_column_sums(d_.buffer(), in_.da->buffer(), in_.s.rows, in_.s.cols));
  }
  std::string mismatch() const override {
    const host_reductions r = reduce_on_host(in_, in_.a, direction::cols);
    return first_mismatch(d_.to_host(), r.sum, r.magnitude, 16, 1);
  }

 private:
  operands in_;
  matrix<float> d_;
};

class handwritten_row_sums final : public operation {
 public:
  /// chunks: partial sums per row, so that about 2^18 work-items read the matrix.
  explicit handwritten_row_sums(const operands& in)
      : in_(in),
        chunks_(std::clamp<index_t>((index_t{1} << 18) / std::max<index_t>(in.s.rows, 1), 1,
                                    std::max<index_t>(in.s.cols, 1))),
        partial_(chunks_, in.s.rows),
        d_(in.s.rows, 1) {}
  double run() override {
    auto& ctx = rt::context::get();
    const rt::kernel& k = handwritten().row_partial_sums;
    const std::size_t items = static_cast<std::size_t>(in_.s.rows * chunks_);
    // One chunk per row: the partial sums are the result, one kernel.
    const cl::Buffer& first_out = chunks_ == 1 ? d_.buffer() : partial_.buffer();
    const cl::Event first = k.launch(ctx, rt::launch_range::one_d(rt::round_up(items, 256), 256), first_out,
                                     in_.da->buffer(), static_cast<std::int64_t>(in_.s.rows),
                                     static_cast<std::int64_t>(in_.s.cols), static_cast<std::int64_t>(chunks_));
    if (chunks_ == 1) return finished_seconds(first);
    enqueue_column_sums(d_.buffer(), partial_.buffer(), chunks_, in_.s.rows);
    return finished_seconds(rt::covering_event(ctx, first));
  }
  std::string mismatch() const override {
    const host_reductions r = reduce_on_host(in_, in_.a, direction::rows);
    return first_mismatch(d_.to_host(), r.sum, r.magnitude, 16, in_.s.rows);
  }

 private:
  operands in_;
  index_t chunks_;
  matrix<float> partial_, d_;
};

// ---------------------------------------------------------------------------------------------
// The benchmarks

struct operation_spec {
  std::string name;
  /// Bytes it must move at least on a shape.
  std::function<double(shape)> bytes;
  std::function<std::unique_ptr<operation>(const operands&)> make;
  /// Whether the operation means something on a shape (a softmax of rows of one element does not).
  std::function<bool(shape)> applies = [](shape) { return true; };
  /// Kernel-generator operations are probed at smaller shapes first (see the top).
  bool probe = false;
  bool reads_b_and_c = false;
};

double floats(double n) { return n * sizeof(float); }

std::unique_ptr<operation> generated(const operands& in, generated_operation::assignment assign,
                                     generated_operation::reference host, double factor) {
  return std::make_unique<generated_operation>(in, std::move(assign), std::move(host), factor);
}

/// A reduction's host reference: values and scales of each row (rows) or column (cols).
template <bool Sum>
generated_operation::reference reduction_reference(direction d) {
  return [d](const operands& in) {
    host_reductions r = reduce_on_host(in, in.a, d);
    if constexpr (Sum) return std::pair{std::move(r.sum), std::move(r.magnitude)};
    else return std::pair{r.max, std::vector<double>(r.max.size(), 0.0)};  // exact
  };
}

std::vector<operation_spec> operation_specs() {
  const auto rows_longer_than_one = [](shape s) { return s.cols > 1; };
  const auto cols_longer_than_one = [](shape s) { return s.rows > 1; };
  std::vector<operation_spec> specs;
  specs.push_back({"copy", [](shape s) { return floats(2.0 * s.size()); },
                   [](const operands& in) { return std::make_unique<copy_operation>(in); }});

  operation_spec elementwise{
      "elementwise", [](shape s) { return floats(4.0 * s.size()); }, [](const operands& in) {
        return generated(
            in, [](matrix<float>& d, const operands& o) { return kg::evaluate(d, kg::elt_multiply(*o.dc, *o.da + *o.db)); },
            [](const operands& o) {
              std::vector<double> want(static_cast<std::size_t>(o.s.size())), scale(want.size());
              for (std::size_t k = 0; k < want.size(); ++k) {
                want[k] = double(o.c[k]) * (double(o.a[k]) + double(o.b[k]));
                scale[k] = std::abs(double(o.c[k])) * (std::abs(double(o.a[k])) + std::abs(double(o.b[k])));
              }
              return std::pair{want, scale};
            },
            4);
      }};
  elementwise.probe = elementwise.reads_b_and_c = true;
  specs.push_back(elementwise);

  const auto row_output = [](shape s) { return floats(double(s.size()) + double(s.rows)); };
  const auto col_output = [](shape s) { return floats(double(s.size()) + double(s.cols)); };
  const auto add = [&](std::string name, std::function<double(shape)> bytes,
                       std::function<std::unique_ptr<operation>(const operands&)> make,
                       std::function<bool(shape)> applies = [](shape) { return true; }) {
    specs.push_back({std::move(name), std::move(bytes), std::move(make), std::move(applies), true, false});
  };
  add("rowwise_sum", row_output, [](const operands& in) {
    return generated(
        in, [](matrix<float>& d, const operands& o) { return kg::evaluate(d, kg::rowwise_sum(*o.da)); },
        reduction_reference<true>(direction::rows), 16);
  });
  add("colwise_sum", col_output, [](const operands& in) {
    return generated(
        in, [](matrix<float>& d, const operands& o) { return kg::evaluate(d, kg::colwise_sum(*o.da)); },
        reduction_reference<true>(direction::cols), 16);
  });
  add("rowwise_max", row_output, [](const operands& in) {
    return generated(
        in, [](matrix<float>& d, const operands& o) { return kg::evaluate(d, kg::rowwise_max(*o.da)); },
        reduction_reference<false>(direction::rows), 0);
  });
  add("colwise_max", col_output, [](const operands& in) {
    return generated(
        in, [](matrix<float>& d, const operands& o) { return kg::evaluate(d, kg::colwise_max(*o.da)); },
        reduction_reference<false>(direction::cols), 0);
  });

  const auto read_and_write = [](shape s) { return floats(2.0 * s.size()); };
  // softmax as the user writes it: one assignment, e an expression.
  add(
      "softmax_rows", read_and_write,
      [](const operands& in) {
        return generated(
            in,
            [](matrix<float>& s, const operands& o) {
              const auto e = kg::exp(*o.da - kg::colwise_broadcast(kg::rowwise_max(*o.da)));
              return kg::evaluate(s, kg::elt_divide(e, kg::colwise_broadcast(kg::rowwise_sum(e))));
            },
            [](const operands& o) { return softmax_on_host(o, direction::rows); }, 16);
      },
      rows_longer_than_one);
  add(
      "softmax_cols", read_and_write,
      [](const operands& in) {
        return generated(
            in,
            [](matrix<float>& s, const operands& o) {
              const auto e = kg::exp(*o.da - kg::rowwise_broadcast(kg::colwise_max(*o.da)));
              return kg::evaluate(s, kg::elt_divide(e, kg::rowwise_broadcast(kg::colwise_sum(e))));
            },
            [](const operands& o) { return softmax_on_host(o, direction::cols); }, 16);
      },
      cols_longer_than_one);
  add(
      "logsumexp_rows", row_output,
      [](const operands& in) {
        return generated(
            in,
            [](matrix<float>& r, const operands& o) {
              const auto m = kg::rowwise_max(*o.da);
              return kg::evaluate(r, m + kg::log(kg::rowwise_sum(kg::exp(*o.da - kg::colwise_broadcast(m)))));
            },
            [](const operands& o) {
              const host_reductions r = reduce_on_host(o, o.a, direction::rows);
              std::vector<double> sums(r.max.size(), 0.0), want(r.max.size()), scale(r.max.size());
              for (index_t j = 0; j < o.s.cols; ++j)
                for (index_t i = 0; i < o.s.rows; ++i) sums[i] += std::exp(o.at(o.a, i, j) - r.max[i]);
              for (std::size_t i = 0; i < want.size(); ++i) {
                want[i] = r.max[i] + std::log(sums[i]);
                scale[i] = std::abs(r.max[i]) + std::abs(std::log(sums[i])) + 1;
              }
              return std::pair{want, scale};
            },
            16);
      },
      rows_longer_than_one);
  // Row normalization as in layer norm: (a - mean) / std per row (population std).
  add(
      "normalize_rows", read_and_write,
      [](const operands& in) {
        return generated(
            in,
            [](matrix<float>& d, const operands& o) {
              const float n = static_cast<float>(o.s.cols);
              const auto centered = *o.da - kg::colwise_broadcast(kg::rowwise_sum(*o.da) / n);
              return kg::evaluate(
                  d, kg::elt_divide(centered, kg::colwise_broadcast(
                                                  kg::sqrt(kg::rowwise_sum(kg::elt_multiply(centered, centered)) / n))));
            },
            [](const operands& o) {
              const host_reductions r = reduce_on_host(o, o.a, direction::rows);
              const double n = static_cast<double>(o.s.cols);
              std::vector<double> squares(r.sum.size(), 0.0);
              for (index_t j = 0; j < o.s.cols; ++j)
                for (index_t i = 0; i < o.s.rows; ++i) {
                  const double x = o.at(o.a, i, j) - r.sum[i] / n;
                  squares[i] += x * x;
                }
              std::vector<double> want(static_cast<std::size_t>(o.s.size())), scale(want.size());
              for (index_t j = 0; j < o.s.cols; ++j)
                for (index_t i = 0; i < o.s.rows; ++i) {
                  const double mean = r.sum[i] / n, std = std::sqrt(squares[i] / n);
                  const std::size_t k = static_cast<std::size_t>(j * o.s.rows + i);
                  want[k] = (o.at(o.a, i, j) - mean) / std;
                  // The mean is a sum: its error is relative to the mean of |a|.
                  scale[k] = (std::abs(o.at(o.a, i, j)) + r.magnitude[i] / n) / std + std::abs(want[k]);
                }
              return std::pair{want, scale};
            },
            16);
      },
      rows_longer_than_one);

  specs.push_back({"handwritten_rowwise_sum", row_output,
                   [](const operands& in) { return std::make_unique<handwritten_row_sums>(in); }});
  specs.push_back({"handwritten_colwise_sum", col_output,
                   [](const operands& in) { return std::make_unique<handwritten_column_sums>(in); }});
  return specs;
}

/// Bytes per second of the copy of each shape, measured by its copy benchmark.
std::map<shape, double>& copy_bandwidths() {
  static std::map<shape, double> bandwidths;
  return bandwidths;
}

/// The copy's bandwidth on s: measured by the copy benchmark, or now when it was filtered out.
double copy_bandwidth(shape s) {
  auto& known = copy_bandwidths();
  if (const auto it = known.find(s); it != known.end()) return it->second;
  copy_operation copy(inputs_for(s).full());
  double seconds = 0;
  int runs = 0;
  while (runs < 3 || (seconds < 0.2 && runs < 1000)) {
    seconds += copy.run();
    ++runs;
  }
  return known[s] = floats(2.0 * s.size()) * runs / seconds;
}

/// Shape s divided by 4^k in elements: both sides halved k times, or the long side divided by 4^k.
shape scaled_down(shape s, int k) {
  const index_t factor = index_t{1} << k;
  if (s.rows > 1 && s.cols > 1) return {std::max<index_t>(s.rows / factor, 1), std::max<index_t>(s.cols / factor, 1)};
  return {std::max<index_t>(s.rows / (factor * factor), 1), std::max<index_t>(s.cols / (factor * factor), 1)};
}

/// Why spec should not run on in's shape, empty when it may: one evaluation took over the budget
/// at a shape 4^k times smaller, or, at a quarter of the shape, time grew much faster than the
/// elements (over 6x per 4x: noise and caches make a linear operation grow up to about that)
/// and times that growth is over the budget.
std::string too_slow(const operation_spec& spec, const shape_inputs& in, shape s) {
  const double budget = max_seconds();
  int k = 1;
  while (scaled_down(s, k + 1).size() >= 4096) ++k;
  double previous = 0;
  for (; k >= 1; --k) {
    const shape p = scaled_down(s, k);
    // Prefixes of the inputs: random too.
    const matrix<float> da(in.a().data(), p.rows, p.cols);
    std::optional<matrix<float>> db, dc;
    if (spec.reads_b_and_c) {
      db.emplace(in.b().data(), p.rows, p.cols);
      dc.emplace(in.c().data(), p.rows, p.cols);
    }
    const auto op = spec.make({p, in.a().data(), in.b().data(), in.c().data(), &da, db ? &*db : nullptr,
                               dc ? &*dc : nullptr});
    // The first run may build kernels (an assignment of several kernels may build its second
    // while the first runs, inside the measured interval); then the faster of two.
    double seconds = op->run();
    if (seconds <= budget) seconds = std::min(op->run(), op->run());
    else seconds = op->run();  // over the budget: once more, without building, to be sure
    if (seconds > budget) return fmt::format("not run: {:.3g} s per evaluation already at {}", seconds, p.name());
    if (k == 1 && previous > 0) {
      const double growth = seconds / previous;
      if (growth > 6 && seconds * growth > budget)
        return fmt::format(
            "not run: about {:.3g} s per evaluation predicted ({:.3g} s at {}, {:.3g}x per 4x elements; "
            "TESSERA_BENCH_MAX_SECONDS={})",
            seconds * growth, seconds, p.name(), growth, budget);
    }
    previous = seconds;
  }
  return {};
}

void run_benchmark(benchmark::State& state, const operation_spec& spec, shape s) {
  const shape_inputs& in = inputs_for(s);
  if (spec.probe) {
    if (const std::string why = too_slow(spec, in, s); !why.empty()) {
      state.SkipWithError(why.c_str());
      return;
    }
  }
  const auto op = spec.make(in.full());
  const std::size_t before = rt::kernels_enqueued();
  op->run();
  const std::size_t kernels = rt::kernels_enqueued() - before;
  if (const std::string mismatch = op->mismatch(); !mismatch.empty()) {
    state.SkipWithError(mismatch.c_str());
    return;
  }
  double seconds = 0;
  for (auto _ : state) {
    const double t = op->run();
    seconds += t;
    state.SetIterationTime(t);
  }
  const double bytes = spec.bytes(s);
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * static_cast<double>(state.iterations())));
  const double bandwidth = bytes * static_cast<double>(state.iterations()) / seconds;
  if (spec.name == "copy") copy_bandwidths()[s] = bandwidth;
  state.counters["kernels"] = static_cast<double>(kernels);
  state.counters["copy_ratio"] = spec.name == "copy" ? 1.0 : bandwidth / copy_bandwidth(s);
}

void register_benchmarks() {
  static const std::vector<operation_spec> specs = operation_specs();
  for (const shape s : shapes())
    for (const operation_spec& spec : specs) {
      if (!spec.applies(s)) continue;
      benchmark::RegisterBenchmark((spec.name + "/" + s.name()).c_str(),
                                   [&spec, s](benchmark::State& state) { run_benchmark(state, spec, s); })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
