#include <tessera/tile/loop_nest.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>

namespace tessera::tile {

bool integer_affine::uses_loops() const {
  return std::any_of(loops.begin(), loops.end(), [](std::int64_t a) { return a != 0; });
}
bool integer_affine::uses_parameters() const {
  return std::any_of(parameters.begin(), parameters.end(), [](std::int64_t a) { return a != 0; });
}

namespace {

// A linear form over "slots" (integer unknowns being eliminated) and parameters.
struct linear {
  std::vector<std::int64_t> slots;
  std::vector<std::int64_t> parameters;
  std::int64_t constant = 0;

  std::int64_t parameter(std::size_t j) const { return j < parameters.size() ? parameters[j] : 0; }
  void add_parameter(std::size_t j, std::int64_t a) {
    if (parameters.size() <= j) parameters.resize(j + 1, 0);
    parameters[j] = checked_add(parameters[j], a);
  }
};

linear scaled(const linear& a, std::int64_t f) {
  linear r = a;
  for (auto& v : r.slots) v = checked_mul(v, f);
  for (auto& v : r.parameters) v = checked_mul(v, f);
  r.constant = checked_mul(r.constant, f);
  return r;
}

void add_to(linear& target, const linear& a, std::int64_t f) {
  if (target.slots.size() < a.slots.size()) target.slots.resize(a.slots.size(), 0);
  for (std::size_t i = 0; i < a.slots.size(); ++i) target.slots[i] = checked_add(target.slots[i], checked_mul(a.slots[i], f));
  for (std::size_t j = 0; j < a.parameters.size(); ++j) target.add_parameter(j, checked_mul(a.parameters[j], f));
  target.constant = checked_add(target.constant, checked_mul(a.constant, f));
}

/// Divides by the gcd of the coefficients, rounding the constant down: for integer unknowns,
/// `g*e + c >= 0` is equivalent to `e + floor(c/g) >= 0`. Returns false if the inequality
/// has no unknowns (then the caller decides from the constant).
bool normalize_inequality(linear& a) {
  std::int64_t g = 0;
  for (const auto v : a.slots) g = gcd(g, v);
  for (const auto v : a.parameters) g = gcd(g, v);
  if (g == 0) return false;
  if (g > 1) {
    for (auto& v : a.slots) v /= g;
    for (auto& v : a.parameters) v /= g;
    a.constant = floor_div(a.constant, g);
  }
  while (!a.parameters.empty() && a.parameters.back() == 0) a.parameters.pop_back();
  return true;
}

constexpr std::size_t max_inequalities = 4096;

class deriver {
 public:
  deriver(const index_space& space, const std::vector<std::string>& names) : space_(space), names_(names) {}

  loop_nest run() {
    const std::size_t n = space_.variables;
    rows_ = space_.all_rows();
    nest_.outputs = space_.output_rows.size();
    nest_.parameters = nest_.outputs;
    for (const auto& r : space_.output_rows) nest_.parameter_ranges.emplace_back(0, r.bound - 1);

    // Unknowns: the index variables, then one per integral row with fractional coefficients.
    std::vector<std::size_t> auxiliary_of_row(rows_.size(), SIZE_MAX);
    std::size_t unknowns = n;
    for (std::size_t r = nest_.outputs; r < rows_.size(); ++r)
      if (rows_[r]->integral && !is_integer_row(*rows_[r])) auxiliary_of_row[r] = unknowns++;
    slot_count_ = unknowns;
    alive_.assign(unknowns, true);
    for (std::size_t u = 0; u < unknowns; ++u) {
      linear e;
      e.slots.assign(unknowns, 0);
      e.slots[u] = 1;
      expressions_.push_back(e);
      slot_names_.push_back(u < n ? names_[u] : fmt::format("r{}", u - n + 1));
    }

    // Equalities: each output row equals its coordinate; each auxiliary equals its row.
    std::vector<linear> equations;
    for (std::size_t d = 0; d < nest_.outputs; ++d) {
      linear e = row_times_denominator(*rows_[d]);
      e.add_parameter(d, -denominator(*rows_[d]));
      equations.push_back(e);
    }
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      if (auxiliary_of_row[r] == SIZE_MAX) continue;
      linear e = row_times_denominator(*rows_[r]);
      e.slots[auxiliary_of_row[r]] = checked_sub(0, denominator(*rows_[r]));
      equations.push_back(e);
    }
    for (std::size_t i = 0; i < equations.size() && !nest_.empty; ++i) {
      // Earlier eliminations have changed the unknowns; rewrite the equation first.
      eliminate(equations, i);
    }
    if (nest_.empty) return std::move(nest_);

    // Values of rows as forms over the remaining slots.
    std::vector<std::optional<linear>> values(rows_.size());
    std::vector<linear> inequalities;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      const index_row& row = *rows_[r];
      if (r < nest_.outputs) {
        linear coordinate;  // an output row equals its coordinate, by the equalities above
        coordinate.slots.assign(slot_count_, 0);
        coordinate.add_parameter(r, 1);
        values[r] = coordinate;
      } else if (auxiliary_of_row[r] != SIZE_MAX) {
        values[r] = expressions_[auxiliary_of_row[r]];
      } else if (row.integral) {
        values[r] = substitute_row(row, 1);
      }
      if (r < nest_.outputs) continue;  // the launch range keeps outputs in range
      if (values[r]) {
        linear low = *values[r];
        linear high = scaled(*values[r], -1);
        high.constant = checked_add(high.constant, checked_sub(row.bound, 1));
        inequalities.push_back(low);
        inequalities.push_back(high);
      } else {
        // 0 <= value < bound with a rational value: scale by its denominator D; D * value is
        // an integer, so D * value < D * bound is D * bound - 1 - D * value >= 0.
        const std::int64_t d = denominator(row);
        linear low = substitute_row(row, d);
        linear high = scaled(low, -1);
        high.constant = checked_add(high.constant, checked_sub(checked_mul(row.bound, d), 1));
        inequalities.push_back(low);
        inequalities.push_back(high);
      }
    }
    for (std::size_t s = 0; s < slot_count_; ++s)
      if (alive_[s]) {
        level_of_slot_[s] = levels_.size();
        levels_.push_back(s);
        nest_.loop_names.push_back(slot_names_[s]);
      }
    fourier_motzkin(inequalities);
    if (nest_.empty) return std::move(nest_);

    for (std::size_t r = 0; r < rows_.size(); ++r)
      nest_.row_values.push_back(values[r] ? std::optional<integer_affine>(to_affine(*values[r])) : std::nullopt);
    prune();
    return std::move(nest_);
  }

 private:
  static bool is_integer_row(const index_row& r) {
    if (!r.constant.is_integer()) return false;
    return std::all_of(r.coefficients.begin(), r.coefficients.end(), [](const rational& c) { return c.is_integer(); });
  }
  static std::int64_t denominator(const index_row& r) {
    std::int64_t d = r.constant.denominator();
    for (const auto& c : r.coefficients) d = lcm(d, c.denominator());
    return d;
  }
  /// d * (coefficients . x + constant) over the slots, with x replaced by its expression.
  linear row_times_denominator(const index_row& r) { return substitute_row(r, denominator(r)); }
  linear substitute_row(const index_row& r, std::int64_t d) {
    linear out;
    out.slots.assign(slot_count_, 0);
    const rational scaled_constant = r.constant * rational(d);
    out.constant = scaled_constant.numerator();
    for (std::size_t v = 0; v < r.coefficients.size(); ++v) {
      const rational a = r.coefficients[v] * rational(d);
      if (!a.is_zero()) add_to(out, expressions_[v], a.numerator());
    }
    return out;
  }

  /// slot := value (a form without that slot), everywhere.
  void substitute(std::size_t slot, const linear& value, std::vector<linear>& equations) {
    auto apply = [&](linear& l) {
      const std::int64_t a = l.slots[slot];
      if (a == 0) return;
      l.slots[slot] = 0;
      add_to(l, value, a);
    };
    for (auto& e : expressions_) apply(e);
    for (auto& e : equations) apply(e);
    alive_[slot] = false;
  }

  std::size_t new_parameter(std::int64_t lo, std::int64_t hi) {
    nest_.parameter_ranges.emplace_back(lo, hi);
    return nest_.parameters++;
  }

  std::pair<std::int64_t, std::int64_t> parameter_range(const linear& l) const {
    __int128 lo = l.constant, hi = l.constant;
    for (std::size_t j = 0; j < l.parameters.size(); ++j) {
      const __int128 a = l.parameters[j];
      const __int128 p = a * nest_.parameter_ranges[j].first, q = a * nest_.parameter_ranges[j].second;
      lo += std::min(p, q);
      hi += std::max(p, q);
    }
    const __int128 limit = (__int128(1) << 62);
    if (lo < -limit || hi > limit) throw arithmetic_overflow();
    return {static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)};
  }

  // Integer elimination of one equality (Omega test style): unimodular column operations until
  // an unknown has coefficient +-1, or only one unknown is left (then an exact division).
  void eliminate(std::vector<linear>& equations, std::size_t index) {
    for (;;) {
      linear& eq = equations[index];
      std::size_t best = SIZE_MAX;
      std::size_t count = 0;
      for (std::size_t s = 0; s < slot_count_; ++s) {
        if (eq.slots[s] == 0) continue;
        ++count;
        if (best == SIZE_MAX || std::abs(eq.slots[s]) < std::abs(eq.slots[best])) best = s;
      }
      if (count == 0) {
        linear rest = eq;
        if (!normalize_inequality(rest)) {
          if (eq.constant != 0) nest_.empty = true;
          return;
        }
        guard_step g;
        g.what = guard_step::kind::zero;
        g.value = to_affine(eq);
        nest_.steps.push_back(g);
        return;
      }
      const std::int64_t c = eq.slots[best];
      if (c == 1 || c == -1) {
        linear value = eq;
        value.slots[best] = 0;
        value = scaled(value, -c);  // slot = -(rest) / c = -c * rest for c = +-1
        substitute(best, value, equations);
        return;
      }
      if (count == 1) {
        // c * slot + rest = 0: slot = (-rest) / c, with rest over parameters only.
        linear numerator = eq;
        numerator.slots[best] = 0;
        numerator = scaled(numerator, c > 0 ? -1 : 1);
        const std::int64_t divisor = std::abs(c);
        bool divides_parameters = true;
        for (const auto a : numerator.parameters)
          if (a % divisor != 0) divides_parameters = false;
        linear value;
        value.slots.assign(slot_count_, 0);
        if (divides_parameters) {
          if (numerator.constant % divisor != 0) {
            nest_.empty = true;  // e.g. 2 i = 2 o + 1: never an integer
            return;
          }
          for (std::size_t j = 0; j < numerator.parameters.size(); ++j)
            value.add_parameter(j, numerator.parameters[j] / divisor);
          value.constant = numerator.constant / divisor;
        } else {
          guard_step check;
          check.what = guard_step::kind::divisible;
          check.value = to_affine(numerator);
          check.divisor = divisor;
          nest_.steps.push_back(check);
          const auto [lo, hi] = parameter_range(numerator);
          const std::size_t p = new_parameter(ceil_div(lo, divisor), floor_div(hi, divisor));
          guard_step define = check;
          define.what = guard_step::kind::define;
          define.defines = p;
          nest_.steps.push_back(define);
          value.add_parameter(p, 1);
        }
        substitute(best, value, equations);
        return;
      }
      // slot_best := slot_best - sum q_s slot_s leaves the equation's other coefficients
      // as remainders modulo c, so the smallest coefficient shrinks every round.
      std::vector<std::int64_t> q(slot_count_, 0);
      for (std::size_t s = 0; s < slot_count_; ++s)
        if (s != best && eq.slots[s] != 0) q[s] = floor_div(eq.slots[s], c);
      auto apply = [&](linear& l) {
        const std::int64_t a = l.slots[best];
        if (a == 0) return;
        for (std::size_t s = 0; s < slot_count_; ++s)
          if (q[s] != 0) l.slots[s] = checked_sub(l.slots[s], checked_mul(a, q[s]));
      };
      for (auto& e : expressions_) apply(e);
      for (auto& e : equations) apply(e);
    }
  }

  integer_affine to_affine(const linear& l) const {
    integer_affine a;
    a.loops.assign(levels_.size(), 0);
    for (std::size_t s = 0; s < l.slots.size(); ++s)
      if (l.slots[s] != 0) a.loops[level_of_slot_.at(s)] = l.slots[s];
    a.parameters.assign(nest_.parameters, 0);
    for (std::size_t j = 0; j < l.parameters.size(); ++j) a.parameters[j] = l.parameters[j];
    a.constant = l.constant;
    return a;
  }

  /// Inequalities without duplicates: of two with the same coefficients, the tighter one
  /// (smaller constant) implies the other.
  class inequality_set {
   public:
    void add(linear l) {
      auto key = std::make_pair(l.slots, l.parameters);
      const auto [it, fresh] = index_.emplace(std::move(key), items_.size());
      if (fresh) items_.push_back(std::move(l));
      else items_[it->second].constant = std::min(items_[it->second].constant, l.constant);
    }
    std::size_t size() const { return items_.size(); }
    std::vector<linear>& items() { return items_; }

   private:
    std::vector<linear> items_;
    std::map<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>, std::size_t> index_;
  };

  [[noreturn]] static void too_many() {
    // Fourier-Motzkin can square the number of inequalities per variable; refuse rather
    // than hang on contractions no realistic program writes.
    throw lowering_error({}, fmt::format("deriving exact loop bounds needs more than {} inequalities; split the "
                                         "contraction or add constraints",
                                         max_inequalities));
  }

  void fourier_motzkin(std::vector<linear> inequalities) {
    inequality_set initial;
    for (auto& l : inequalities) {
      l.slots.resize(slot_count_, 0);
      if (!normalize_inequality(l)) {
        if (l.constant < 0) nest_.empty = true;
        continue;
      }
      initial.add(std::move(l));
    }
    std::vector<linear> current = std::move(initial.items());
    if (nest_.empty) return;
    nest_.loops.resize(levels_.size());
    for (std::size_t j = levels_.size(); j-- > 0;) {
      const std::size_t slot = levels_[j];
      std::vector<linear> lower, upper;
      inequality_set rest;
      for (auto& l : current) {
        if (l.slots[slot] > 0) lower.push_back(l);
        else if (l.slots[slot] < 0) upper.push_back(l);
        else rest.add(l);
      }
      if (lower.empty() || upper.empty())
        throw shape_error({}, fmt::format("internal: loop '{}' of a contraction has no {} bound", slot_names_[slot],
                                          lower.empty() ? "lower" : "upper"));
      loop_level& level = nest_.loops[j];
      for (const auto& l : lower) {
        // a y + r >= 0  =>  y >= ceil(-r / a)
        linear r = l;
        const std::int64_t a = r.slots[slot];
        r.slots[slot] = 0;
        level.lower.push_back({to_affine(scaled(r, -1)), a});
      }
      for (const auto& u : upper) {
        // -b y + r >= 0  =>  y <= floor(r / b)
        linear r = u;
        const std::int64_t b = -r.slots[slot];
        r.slots[slot] = 0;
        level.upper.push_back({to_affine(r), b});
      }
      if (lower.size() * upper.size() > max_inequalities * max_inequalities) too_many();
      for (const auto& l : lower)
        for (const auto& u : upper) {
          linear combined = scaled(l, -u.slots[slot]);
          add_to(combined, u, l.slots[slot]);
          combined.slots[slot] = 0;
          if (!normalize_inequality(combined)) {
            if (combined.constant < 0) {
              nest_.empty = true;
              return;
            }
            continue;
          }
          rest.add(std::move(combined));
          if (rest.size() > max_inequalities) too_many();
        }
      current = std::move(rest.items());
    }
    for (const auto& g : current) {
      guard_step step;
      step.what = guard_step::kind::non_negative;
      step.value = to_affine(g);
      nest_.steps.push_back(step);
    }
  }

  // ---- pruning with the ranges of parameters and outer loops ------------------------
  struct range {
    __int128 lo, hi;
  };
  range evaluate(const integer_affine& a, const std::vector<range>& loop_ranges) const {
    range r{a.constant, a.constant};
    for (std::size_t j = 0; j < a.parameters.size(); ++j) {
      if (a.parameters[j] == 0) continue;
      const __int128 p = __int128(a.parameters[j]) * nest_.parameter_ranges[j].first;
      const __int128 q = __int128(a.parameters[j]) * nest_.parameter_ranges[j].second;
      r.lo += std::min(p, q);
      r.hi += std::max(p, q);
    }
    for (std::size_t i = 0; i < a.loops.size(); ++i) {
      if (a.loops[i] == 0) continue;
      const __int128 p = __int128(a.loops[i]) * loop_ranges[i].lo, q = __int128(a.loops[i]) * loop_ranges[i].hi;
      r.lo += std::min(p, q);
      r.hi += std::max(p, q);
    }
    return r;
  }
  static __int128 floor128(__int128 a, __int128 b) {
    __int128 q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
  static __int128 ceil128(__int128 a, __int128 b) { return -floor128(-a, b); }

  /// b dominates a (as lower bounds: b >= a everywhere; as upper: b <= a) when the
  /// difference of the rational bounds has the right sign over the whole range.
  bool dominates(const loop_bound& b, const loop_bound& a, bool lower, const std::vector<range>& ranges) const {
    integer_affine diff;  // b.num * a.div - a.num * b.div
    const std::size_t loops = std::max(a.numerator.loops.size(), b.numerator.loops.size());
    diff.loops.assign(loops, 0);
    diff.parameters.assign(nest_.parameters, 0);
    try {
      for (std::size_t i = 0; i < loops; ++i)
        diff.loops[i] = checked_sub(checked_mul(i < b.numerator.loops.size() ? b.numerator.loops[i] : 0, a.divisor),
                                    checked_mul(i < a.numerator.loops.size() ? a.numerator.loops[i] : 0, b.divisor));
      for (std::size_t j = 0; j < nest_.parameters; ++j)
        diff.parameters[j] =
            checked_sub(checked_mul(j < b.numerator.parameters.size() ? b.numerator.parameters[j] : 0, a.divisor),
                        checked_mul(j < a.numerator.parameters.size() ? a.numerator.parameters[j] : 0, b.divisor));
      diff.constant = checked_sub(checked_mul(b.numerator.constant, a.divisor), checked_mul(a.numerator.constant, b.divisor));
    } catch (const arithmetic_overflow&) {
      return false;
    }
    const range r = evaluate(diff, ranges);
    return lower ? r.lo >= 0 : r.hi <= 0;
  }

  void prune_bounds(std::vector<loop_bound>& bounds, bool lower, const std::vector<range>& ranges) const {
    std::vector<bool> keep(bounds.size(), true);
    for (std::size_t a = 0; a < bounds.size(); ++a)
      for (std::size_t b = 0; b < bounds.size() && keep[a]; ++b) {
        if (a == b || !keep[b]) continue;
        // Among equal bounds keep the first; otherwise drop a when b dominates it.
        if (dominates(bounds[b], bounds[a], lower, ranges) && (b < a || !dominates(bounds[a], bounds[b], lower, ranges)))
          keep[a] = false;
      }
    std::vector<loop_bound> kept;
    for (std::size_t i = 0; i < bounds.size(); ++i)
      if (keep[i]) kept.push_back(std::move(bounds[i]));
    bounds = std::move(kept);
  }

  void prune() {
    std::vector<range> loop_ranges;
    std::vector<guard_step> steps;
    for (auto& step : nest_.steps) {
      if (step.what == guard_step::kind::non_negative) {
        const range r = evaluate(step.value, loop_ranges);
        if (r.lo >= 0) continue;  // always holds
        if (r.hi < 0) {
          nest_.empty = true;
          return;
        }
      }
      if (step.what == guard_step::kind::zero) {
        const range r = evaluate(step.value, loop_ranges);
        if (r.lo == 0 && r.hi == 0) continue;
        if (r.lo > 0 || r.hi < 0) {
          nest_.empty = true;
          return;
        }
      }
      steps.push_back(std::move(step));
    }
    nest_.steps = std::move(steps);
    for (auto& level : nest_.loops) {
      prune_bounds(level.lower, true, loop_ranges);
      prune_bounds(level.upper, false, loop_ranges);
      __int128 lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
      for (const auto& b : level.lower) lo = std::max(lo, ceil128(evaluate(b.numerator, loop_ranges).lo, b.divisor));
      for (const auto& b : level.upper) hi = std::min(hi, floor128(evaluate(b.numerator, loop_ranges).hi, b.divisor));
      if (lo > hi) {
        nest_.empty = true;
        return;
      }
      loop_ranges.push_back({lo, hi});
      nest_.loop_ranges.emplace_back(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
    }
  }

  const index_space& space_;
  const std::vector<std::string>& names_;
  std::vector<const index_row*> rows_;
  std::size_t slot_count_ = 0;
  std::vector<bool> alive_;
  std::vector<linear> expressions_;  // per unknown: its value over slots and parameters
  std::vector<std::string> slot_names_;
  std::vector<std::size_t> levels_;  // slot of each loop, outermost first
  std::map<std::size_t, std::size_t> level_of_slot_;
  loop_nest nest_;
};

std::string affine_text(const integer_affine& a, const std::vector<std::string>& loop_names) {
  std::string out;
  auto term = [&](std::int64_t c, const std::string& name) {
    if (c == 0) return;
    if (!out.empty()) out += c > 0 ? " + " : " - ";
    else if (c < 0) out += "-";
    const std::int64_t m = c < 0 ? -c : c;
    out += m == 1 ? name : fmt::format("{}*{}", m, name);
  };
  for (std::size_t i = 0; i < a.loops.size(); ++i) term(a.loops[i], loop_names[i]);
  for (std::size_t j = 0; j < a.parameters.size(); ++j) term(a.parameters[j], fmt::format("p{}", j));
  if (a.constant != 0 || out.empty()) {
    if (out.empty()) out = fmt::format("{}", a.constant);
    else out += fmt::format(" {} {}", a.constant > 0 ? "+" : "-", a.constant > 0 ? a.constant : -a.constant);
  }
  return out;
}

}  // namespace

loop_nest derive_loop_nest(const index_space& space, const std::vector<std::string>& names) {
  try {
    return deriver(space, names).run();
  } catch (const arithmetic_overflow&) {
    throw shape_error({}, "the index arithmetic of a contraction overflows 64-bit integers with these shapes");
  }
}

std::string describe(const loop_nest& nest) {
  if (nest.empty) return "empty\n";
  std::string out;
  for (const auto& s : nest.steps) {
    const std::string v = affine_text(s.value, nest.loop_names);
    switch (s.what) {
      case guard_step::kind::non_negative: out += fmt::format("require {} >= 0\n", v); break;
      case guard_step::kind::zero: out += fmt::format("require {} == 0\n", v); break;
      case guard_step::kind::divisible: out += fmt::format("require ({}) % {} == 0\n", v, s.divisor); break;
      case guard_step::kind::define: out += fmt::format("p{} = ({}) / {}\n", s.defines, v, s.divisor); break;
    }
  }
  for (std::size_t j = 0; j < nest.loops.size(); ++j) {
    std::vector<std::string> lo, hi;
    for (const auto& b : nest.loops[j].lower)
      lo.push_back(b.divisor == 1 ? affine_text(b.numerator, nest.loop_names)
                                  : fmt::format("ceil(({}) / {})", affine_text(b.numerator, nest.loop_names), b.divisor));
    for (const auto& b : nest.loops[j].upper)
      hi.push_back(b.divisor == 1 ? affine_text(b.numerator, nest.loop_names)
                                  : fmt::format("floor(({}) / {})", affine_text(b.numerator, nest.loop_names), b.divisor));
    out += fmt::format("{}for {} in [max({}), min({})]\n", std::string(2 * j, ' '), nest.loop_names[j],
                       fmt::join(lo, ", "), fmt::join(hi, ", "));
  }
  return out;
}

}  // namespace tessera::tile
