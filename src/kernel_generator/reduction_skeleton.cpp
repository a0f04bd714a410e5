// The reduction skeleton's kernels (reduction_skeleton.hpp): their source generators and launches,
// compiled once for every assignment type through assignment_code.
#include <tessera/kernel_generator/reduction_skeleton.hpp>
#include <tessera/runtime/workspace.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace tessera::kernel_generator::detail {

namespace {

/// Independent accumulators per lane.
constexpr int reduction_unroll = 4;

/// The names a reduction kernel's code uses for its result's (i, j), its lane and the like.
struct reduction_names {
  std::string out;      // the result's index along its vector: i (rowwise) or j
  std::string outputs;  // how many results: rows or cols
  std::string lane, lanes, slot;
};

/// `fixed`: the work-group size the kernel requires, declared as constants (NVIDIA's compiler
/// does not fold get_local_size under reqd_work_group_size; with constants it folds the held
/// elements' offsets and unrolls the trees: 65536 x 1024 softmax by rows on an H200 0.38x ->
/// 0.49x the copy).
reduction_names declare_indices(codegen::kernel_builder& b, bool rowwise, bool finishing,
                                const fused_levels_plan* fixed = nullptr) {
  const auto local_size = [&](int d) {
    return fixed == nullptr ? "get_local_size(" + std::to_string(d) + ")"
                            : std::to_string(d == 0 ? fixed->local0 : fixed->local1);
  };
  if (finishing) {
    // Results along the first dimension, the lanes sharing each result's parts along the second.
    b.declare("const int", rowwise ? "i" : "j", "get_global_id(0)");
    b.declare("const int", rowwise ? "j" : "i", "0");
    b.declare("const int", "l0", "get_local_id(0)");
    b.declare("const int", "l1", "get_local_id(1)");
    b.declare("const int", "L0", "get_local_size(0)");
    b.declare("const int", "L1", "get_local_size(1)");
    return {rowwise ? "i" : "j", rowwise ? "rows" : "cols", "l1", "L1", "l1 * L0 + l0"};
  }
  b.declare("const int", "l0", "get_local_id(0)");
  b.declare("const int", "l1", "get_local_id(1)");
  b.declare("const int", "L0", local_size(0));
  b.declare("const int", "L1", local_size(1));
  if (rowwise) {
    b.declare("const int", "i", "get_global_id(0)");
    b.declare("const int", "j", "0");
    b.declare("const int", "part", "get_group_id(1)");
  } else {
    b.declare("const int", "i", "0");
    b.declare("const int", "j", "(get_group_id(1) + get_num_groups(1) * get_group_id(2)) * L1 + l1");
    b.declare("const int", "part", "get_group_id(0)");
  }
  return {rowwise ? "i" : "j", rowwise ? "rows" : "cols", rowwise ? "l1" : "l0", rowwise ? "L1" : "L0",
          "l1 * L0 + l0"};
}

/// The name of accumulator acc's Kahan compensation: acc_c, or for an element of an array of
/// accumulators (`acc1[u]`) the element of the compensations' array (`acc1_c[u]`).
std::string compensation_of(const std::string& acc) {
  const auto bracket = acc.find('[');
  return bracket == std::string::npos ? acc + "_c" : acc.substr(0, bracket) + "_c" + acc.substr(bracket);
}

/// acc (with its compensation, compensation_of(acc), when compensated) += value, or
/// acc = combine(acc, value).
void emit_accumulate(codegen::kernel_builder& b, const reduction_site& site, const std::string& acc,
                            const std::string& value) {
  const std::string acc_c = compensation_of(acc);
  if (site.compensated) {
    // Kahan: acc_c carries the low-order bits the previous addition lost.
    const std::string y = b.declare_fresh(site.type, value + " - " + acc_c, "y");
    const std::string t = b.declare_fresh(site.type, acc + " + " + y, "t");
    b.assign(acc_c, "(" + t + " - " + acc + ") - " + y);
    b.assign(acc, t);
  } else {
    b.assign(acc, site.combine(acc, value));
  }
}

/// A step of a reduction pass: terms[u] added to acc[u] (emit_accumulate), or the whole step to
/// acc[0] where the site takes steps (accumulate_step).
void emit_step(codegen::kernel_builder& b, const reduction_site& site, const std::vector<std::string>& acc,
               const std::vector<std::string>& terms) {
  if (site.accumulate_step) {
    site.accumulate_step(b, acc[0], terms);
    return;
  }
  for (std::size_t u = 0; u < terms.size(); ++u) emit_accumulate(b, site, acc[u], terms[u]);
}

/// Generates the rest of every expression on the roots' finished values (red[r]) at (i, j)
/// and stores them: the one place the skeleton writes results.
void emit_finished_results(kernel_context& kc, const assignment_code& code,
                           const std::vector<const reduction_site*>& roots, const std::vector<std::string>& red) {
  for (std::size_t r = 0; r < roots.size(); ++r) {
    if (roots[r]->remember_finished) roots[r]->remember_finished(kc, red[r], "i", "j");
    else kc.remember(roots[r]->node, "i", "j", red[r]);
  }
  code.store(kc, code.values_at(kc, "i", "j"), "i", "j");
}

/// The tree over a work-group's lanes: each lane's value in scratch[slot] (partner: the slot
/// of the lane s further), lane 0 ending with the combination of all, in a fixed order.
void emit_lane_tree(kernel_context& kc, const std::vector<const reduction_site*>& roots,
                           const std::vector<std::string>& scratch, const reduction_names& n,
                           const std::string& partner) {
  auto& b = kc.builder();
  kc.open_scope("for (int s = " + n.lanes + " >> 1; s > 0; s >>= 1)");
  b.statement("barrier(CLK_LOCAL_MEM_FENCE)");
  kc.open_scope("if (" + n.lane + " < s)");
  for (std::size_t r = 0; r < roots.size(); ++r)
    b.assign(scratch[r] + "[" + n.slot + "]",
             roots[r]->combine(scratch[r] + "[" + n.slot + "]", scratch[r] + "[" + partner + "]"));
  kc.close_scope();
  kc.close_scope();
}

/// The parameters the reduction kernels add to the assignment's, in the order
/// launch_reduction_assignment sets them: parts (the pass: part_length, lane_chunk, lane_span,
/// lane_step), then per root its partial results (read-only in the finishing pass) and its local
/// scratch. Returns the names of the partials and of the scratch arrays.
std::pair<std::vector<std::string>, std::vector<std::string>> declare_reduction_parameters(
    codegen::kernel_builder& b, const std::vector<const reduction_site*>& roots, bool finishing) {
  for (const reduction_site* root : roots)
    if (root->add_helpers) root->add_helpers(b);
  b.add_scalar_parameter("int", "parts");
  if (!finishing)
    for (const char* name : {"part_length", "lane_chunk", "lane_span", "lane_step"}) b.add_scalar_parameter("int", name);
  std::vector<std::string> partials, scratch;
  for (std::size_t r = 0; r < roots.size(); ++r) {
    partials.push_back(b.add_pointer_parameter(roots[r]->type, "partials" + std::to_string(r), finishing));
    scratch.push_back(b.add_pointer_parameter(roots[r]->type, "scratch" + std::to_string(r), false,
                                              codegen::address_space::local));
  }
  return {std::move(partials), std::move(scratch)};
}

/// A fused-levels kernel's local scratch, one parameter per level (after the assignment's).
std::vector<std::string> declare_level_scratch(codegen::kernel_builder& b, const std::vector<const reduction_site*>& levels) {
  std::vector<std::string> scratch;
  for (std::size_t l = 0; l < levels.size(); ++l)
    scratch.push_back(b.add_pointer_parameter(levels[l]->type, "scratch" + std::to_string(l), false,
                                              codegen::address_space::local));
  return scratch;
}

/// `count` accumulators of site at its identity (with their compensations).
std::vector<std::string> declare_accumulators(codegen::kernel_builder& b, const reduction_site& site,
                                              int count = reduction_unroll) {
  std::vector<std::string> acc;
  for (int u = 0; u < count; ++u) {
    acc.push_back(b.fresh_name("acc"));
    b.declare(site.type, acc.back(), site.initial);
    if (site.compensated) b.declare(site.type, acc.back() + "_c", "0");
  }
  return acc;
}

/// An array of `count` accumulators of site (and, compensated, the array of their compensations,
/// compensation_of's name), each set to the identity by a loop over `index`: the array's name.
std::string declare_accumulator_array(kernel_context& kc, const reduction_site& site, const std::string& count,
                                      const std::string& index) {
  auto& b = kc.builder();
  const std::string name = b.fresh_name("acc");
  b.statement(site.type + " " + name + "[" + count + "]");
  if (site.compensated) b.statement(site.type + " " + compensation_of(name) + "[" + count + "]");
  kc.open_scope("for (int " + index + " = 0; " + index + " < " + count + "; ++" + index + ")");
  b.assign(name + "[" + index + "]", site.initial);
  if (site.compensated) b.assign(compensation_of(name) + "[" + index + "]", "0");
  kc.close_scope();
  return name;
}

/// The lane's accumulators combined in a fixed order: the variable holding the result (a variable
/// each step: combine may name its operands twice).
std::string combine_accumulators(codegen::kernel_builder& b, const reduction_site& site,
                                 const std::vector<std::string>& acc) {
  const auto value = [&](std::size_t u) {
    return site.compensated ? "(" + acc[u] + " - " + compensation_of(acc[u]) + ")" : acc[u];
  };
  std::string combined = value(0);
  for (std::size_t u = 1; u < acc.size(); ++u) combined = b.declare_fresh(site.type, site.combine(combined, value(u)), "r");
  return combined;
}

/// The slot of the lane s further along the reduced dimension, in a pass's layout
/// (declare_indices): lanes along the second local dimension by rows, the first by columns.
std::string lane_partner(bool rowwise) { return rowwise ? "(l1 + s) * L0 + l0" : "l1 * L0 + l0 + s"; }

/// The end of a fused level: the lane's accumulators combined in a fixed order, the tree over the
/// group's lanes, and the finished value, which every work-item of the row (column) reads and
/// which is remembered as the reduction's value at (row, col): the levels above and the result
/// read it where they read the reduction.
void finish_level(kernel_context& kc, const reduction_site& site, const std::vector<std::string>& acc,
                  const std::string& scratch, const reduction_names& n, bool rowwise, const std::string& row,
                  const std::string& col) {
  auto& b = kc.builder();
  b.assign(scratch + "[" + n.slot + "]", combine_accumulators(b, site, acc));
  emit_lane_tree(kc, {&site}, {scratch}, n, lane_partner(rowwise));
  b.statement("barrier(CLK_LOCAL_MEM_FENCE)");
  const std::string finished = b.declare_fresh(site.type, scratch + "[" + (rowwise ? "l0" : "l1 * L0") + "]", "level");
  kc.remember(site.node, row, col, finished);
}

/// plan_held_levels for the levels' result (rows x cols from the first level's reduction).
fused_levels_plan held_levels_of(const std::vector<const reduction_site*>& levels) {
  const reduction_site& first = *levels.front();
  return first.rowwise ? plan_held_levels(true, first.outputs, first.length)
                       : plan_held_levels(false, first.length, first.outputs);
}

/// The fused-levels kernel whose work-items hold `items` elements each (plan_held_levels): lane l
/// of a row takes elements l, l + lanes, ..., so that the loads are unconditional and every level
/// and the result reuse them (kernel_context remembers a value at its indices in the kernel's
/// outer scope). Only the last element can lie past the row's end (items is the row's length
/// over the lanes, rounded up, and part of the kernel's key): its index alone is clamped into the
/// row, and the levels mask that clamped copy with their identity; indices without clamps let the
/// compiler fold the offsets (65536 x 1024 softmax by rows on an H200: 0.49x -> 0.63x the copy).
/// The row (column) index is clamped too: work-items past the last row compute on the last one
/// and store nothing, so that every work-item reaches the barriers. The work-group size is
/// required of the compiler: held elements take registers, and without it NVIDIA's compiler may
/// use so many that a group of the plan's size cannot run.
std::string generate_held_levels_source(const assignment_code& code, const std::vector<const reduction_site*>& levels,
                                        const fused_levels_plan& plan) {
  const std::size_t items = plan.items;
  codegen::kernel_builder b("evaluate");
  b.require_work_group_size(plan.local0, plan.local1, 1);
  kernel_context kc(b);
  code.declare_parameters(kc);
  const bool rowwise = levels.front()->rowwise;
  const std::vector<std::string> scratch = declare_level_scratch(b, levels);
  const reduction_names n = declare_indices(b, rowwise, false, &plan);
  const std::string length = rowwise ? "cols" : "rows";
  const std::string outer = rowwise ? "i" : "j", outer_limit = rowwise ? "rows" : "cols";
  const std::string held = b.declare_fresh("int", "min(" + outer + ", " + outer_limit + " - 1)", outer);
  const auto at = [&](const std::string& k) {
    return rowwise ? std::pair<std::string, std::string>{held, k} : std::pair<std::string, std::string>{k, held};
  };
  std::vector<std::string> index, clamped;
  const std::size_t last = items - 1;
  for (std::size_t e = 0; e < items; ++e) {
    index.push_back(b.declare_fresh("int", n.lane + " + " + std::to_string(e) + " * " + n.lanes, "e"));
    clamped.push_back(e == last ? b.declare_fresh("int", "min(" + index.back() + ", " + length + " - 1)", "e")
                                : index.back());
  }

  for (std::size_t l = 0; l < levels.size(); ++l) {
    const reduction_site& site = *levels[l];
    const std::vector<std::string> acc = declare_accumulators(b, site);
    std::vector<std::string> terms;
    for (std::size_t e = 0; e < items; ++e) {  // every load first (the first level's; later ones reuse them)
      const auto [r, c] = at(clamped[e]);
      terms.push_back(site.term(kc, r, c));
    }
    for (std::size_t e = 0; e < items; ++e)
      emit_accumulate(b, site, acc[e % reduction_unroll],
                      e == last ? "(" + index[e] + " < " + length + " ? " + terms[e] + " : " + site.initial + ")"
                                : terms[e]);
    finish_level(kc, site, acc, scratch[l], n, rowwise, rowwise ? held : "0", rowwise ? "0" : held);
  }

  // The result at every held element, then the stores of those inside the matrix.
  std::vector<std::vector<std::string>> values;
  for (std::size_t e = 0; e < items; ++e) {
    const auto [r, c] = at(clamped[e]);
    values.push_back(code.values_at(kc, r, c));
  }
  for (std::size_t e = 0; e < items; ++e) {
    kc.open_scope("if (" + outer + " < " + outer_limit + (e == last ? " && " + index[e] + " < " + length : "") + ")");
    const auto [r, c] = at(clamped[e]);
    code.store(kc, values[e], r, c);
    kc.close_scope();
  }
  return b.source();
}

/// The fused-levels kernel that reads its rows (columns) once per level and for the result.
std::string generate_rereading_levels_source(const assignment_code& code,
                                             const std::vector<const reduction_site*>& levels);

/// The online rule's pair: (maximum, sum of exp(x - maximum), the sum's Kahan compensation,
/// unused). Two pairs merged (lanes, parts): the sum under the smaller maximum is scaled to the
/// larger one (one exp) and added with compensation. Maxima are never NaN (fmax skips NaN terms),
/// so the order of a merge's arguments decides nothing but which one is scaled.
std::string online_merge_helper(const std::string& t) {
  const std::string pair = t + "4", zero = "(" + t + ")0", one = "(" + t + ")1";
  return pair + " tessera_online_merge_" + t + "(" + pair + " a, " + pair + " b) {\n"
         "  if (b.x > a.x) {\n"
         "    const " + pair + " larger = b;\n"
         "    b = a;\n"
         "    a = larger;\n"
         "  }\n"
         "  const " + t + " scale = b.x == a.x ? " + one + " : exp(b.x - a.x);\n"
         "  const " + t + " y = (b.y - b.z) * scale - a.z;\n"
         "  const " + t + " s = a.y + y;\n"
         "  return (" + pair + ")(a.x, s, (s - a.y) - y, " + zero + ");\n"
         "}\n";
}

/// The online rule's step: the terms' maximum first (fmax skips NaN), the sum rescaled once if
/// the maximum grew, then each exp(x - maximum) added with Kahan compensation: one exp per term
/// and one per growth. Until a finite term comes the maximum is -INFINITY and the exponent's base
/// is 0: exp(-inf - 0) adds 0 where exp(-inf - -inf) would be NaN (the finished sum of a line of
/// nothing but -INFINITY is NaN all the same: online_root); NaN and +INFINITY terms make the sum
/// NaN, as exp(x - maximum) does at them.
void emit_online_step(codegen::kernel_builder& b, const std::string& t, const std::string& acc,
                      const std::vector<std::string>& terms) {
  std::string top = acc + ".x";
  for (const std::string& x : terms) top = "fmax(" + top + ", " + x + ")";
  top = b.declare_fresh(t, top, "top");
  const std::string base = b.declare_fresh(t, top + " == -INFINITY ? (" + t + ")0 : " + top, "base");
  b.open_block("if (" + top + " > " + acc + ".x)");
  const std::string scale = b.declare_fresh(t, "exp(" + acc + ".x - " + base + ")", "scale");
  b.assign(acc + ".y", scale, "*=");
  b.assign(acc + ".z", scale, "*=");
  b.close_block();
  for (const std::string& x : terms) {
    const std::string y = b.declare_fresh(t, "exp(" + x + " - " + base + ") - " + acc + ".z", "y");
    const std::string sum = b.declare_fresh(t, acc + ".y + " + y, "t");
    b.assign(acc + ".z", "(" + sum + " - " + acc + ".y) - " + y);
    b.assign(acc + ".y", sum);
  }
  b.assign(acc + ".x", top);
}

}  // namespace

reduction_site online_root(const reduction_site& sum, const reduction_site& max) {
  reduction_site site = sum;  // its node, place, dimension, sizes and materializing
  const std::string scalar = sum.type, pair = sum.type + "4";
  site.type = pair;
  site.element_bytes = 4 * sum.element_bytes;
  site.compensated = false;  // the pair carries its own compensation
  site.initial = "(" + pair + ")(-INFINITY, (" + scalar + ")0, (" + scalar + ")0, (" + scalar + ")0)";
  site.term = sum.online_term;  // E's value: accumulate_step makes the pairs
  site.accumulate_step = [scalar](codegen::kernel_builder& b, const std::string& acc,
                                  const std::vector<std::string>& terms) { emit_online_step(b, scalar, acc, terms); };
  site.combine = [scalar](const std::string& a, const std::string& b) {
    return "tessera_online_merge_" + scalar + "(" + a + ", " + b + ")";
  };
  site.add_helpers = [scalar](codegen::kernel_builder& b) {
    b.add_helper("online_merge_" + scalar, online_merge_helper(scalar));
  };
  site.remember_finished = [sum_node = sum.node, max_node = max.node, scalar](
                               kernel_context& kc, const std::string& value, const std::string& row,
                               const std::string& col) {
    auto& b = kc.builder();
    kc.remember(max_node, row, col, b.declare_fresh(scalar, value + ".x", "max"));
    // A maximum of -INFINITY: every term is -INFINITY or NaN, and exp(x - max) NaN at each.
    kc.remember(sum_node, row, col,
                b.declare_fresh(scalar, value + ".x == -INFINITY ? NAN : " + value + ".y - " + value + ".z", "sum"));
  };
  site.online_max = nullptr;
  return site;
}

bool takes_whole_steps(const std::vector<const reduction_site*>& roots) {
  return std::any_of(roots.begin(), roots.end(), [](const reduction_site* r) { return bool(r->accumulate_step); });
}

bool online_rule_pays(const runtime::device_info& device) { return device.type != runtime::device_type::cpu; }

std::pair<const reduction_site*, const reduction_site*> online_pair(const reduction_analysis& analysis,
                                                                    const reduction_site& site) {
  if (!analysis.online) return {nullptr, nullptr};
  const auto find = [&](const auto& take) -> const reduction_site* {
    const auto& m = analysis.to_materialize;
    const auto at = std::find_if(m.begin(), m.end(), [&](const reduction_site* s) { return take(*s); });
    return at == m.end() ? nullptr : *at;
  };
  const reduction_site* sum =
      site.online_max != nullptr ? &site : find([&](const reduction_site& s) { return s.online_max == site.node; });
  if (sum == nullptr || !sum->materialize_with_max) return {nullptr, nullptr};
  const reduction_site* max = find([&](const reduction_site& s) { return s.node == sum->online_max; });
  if (max == nullptr || max->materialized() || sum->materialized()) return {nullptr, nullptr};
  return {sum, max};
}

/// A blocked pass's walk over `step` columns at a time from k (declared by the caller) while
/// that many are left: each row's accumulators (acc[r] + "[r]") take the step's terms in column
/// order, as a column a step would add them; for step > 1 they are held in variables across it.
void emit_column_steps(kernel_context& kc, const std::vector<const reduction_site*>& roots,
                       const std::vector<std::string>& acc, const std::string& block, const std::string& row, int step) {
  auto& b = kc.builder();
  kc.open_scope(step == 1 ? std::string("for (; k < k_end; ++k)")
                          : "for (; k < k_end - " + std::to_string(step - 1) + "; k += " + std::to_string(step) + ")");
  std::vector<std::string> ks{"k"};
  for (int u = 1; u < step; ++u) ks.push_back(b.declare_fresh("int", "k + " + std::to_string(u), "k"));
  kc.open_scope("for (int r = 0; r < " + block + "; ++r)");
  b.declare("const int", "ir", row);
  std::vector<std::string> held(roots.size());
  for (std::size_t r = 0; r < roots.size(); ++r) {
    const std::string element = acc[r] + "[r]";
    if (step == 1) {
      held[r] = element;
      continue;
    }
    held[r] = b.fresh_name("s");
    b.declare(roots[r]->type, held[r], element);
    if (roots[r]->compensated) b.declare(roots[r]->type, compensation_of(held[r]), compensation_of(element));
  }
  for (const std::string& k : ks)
    for (std::size_t r = 0; r < roots.size(); ++r) emit_step(b, *roots[r], {held[r]}, {roots[r]->term(kc, "ir", k)});
  for (std::size_t r = 0; r < roots.size() && step > 1; ++r) {
    b.assign(acc[r] + "[r]", held[r]);
    if (roots[r]->compensated) b.assign(compensation_of(acc[r] + "[r]"), compensation_of(held[r]));
  }
  kc.close_scope();
  kc.close_scope();
}

std::string generate_blocked_rows_pass(const assignment_code& code, const std::vector<const reduction_site*>& roots) {
  codegen::kernel_builder b("evaluate");
  kernel_context kc(b);
  code.declare_parameters(kc);
  const std::string length = kc.integer_parameter_of(roots.front()->node, "length");
  const std::vector<std::string> partials = declare_reduction_parameters(b, roots, false).first;
  const std::string block = std::to_string(blocked_rows_per_item(roots.front()->outputs));
  b.declare("const int", "i0", "get_global_id(0) * " + block);
  b.declare("const int", "j", "0");
  b.declare("const int", "part", "get_group_id(1)");
  b.declare("const int", "k_begin", "part * part_length");
  b.declare("const int", "k_end", "(int)min((long)" + length + ", (long)k_begin + part_length)");
  std::vector<std::string> acc;  // root r's accumulator of row r: acc[r] + "[r]"
  for (const reduction_site* root : roots) acc.push_back(declare_accumulator_array(kc, *root, block, "r"));
  // The walk over the columns, twice: whole blocks read their rows as they are (a contiguous
  // run the compiler vectorizes), the last one clamped. Each row's accumulator takes
  // blocked_columns_per_step columns in a step, in column order (the same arithmetic, the same
  // bits, as a column a step), held in a variable between them, then the columns left one by
  // one (a hand-written Kahan row sum of 65536 x 256 floats in 4096-row blocks on PoCL: 0.58-0.72x
  // the copy with a column a step, 0.74-0.99 with two, 0.90-1.02 with four;
  // benchmark/kernel_generator/row_block_probe).
  const int columns_per_step = blocked_columns_per_step(blocked_rows_per_item(roots.front()->outputs));
  const auto walk = [&](const std::string& row) {
    b.declare("int", "k", "k_begin");
    if (columns_per_step > 1) emit_column_steps(kc, roots, acc, block, row, columns_per_step);
    emit_column_steps(kc, roots, acc, block, row, 1);
  };
  kc.open_scope("if (i0 + " + block + " <= rows)");
  walk("i0 + r");
  kc.close_scope();
  kc.open_scope("else");
  walk("min(i0 + r, rows - 1)");
  kc.close_scope();

  kc.open_scope("for (int r = 0; r < " + block + "; ++r)");
  b.declare("const int", "i", "i0 + r");
  kc.open_scope("if (i < rows)");
  std::vector<std::string> red(roots.size());
  for (std::size_t r = 0; r < roots.size(); ++r) {
    const std::string a = acc[r] + "[r]";
    red[r] = b.declare_fresh(roots[r]->type, roots[r]->compensated ? "(" + a + " - " + compensation_of(a) + ")" : a, "r");
  }
  kc.open_scope("if (parts == 1)");
  emit_finished_results(kc, code, roots, red);
  kc.close_scope();
  kc.open_scope("else");
  for (std::size_t r = 0; r < roots.size(); ++r) b.assign(partials[r] + "[(long)part * rows + i]", red[r]);
  kc.close_scope();
  kc.close_scope();
  kc.close_scope();
  return b.source();
}

std::string generate_reduction_source(const assignment_code& code, const std::vector<const reduction_site*>& roots,
                                      bool finishing, const reduction_walk& walk) {
  codegen::kernel_builder b("evaluate");
  kernel_context kc(b);
  code.declare_parameters(kc);
  const reduction_site& first = *roots.front();
  const bool rowwise = first.rowwise;
  const std::string length = kc.integer_parameter_of(first.node, "length");
  const auto [partials, scratch] = declare_reduction_parameters(b, roots, finishing);
  const reduction_names n = declare_indices(b, rowwise, finishing);
  const std::string in_range = n.out + " < " + n.outputs;
  std::vector<std::string> red(roots.size());

  if (finishing) {
    // Lane l combines parts l, l + L1, ... in order, then the tree combines the lanes.
    for (std::size_t r = 0; r < roots.size(); ++r) {
      const reduction_site& site = *roots[r];
      const std::string acc = b.fresh_name("acc");
      b.declare(site.type, acc, site.initial);
      if (site.compensated) b.declare(site.type, acc + "_c", "0");
      kc.open_scope("if (" + in_range + ")");
      kc.open_scope("for (int p = l1; p < parts; p += L1)");
      emit_accumulate(b, site, acc, partials[r] + "[(long)p * " + n.outputs + " + " + n.out + "]");
      kc.close_scope();
      kc.close_scope();
      b.assign(scratch[r] + "[" + n.slot + "]", site.compensated ? "(" + acc + " - " + acc + "_c)" : acc);
    }
    emit_lane_tree(kc, roots, scratch, n, "l1 * L0 + l0 + s * L0");
    kc.open_scope("if (l1 == 0 && " + in_range + ")");
    for (std::size_t r = 0; r < roots.size(); ++r) red[r] = b.declare_fresh(roots[r]->type, scratch[r] + "[l0]", "r");
    emit_finished_results(kc, code, roots, red);
    kc.close_scope();
    return b.source();
  }

  b.declare("const int", "part_begin", "part * part_length");
  b.declare("const int", "part_end", "(int)min((long)" + length + ", (long)part_begin + part_length)");
  b.declare("const int", "k_begin", "part_begin + " + n.lane + " * lane_chunk");
  b.declare("const int", "k_end", "(int)min((long)part_end, (long)k_begin + lane_span)");
  // acc[r][u]: root r's accumulator u.
  std::vector<std::vector<std::string>> acc;
  const int chains = walk.accumulators;
  // A CPU's walk (consecutive terms) keeps its accumulators in arrays and steps them in a loop
  // over u: LLVM's loop vectorizer turns that loop into vector loads and vector Kahan steps,
  // where the same steps written out one by one are left to the SLP vectorizer, which vectorized
  // them only in part in PoCL's build (4-float vectors and scalars against 8-float vectors).
  // The arithmetic of each accumulator is the same either way.
  // (The online rule's whole steps are a GPU's: online_rule_pays.)
  const bool arrays = walk.consecutive && !takes_whole_steps(roots);
  std::vector<std::string> arrays_of;  // root r's array, when arrays
  for (const reduction_site* root : roots) {
    if (!arrays) {
      acc.push_back(declare_accumulators(b, *root, root->accumulate_step ? 1 : chains));
      continue;
    }
    arrays_of.push_back(declare_accumulator_array(kc, *root, std::to_string(chains), "u"));
    acc.emplace_back();
    for (int u = 0; u < chains; ++u) acc.back().push_back(arrays_of.back() + "[" + std::to_string(u) + "]");
  }
  const auto term_at = [&](const reduction_site& site, const std::string& k) {
    return rowwise ? site.term(kc, "i", k) : site.term(kc, k, "j");
  };
  // A step of u terms: u lane steps, or u itself when the lane's terms are consecutive.
  const auto steps = [&](int u) { return walk.consecutive ? std::to_string(u) : std::to_string(u) + " * lane_step"; };
  const auto emit_walk = [&] {
    b.declare("int", "k", "k_begin");
    kc.open_scope("for (; k < k_end - " + steps(chains - 1) + "; k += " + steps(chains) + ")");
    if (arrays) {
      kc.open_scope("for (int u = 0; u < " + std::to_string(chains) + "; ++u)");
      const std::string ku = b.declare_fresh("int", "k + u", "k");
      std::vector<std::string> terms;
      for (const reduction_site* root : roots) terms.push_back(term_at(*root, ku));
      for (std::size_t r = 0; r < roots.size(); ++r) emit_accumulate(b, *roots[r], arrays_of[r] + "[u]", terms[r]);
      kc.close_scope();
    } else {
      std::vector<std::string> ks{"k"};
      for (int u = 1; u < chains; ++u) ks.push_back(b.declare_fresh("int", "k + " + steps(u), "k"));
      // Every load first, then the accumulations: the loads do not wait for each other.
      std::vector<std::vector<std::string>> terms(roots.size());
      for (std::size_t r = 0; r < roots.size(); ++r)
        for (int u = 0; u < chains; ++u) terms[r].push_back(term_at(*roots[r], ks[static_cast<std::size_t>(u)]));
      for (std::size_t r = 0; r < roots.size(); ++r) emit_step(b, *roots[r], acc[r], terms[r]);
    }
    kc.close_scope();
    kc.open_scope(walk.consecutive ? "for (; k < k_end; ++k)" : "for (; k < k_end; k += lane_step)");
    for (std::size_t r = 0; r < roots.size(); ++r) emit_step(b, *roots[r], acc[r], {term_at(*roots[r], "k")});
    kc.close_scope();
  };
  kc.open_scope("if (" + in_range + ")");
  if (rowwise && walk.consecutive) {
    // A CPU's lane walks consecutive terms of its row; where every matrix is one row (1 x N)
    // they are consecutive in memory too, and written so, the compiler loads them as vectors
    // (PoCL, 2 cores: the row sum of 1 x 2^24 floats 0.58x the copy with the leading dimension
    // a run-time 1).
    kc.emit_for_one_row_and_any(emit_walk);
  } else {
    emit_walk();
  }
  kc.close_scope();

  // The lane's result (accumulators in a fixed order), then the tree over the group's lanes.
  for (std::size_t r = 0; r < roots.size(); ++r)
    b.assign(scratch[r] + "[" + n.slot + "]", combine_accumulators(b, *roots[r], acc[r]));
  emit_lane_tree(kc, roots, scratch, n, lane_partner(rowwise));

  kc.open_scope("if (" + n.lane + " == 0 && " + in_range + ")");
  for (std::size_t r = 0; r < roots.size(); ++r)
    red[r] = b.declare_fresh(roots[r]->type, scratch[r] + "[" + n.slot + "]", "r");
  kc.open_scope("if (parts == 1)");
  emit_finished_results(kc, code, roots, red);
  kc.close_scope();
  kc.open_scope("else");
  for (std::size_t r = 0; r < roots.size(); ++r)
    b.assign(partials[r] + "[(long)part * " + n.outputs + " + " + n.out + "]", red[r]);
  kc.close_scope();
  kc.close_scope();
  return b.source();
}

cl::Event launch_reduction_assignment(runtime::kernel_cache<std::vector<int>, reduction_kernels>& cache,
                                      const assignment_code& code, shape result, const runtime::context& ctx,
                                      const reduction_analysis& analysis) {
  const std::vector<const reduction_site*>& roots = analysis.roots;
  matrix_recorder recorder;
  code.record_matrices(recorder);
  std::vector<int> pattern = recorder.aliasing_pattern();
  pattern.push_back(-1);
  pattern.insert(pattern.end(), analysis.pattern.begin(), analysis.pattern.end());
  const reduction_site& first = *roots.front();
  const runtime::device_info& device = planning_device(ctx.device());
  const bool blocked = reduction_rows_blocked(device, first.rowwise, first.outputs);
  pattern.push_back(blocked ? static_cast<int>(blocked_rows_per_item(first.outputs)) : 0);  // the block is in the code
  const reduction_walk walk = pass_walk(device, takes_whole_steps(roots));
  pattern.push_back(walk.accumulators);  // so is the walk
  pattern.push_back(walk.consecutive ? 1 : 0);
  const auto kernels = counted_get(cache, ctx, pattern, [&] {
    return reduction_kernels{build_kernel(ctx, blocked ? generate_blocked_rows_pass(code, roots)
                                                       : generate_reduction_source(code, roots, false, walk)),
                             build_kernel(ctx, generate_reduction_source(code, roots, true, walk))};
  });
  argument_list assignment_arguments;
  code.gather_arguments(assignment_arguments, result.rows, result.cols);
  const auto given = assignment_arguments.arguments();
  runtime::workspace_lease workspaces(ctx);  // held until the kernels are enqueued
  const auto launch = [&](const reduction_plan& plan) {
    std::vector<runtime::kernel_argument> pass(given.begin(), given.end());
    std::vector<runtime::kernel_argument> finish(given.begin(), given.end());
    const int parts = to_kernel_int(plan.parts, "reduction parts");
    pass.emplace_back(parts);
    finish.emplace_back(parts);
    for (const index_t value : {plan.part_length, plan.lane_chunk, plan.lane_span, plan.lane_step})
      pass.emplace_back(to_kernel_int(value, "reduction plan"));
    const runtime::device_buffer none;
    const std::size_t group = plan.local0 * plan.local1;
    for (std::size_t r = 0; r < roots.size(); ++r) {
      const reduction_site* site = roots[r];
      const std::size_t bytes =
          static_cast<std::size_t>(plan.parts) * static_cast<std::size_t>(site->outputs) * site->element_bytes;
      const runtime::device_buffer& workspace = plan.parts > 1 ? workspaces.buffer(r, bytes) : none;  // one per root
      pass.emplace_back(workspace.handle());
      pass.emplace_back(runtime::local_memory{group * site->element_bytes});
      finish.emplace_back(workspace.handle());
      finish.emplace_back(runtime::local_memory{plan.finish_lanes * plan.finish_results * site->element_bytes});
    }
    const runtime::launch_range range{
        {plan.groups0 * plan.local0, plan.groups1 * plan.local1, plan.groups2}, {plan.local0, plan.local1, 1}, 3};
    const cl::Event first_event = kernels->pass.launch(ctx, range, pass);
    if (plan.parts == 1) return first_event;
    const auto outputs = static_cast<std::size_t>(first.outputs);
    kernels->finish.launch(ctx,
                           runtime::launch_range::two_d(runtime::round_up(outputs, plan.finish_results),
                                                        plan.finish_lanes, plan.finish_results, plan.finish_lanes),
                           finish);
    return runtime::covering_event(ctx, first_event);
  };

  // Groups of 1024 where they save the finishing pass (plan_reduction). The kernel's reported
  // limit cannot rule them out: NVIDIA's driver (580) reports 256 for this pass and runs it in
  // groups of 1024 (H200, 2026-11-28); a launch refused for the group's size or resources takes
  // the groups of the reported limit.
  const std::size_t group_limit = kernels->pass.power_of_two_work_group(256);
  const std::size_t large_group = ctx.device().max_work_group_size >= 1024 ? 1024 : 0;
  const reduction_plan plan =
      plan_reduction(device, first.rowwise, first.outputs, first.length, group_limit, large_group);
  if (plan.local0 * plan.local1 <= group_limit) return launch(plan);
  try {
    return launch(plan);
  } catch (const runtime::opencl_error& e) {
    if (e.code() != CL_INVALID_WORK_GROUP_SIZE && e.code() != CL_OUT_OF_RESOURCES) throw;
  }
  return launch(plan_reduction(device, first.rowwise, first.outputs, first.length, group_limit));
}

bool runs_fused_levels(const reduction_analysis& analysis, shape result, const runtime::device_info& device) {
  if (device.type == runtime::device_type::cpu || !analysis.roots.empty() || analysis.to_materialize.empty())
    return false;
  if (std::any_of(analysis.pattern.begin(), analysis.pattern.end(), [](int kind) { return kind != 0; })) return false;
  const bool rowwise = analysis.to_materialize.front()->rowwise;
  const bool one_direction =
      std::all_of(analysis.to_materialize.begin(), analysis.to_materialize.end(), [&](const reduction_site* s) {
        return s->rowwise == rowwise && s->outputs == (rowwise ? result.rows : result.cols) &&
               s->length == (rowwise ? result.cols : result.rows) && !s->materialized();
      });
  if (!one_direction) return false;
  // Few rows (columns) would leave compute units idle: materializing splits long reductions
  // into parts.
  const std::size_t units = std::max(device.compute_units, 1u);
  const fused_levels_plan held = plan_held_levels(rowwise, result.rows, result.cols);
  if (held.items > 0) return held.groups() >= units;  // each element read once
  const fused_levels_plan plan = plan_fused_levels(rowwise, result.rows, result.cols, 1024);
  if (plan.groups() < units) return false;
  // The rows a group reads again must be few enough that the groups at work keep theirs in the
  // cache; otherwise every level reads from memory as materializing does, with fewer groups to
  // hide it (8192 x 8192 by rows, 1 MB per group, on an H100: 0.24x the copy fused, 0.28x not).
  std::size_t element_bytes = 0;
  for (const reduction_site* s : analysis.to_materialize) element_bytes = std::max(element_bytes, s->element_bytes);
  const std::size_t group_bytes =
      (rowwise ? plan.local0 * static_cast<std::size_t>(result.cols) : plan.local1 * static_cast<std::size_t>(result.rows)) *
      element_bytes;
  return group_bytes <= max_fused_group_bytes;
}

std::vector<const reduction_site*> distinct_levels(const reduction_analysis& analysis) {
  std::vector<const reduction_site*> levels;
  for (const reduction_site* site : analysis.to_materialize)
    if (std::none_of(levels.begin(), levels.end(), [&](const reduction_site* l) { return l->node == site->node; }))
      levels.push_back(site);
  return levels;
}

std::string generate_fused_levels_source(const assignment_code& code, const std::vector<const reduction_site*>& levels) {
  const fused_levels_plan held = held_levels_of(levels);
  return held.items > 0 ? generate_held_levels_source(code, levels, held)
                        : generate_rereading_levels_source(code, levels);
}

namespace {

std::string generate_rereading_levels_source(const assignment_code& code,
                                             const std::vector<const reduction_site*>& levels) {
  codegen::kernel_builder b("evaluate");
  kernel_context kc(b);
  code.declare_parameters(kc);
  const bool rowwise = levels.front()->rowwise;
  const std::vector<std::string> scratch = declare_level_scratch(b, levels);
  // The result's row (rowwise) or column the work-item shares, its lane along the other index:
  // the layout of the reduction pass with one part (its `part` goes unused).
  const reduction_names n = declare_indices(b, rowwise, false);
  const std::string &lane = n.lane, &lanes = n.lanes;
  const std::string length = rowwise ? "cols" : "rows", in_range = rowwise ? "i < rows" : "j < cols";
  const auto at = [&](const std::string& k) {
    return rowwise ? std::pair<std::string, std::string>{"i", k} : std::pair<std::string, std::string>{k, "j"};
  };

  for (std::size_t l = 0; l < levels.size(); ++l) {
    const reduction_site& site = *levels[l];
    const std::vector<std::string> acc = declare_accumulators(b, site);
    kc.open_scope("if (" + in_range + ")");
    const std::string k = b.fresh_name("t");
    b.declare("int", k, lane);
    kc.open_scope("for (; " + k + " < " + length + " - 3 * " + lanes + "; " + k + " += 4 * " + lanes + ")");
    std::vector<std::string> ks{k}, terms;
    for (int u = 1; u < reduction_unroll; ++u)
      ks.push_back(b.declare_fresh("int", k + " + " + std::to_string(u) + " * " + lanes, "k"));
    for (int u = 0; u < reduction_unroll; ++u) {  // every load first
      const auto [r, c] = at(ks[static_cast<std::size_t>(u)]);
      terms.push_back(site.term(kc, r, c));
    }
    for (int u = 0; u < reduction_unroll; ++u)
      emit_accumulate(b, site, acc[static_cast<std::size_t>(u)], terms[static_cast<std::size_t>(u)]);
    kc.close_scope();
    kc.open_scope("for (; " + k + " < " + length + "; " + k + " += " + lanes + ")");
    {
      const auto [r, c] = at(k);
      emit_accumulate(b, site, acc[0], site.term(kc, r, c));
    }
    kc.close_scope();
    kc.close_scope();
    finish_level(kc, site, acc, scratch[l], n, rowwise, rowwise ? "i" : "0", rowwise ? "0" : "j");
  }

  // The result: the group's rows (columns), four elements per lane and step, loads first,
  // computed at indices clamped into the row and stored where they are inside it.
  kc.open_scope("if (" + in_range + ")");
  kc.open_scope("for (int k = " + lane + "; k < " + length + "; k += 4 * " + lanes + ")");
  std::vector<std::string> unclamped, clamped;
  for (int u = 0; u < reduction_unroll; ++u) {
    unclamped.push_back(u == 0 ? "k" : b.declare_fresh("int", "k + " + std::to_string(u) + " * " + lanes, "e"));
    clamped.push_back(b.declare_fresh("int", "min(" + unclamped.back() + ", " + length + " - 1)", "e"));
  }
  std::vector<std::vector<std::string>> values;
  for (int u = 0; u < reduction_unroll; ++u) {
    const auto [r, c] = at(clamped[static_cast<std::size_t>(u)]);
    values.push_back(code.values_at(kc, r, c));
  }
  for (int u = 0; u < reduction_unroll; ++u) {
    const auto k = static_cast<std::size_t>(u);
    kc.open_scope("if (" + unclamped[k] + " < " + length + ")");
    const auto [r, c] = at(clamped[k]);
    code.store(kc, values[k], r, c);
    kc.close_scope();
  }
  kc.close_scope();
  kc.close_scope();
  return b.source();
}

}  // namespace

cl::Event launch_fused_levels(runtime::kernel_cache<std::vector<int>, runtime::kernel>& cache,
                              const assignment_code& code, shape result, const runtime::context& ctx,
                              const reduction_analysis& analysis) {
  const std::vector<const reduction_site*> levels = distinct_levels(analysis);
  matrix_recorder recorder;
  code.record_matrices(recorder);
  std::vector<int> pattern = recorder.aliasing_pattern();
  pattern.push_back(-1);
  pattern.insert(pattern.end(), analysis.pattern.begin(), analysis.pattern.end());
  // The kernel holding its elements where they fit and its work-groups can be that large (a
  // kernel needing many registers may not), else the one reading its rows per level.
  const auto kernel_for = [&](const fused_levels_plan& held) {
    std::vector<int> key = pattern;  // the held kernel's code has its items and work-group size
    for (const std::size_t n : {held.items, held.local0, held.local1}) key.push_back(static_cast<int>(n));
    return counted_get(cache, ctx, key, [&] {
      return build_kernel(ctx, held.items > 0 ? generate_held_levels_source(code, levels, held)
                                              : generate_rereading_levels_source(code, levels));
    });
  };
  const bool rowwise = levels.front()->rowwise;
  argument_list assignment_arguments;
  code.gather_arguments(assignment_arguments, result.rows, result.cols);
  const auto launch = [&](const runtime::kernel& kernel, const fused_levels_plan& plan) {
    const auto given = assignment_arguments.arguments();
    std::vector<runtime::kernel_argument> arguments(given.begin(), given.end());
    for (const reduction_site* site : levels)
      arguments.emplace_back(runtime::local_memory{plan.local0 * plan.local1 * site->element_bytes});
    const runtime::launch_range range{
        {plan.groups0 * plan.local0, plan.groups1 * plan.local1, plan.groups2}, {plan.local0, plan.local1, 1}, 3};
    return kernel.launch(ctx, range, arguments);
  };

  // The held kernel requires its work-group size, and a compiler that accepts the requirement
  // makes the kernel fit it; the kernel's reported limit cannot decide here: NVIDIA's driver
  // (580) reports 256 for kernels that require and run 512 or 1024 (H100, 2026-11-26). A device
  // whose groups are smaller, or a launch refused for the group's size or resources, gets the
  // kernel reading its rows per level.
  const fused_levels_plan held = plan_held_levels(rowwise, result.rows, result.cols);
  if (held.items > 0 && held.local0 * held.local1 <= ctx.device().max_work_group_size) {
    try {
      return launch(*kernel_for(held), held);
    } catch (const runtime::opencl_error& e) {
      if (e.code() != CL_INVALID_WORK_GROUP_SIZE && e.code() != CL_OUT_OF_RESOURCES) throw;
    }
  }
  const auto rereading = kernel_for(fused_levels_plan{});
  return launch(*rereading,
                plan_fused_levels(rowwise, result.rows, result.cols, rereading->power_of_two_work_group(1024)));
}

}  // namespace tessera::kernel_generator::detail
