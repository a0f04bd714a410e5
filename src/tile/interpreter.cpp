#include <tessera/tile/interpreter.hpp>
#include <tessera/tile/shapes.hpp>

#include <algorithm>
#include <cmath>
#include <utility>
#include <variant>

#include <unistd.h>

#include <fmt/format.h>

namespace tessera::tile {

namespace {

// A row scaled to integers: value = (sum a[v] x[v] + c) / d; valid when 0 <= value < bound
// and, for integral rows, d divides the numerator.
struct scaled_row {
  std::vector<std::int64_t> a;
  std::int64_t c = 0;
  std::int64_t d = 1;
  std::int64_t upper = 0;  // bound * d: the numerator must stay below it
  bool integral = true;
  int level = -1;          // the last variable the row depends on; -1: none
};

scaled_row scale(const index_row& row) {
  scaled_row s;
  std::int64_t d = row.constant.denominator();
  for (const auto& c : row.coefficients) d = lcm(d, c.denominator());
  s.d = d;
  for (std::size_t v = 0; v < row.coefficients.size(); ++v) {
    const auto& c = row.coefficients[v];
    s.a.push_back(checked_mul(c.numerator(), d / c.denominator()));
    if (c.numerator() != 0) s.level = static_cast<int>(v);
  }
  s.c = checked_mul(row.constant.numerator(), d / row.constant.denominator());
  s.upper = checked_mul(row.bound, d);
  s.integral = row.integral;
  return s;
}

bool accepts(const scaled_row& r, std::int64_t numerator) {
  if (numerator < 0 || numerator >= r.upper) return false;
  return !r.integral || r.d == 1 || numerator % r.d == 0;
}

struct interval {
  rational lo, hi;
};

/// Closed bounds on a row's value that every valid point satisfies.
interval row_range(const index_row& r) {
  return r.integral ? interval{rational(0), rational(r.bound) - rational(1)} : interval{rational(0), rational(r.bound)};
}

/// Per variable [lo, hi] containing every valid point; empty optional when there is none.
std::optional<std::vector<std::pair<std::int64_t, std::int64_t>>> bounding_box(const index_space& space) {
  const std::size_t n = space.variables;
  const auto rows = space.all_rows();
  for (const auto* r : rows)
    if (r->bound <= 0) return std::nullopt;

  // Rows that form a basis, chosen in order (outputs first: they usually give the tightest box).
  std::vector<std::vector<rational>> echelon;
  std::vector<std::size_t> pivots;
  std::vector<const index_row*> basis;
  for (const auto* r : rows) {
    if (basis.size() == n) break;
    std::vector<rational> v = r->coefficients;
    for (std::size_t k = 0; k < echelon.size(); ++k)
      if (!v[pivots[k]].is_zero()) {
        const rational f = v[pivots[k]] / echelon[k][pivots[k]];
        for (std::size_t j = 0; j < n; ++j) v[j] -= f * echelon[k][j];
      }
    const auto p = std::find_if(v.begin(), v.end(), [](const rational& x) { return !x.is_zero(); });
    if (p == v.end()) continue;
    pivots.push_back(static_cast<std::size_t>(p - v.begin()));
    echelon.push_back(std::move(v));
    basis.push_back(r);
  }
  if (basis.size() != n) throw arithmetic_overflow();  // unbounded: the checker rejects these

  // Invert the basis matrix B (Gauss-Jordan): x = B^-1 (y - c) with y_r in the row's range.
  std::vector<std::vector<rational>> m(n, std::vector<rational>(2 * n));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) m[i][j] = basis[i]->coefficients[j];
    m[i][n + i] = 1;
  }
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t p = col;
    while (m[p][col].is_zero()) ++p;
    std::swap(m[p], m[col]);
    const rational pivot = m[col][col];
    for (auto& v : m[col]) v = v / pivot;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == col || m[i][col].is_zero()) continue;
      const rational f = m[i][col];
      for (std::size_t j = 0; j < 2 * n; ++j) m[i][j] -= f * m[col][j];
    }
  }
  std::vector<interval> box(n);
  for (std::size_t v = 0; v < n; ++v) {
    interval x{rational(0), rational(0)};
    for (std::size_t r = 0; r < n; ++r) {
      const rational f = m[v][n + r];
      if (f.is_zero()) continue;
      const interval y = row_range(*basis[r]);
      const rational a = f * (y.lo - basis[r]->constant), b = f * (y.hi - basis[r]->constant);
      x.lo += std::min(a, b);
      x.hi += std::max(a, b);
    }
    box[v] = {rational(x.lo.ceil()), rational(x.hi.floor())};
    if (box[v].lo > box[v].hi) return std::nullopt;
  }

  // Interval propagation over all rows tightens the box (e.g. a kernel index that the basis
  // only bounds through a difference of two image indices).
  for (int round = 0; round < 32; ++round) {
    bool changed = false;
    for (const auto* r : rows) {
      const interval range = row_range(*r);
      for (std::size_t v = 0; v < n; ++v) {
        const rational a = r->coefficients[v];
        if (a.is_zero()) continue;
        rational other_lo = r->constant, other_hi = r->constant;
        for (std::size_t u = 0; u < n; ++u) {
          const rational b = r->coefficients[u];
          if (u == v || b.is_zero()) continue;
          const rational p = b * box[u].lo, q = b * box[u].hi;
          other_lo += std::min(p, q);
          other_hi += std::max(p, q);
        }
        // a x_v in [range.lo - other_hi, range.hi - other_lo]
        rational lo = (range.lo - other_hi) / a, hi = (range.hi - other_lo) / a;
        if (a.sign() < 0) std::swap(lo, hi);
        const rational new_lo(lo.ceil()), new_hi(hi.floor());
        if (new_lo > box[v].lo) {
          box[v].lo = new_lo;
          changed = true;
        }
        if (new_hi < box[v].hi) {
          box[v].hi = new_hi;
          changed = true;
        }
        if (box[v].lo > box[v].hi) return std::nullopt;
      }
    }
    if (!changed) break;
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const auto& b : box) out.emplace_back(b.lo.numerator(), b.hi.numerator());
  return out;
}

/// Scans the box level by level, testing each row as soon as its last variable is fixed.
/// visit(x, numerators) sees every valid point with the numerators of all rows.
template <typename Visit>
void scan(const index_space& space, Visit&& visit) {
  const auto box = bounding_box(space);
  if (!box) return;
  const auto rows = space.all_rows();
  std::vector<scaled_row> scaled;
  for (const auto* r : rows) scaled.push_back(scale(*r));
  const std::size_t n = space.variables;
  std::vector<std::int64_t> numerators(scaled.size());
  for (std::size_t r = 0; r < scaled.size(); ++r) numerators[r] = scaled[r].c;
  for (std::size_t r = 0; r < scaled.size(); ++r)
    if (scaled[r].level < 0 && !accepts(scaled[r], numerators[r])) return;
  std::vector<std::vector<std::size_t>> uses(n), checks(n);
  for (std::size_t r = 0; r < scaled.size(); ++r) {
    for (std::size_t v = 0; v < n; ++v)
      if (scaled[r].a[v] != 0) uses[v].push_back(r);
    if (scaled[r].level >= 0) checks[scaled[r].level].push_back(r);
  }
  std::vector<std::int64_t> x(n);
  // Row numerators stay within |a| * |x| + |c| of values the box bounds; they cannot overflow
  // for boxes that fit in memory-sized tensors, and the box computation checked the rest.
  auto recurse = [&](auto&& self, std::size_t v) -> void {
    if (v == n) {
      visit(std::span<const std::int64_t>(x), std::span<const std::int64_t>(numerators));
      return;
    }
    const auto [lo, hi] = (*box)[v];
    for (const auto r : uses[v]) numerators[r] += scaled[r].a[v] * lo;
    for (std::int64_t value = lo; value <= hi; ++value) {
      x[v] = value;
      bool ok = true;
      for (const auto r : checks[v])
        if (!accepts(scaled[r], numerators[r])) {
          ok = false;
          break;
        }
      if (ok) self(self, v + 1);
      for (const auto r : uses[v]) numerators[r] += scaled[r].a[v];
    }
    for (const auto r : uses[v]) numerators[r] -= scaled[r].a[v] * (hi + 1);
  };
  recurse(recurse, 0);
}

template <typename T>
T apply_binary(token_kind op, T a, T b) {
  switch (op) {
    case token_kind::plus: return a + b;
    case token_kind::minus: return a - b;
    case token_kind::star: return a * b;
    case token_kind::slash: return a / b;
    case token_kind::equal: return a == b ? T(1) : T(0);
    case token_kind::not_equal: return a != b ? T(1) : T(0);
    case token_kind::less: return a < b ? T(1) : T(0);
    case token_kind::greater: return a > b ? T(1) : T(0);
    case token_kind::less_equal: return a <= b ? T(1) : T(0);
    case token_kind::greater_equal: return a >= b ? T(1) : T(0);
    default: return T(0);
  }
}

template <typename T>
class interpreter {
 public:
  interpreter(const program& p, const std::vector<host_tensor<T>>& inputs) : p_(p), inputs_(inputs) {}

  std::vector<host_tensor<T>> run() {
    std::vector<shape> shapes;
    for (const auto& t : inputs_) {
      if (static_cast<std::int64_t>(t.values.size()) != element_count(t.dims))
        throw argument_error(fmt::format("a host tensor of shape {} holds {} values", to_string(t.dims), t.values.size()));
      shapes.push_back(t.dims);
    }
    b_ = bind_shapes(p_, shapes);
    values_.resize(p_.tensors.size());
    for (std::size_t i = 0; i < p_.inputs.size(); ++i) values_[p_.inputs[i]] = inputs_[i];
    for (const auto& statement : p_.statements) check_fits_in_memory(statement);
    for (std::size_t s = 0; s < p_.statements.size(); ++s) {
      if (const auto* c = std::get_if<contraction>(&p_.statements[s])) run_contraction(*c, *b_.spaces[s]);
      else run_elementwise(std::get<elementwise>(p_.statements[s]));
    }
    std::vector<host_tensor<T>> outs;
    for (const auto id : p_.outputs) outs.push_back(values_[id]);
    return outs;
  }

 private:
  void run_contraction(const contraction& c, const index_space& space) {
    host_tensor<T> out(b_.shapes[c.output]);
    std::vector<char> written(out.values.size(), 0);
    const auto out_strides = row_major_strides(out.dims);
    std::vector<std::vector<std::int64_t>> operand_strides;
    for (const auto& use : c.operands) operand_strides.push_back(row_major_strides(b_.shapes[use.tensor]));
    const auto rows = space.all_rows();
    std::vector<std::int64_t> denominators;
    for (const auto* r : rows) denominators.push_back(scale(*r).d);
    auto offset = [&](std::size_t first_row, const std::vector<std::int64_t>& strides,
                      std::span<const std::int64_t> numerators) {
      std::int64_t o = 0;
      for (std::size_t k = 0; k < strides.size(); ++k) {
        const std::int64_t d = denominators[first_row + k];
        o += strides[k] * (d == 1 ? numerators[first_row + k] : numerators[first_row + k] / d);
      }
      return o;
    };
    try {
      scan(space, [&](std::span<const std::int64_t>, std::span<const std::int64_t> numerators) {
        std::size_t row = 0;
        const std::int64_t o = offset(row, out_strides, numerators);
        row += out_strides.size();
        T value{};
        for (std::size_t k = 0; k < c.operands.size(); ++k) {
          const T operand = values_[c.operands[k].tensor].values[offset(row, operand_strides[k], numerators)];
          row += operand_strides[k].size();
          if (k == 0) value = operand;
          else value = c.comb == combination::add ? value + operand : value * operand;
        }
        T& target = out.values[o];
        if (!written[o]) {
          target = value;
          written[o] = 1;
          return;
        }
        switch (c.agg) {
          case aggregation::sum: target += value; break;
          case aggregation::product: target *= value; break;
          case aggregation::max: target = std::fmax(target, value); break;
          case aggregation::min: target = std::fmin(target, value); break;
          case aggregation::assign: target = value; break;
        }
      });
    } catch (const arithmetic_overflow&) {
      throw shape_error(c.position, "the index arithmetic of this contraction overflows 64-bit integers");
    }
    for (std::size_t i = 0; i < out.values.size(); ++i)
      if (!written[i]) out.values[i] = T(0);
    values_[c.output] = std::move(out);
  }

  host_tensor<T> broadcast_apply(const std::vector<host_tensor<T>>& args, const shape& out_shape,
                                 const std::function<T(const T*)>& f) {
    host_tensor<T> out(out_shape);
    const std::size_t rank = out_shape.size();
    std::vector<std::vector<std::int64_t>> strides;  // per argument, aligned to out's axes; 0 where broadcast
    for (const auto& a : args) {
      std::vector<std::int64_t> s(rank, 0);
      const auto own = row_major_strides(a.dims);
      for (std::size_t k = 0; k < a.dims.size(); ++k)
        if (a.dims[k] != 1) s[rank - a.dims.size() + k] = own[k];
      strides.push_back(std::move(s));
    }
    std::vector<std::int64_t> index(rank, 0);
    std::vector<T> operands(args.size());
    for (std::int64_t e = 0; e < out.size(); ++e) {
      for (std::size_t a = 0; a < args.size(); ++a) {
        std::int64_t o = 0;
        for (std::size_t k = 0; k < rank; ++k) o += strides[a][k] * index[k];
        operands[a] = args[a].values[o];
      }
      out.values[e] = f(operands.data());
      for (std::size_t k = rank; k-- > 0;) {
        if (++index[k] < out_shape[k]) break;
        index[k] = 0;
      }
    }
    return out;
  }

  shape broadcast_shape(const std::vector<host_tensor<T>>& args) {
    std::size_t rank = 0;
    for (const auto& a : args) rank = std::max(rank, a.dims.size());
    shape s(rank, 1);
    for (const auto& a : args)
      for (std::size_t k = 0; k < a.dims.size(); ++k)
        if (a.dims[k] != 1) s[rank - a.dims.size() + k] = a.dims[k];
    return s;
  }

  host_tensor<T> evaluate(const value_expression& v) {
    switch (v.what) {
      case value_expression::kind::literal: return host_tensor<T>({}, {static_cast<T>(v.literal)});
      case value_expression::kind::dimension: return host_tensor<T>({}, {static_cast<T>(b_.dimensions[v.id])});
      case value_expression::kind::tensor: return values_[v.id];
      default: break;
    }
    std::vector<host_tensor<T>> args;
    for (const auto& operand : v.operands) args.push_back(evaluate(operand));
    const shape s = broadcast_shape(args);  // bind_shapes() has checked that the shapes broadcast
    switch (v.what) {
      case value_expression::kind::negate: return broadcast_apply(args, s, [](const T* x) { return T(-x[0]); });
      case value_expression::kind::binary:
        return broadcast_apply(args, s, [op = v.op](const T* x) { return apply_binary(op, x[0], x[1]); });
      case value_expression::kind::select:
        return broadcast_apply(args, s, [](const T* x) { return x[0] != T(0) ? x[1] : x[2]; });
      default: {
        const auto* f = v.function;
        return broadcast_apply(args, s, [f](const T* x) {
          return static_cast<T>(f->host(static_cast<double>(x[0]), f->arity > 1 ? static_cast<double>(x[1]) : 0.0));
        });
      }
    }
  }

  // A result larger than the machine's memory is a located error before anything runs, not
  // std::bad_alloc (or an abort under a sanitizer's allocator) half-way through. Temporaries of
  // an elementwise statement are no larger than its result.
  void check_fits_in_memory(const statement& st) const {
    const auto [output, position] = std::visit([](const auto& x) { return std::pair(x.output, x.position); }, st);
    const std::int64_t count = element_count(b_.shapes[output]);
    static const std::uint64_t memory =
        static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGE_SIZE));
    if (static_cast<std::uint64_t>(count) > memory / sizeof(T))
      throw shape_error(position, fmt::format("'{}' has shape {}: {} values of {} bytes, more than the {} bytes of "
                                              "this machine's memory",
                                              p_.tensors[output].name, to_string(b_.shapes[output]), count, sizeof(T),
                                              memory));
  }

  void run_elementwise(const elementwise& e) {
    host_tensor<T> value = evaluate(e.value);
    // A scalar literal can stand for a larger shape only through broadcasting, which bind()
    // already applied; the value's shape is the statement's shape.
    values_[e.output] = std::move(value);
  }

  const program& p_;
  const std::vector<host_tensor<T>>& inputs_;
  binding b_;
  std::vector<host_tensor<T>> values_;
};

}  // namespace

void for_each_valid_point(const index_space& space, const std::function<void(std::span<const std::int64_t>)>& visit) {
  scan(space, [&](std::span<const std::int64_t> x, std::span<const std::int64_t>) { visit(x); });
}

template <typename T>
std::vector<host_tensor<T>> interpret(const program& p, const std::vector<host_tensor<T>>& inputs) {
  return interpreter<T>(p, inputs).run();
}

template std::vector<host_tensor<float>> interpret(const program&, const std::vector<host_tensor<float>>&);
template std::vector<host_tensor<double>> interpret(const program&, const std::vector<host_tensor<double>>&);

}  // namespace tessera::tile
