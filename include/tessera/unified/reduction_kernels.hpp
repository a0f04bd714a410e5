#pragma once
// The OpenCL C of the reductions, traced: stage 1 (each work-group reduces its terms into a
// partial result) for 1-D/2-D, row and column reductions, and the final passes that combine
// partials and apply finalize. The user's fn, op and finalize are traced into them like any
// kernel lambda; reduction.hpp launches them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <tessera/unified/arguments.hpp>
#include <tessera/unified/control_flow.hpp>
#include <tessera/unified/kernel_cache.hpp>
#include <tessera/unified/kernel_trace.hpp>
#include <tessera/unified/reduction_layout.hpp>
#include <tessera/unified/symbolic.hpp>

namespace tessera::unified::detail {

/// `local T scratchN[max_work_group_size];` at the top of the kernel. (A fixed array rather
/// than a local-memory parameter: every launch's work-group fits in it.)
inline std::string local_scratch(const std::shared_ptr<kernel_trace>& t, const std::string& type) {
  const std::string name = t->fresh_name("scratch");
  t->statement("local " + type + " " + name + "[" + std::to_string(max_work_group_size) + "]");
  return name;
}

/// acc = op(acc, term), term read once.
template <typename Op, kernel_value V, typename X>
void accumulate(traced_var<V>& acc, X&& term) {
  traced<V> current(acc.trace(), acc.checked_text(), acc.scope());
  acc = Op{}(current, value(std::forward<X>(term)));
}

/// The chunk, span and step parameters of a work-item's terms (see reduction_layout), in this
/// order; item_range turns them into the item's first and last term.
struct item_parameters {
  std::string chunk, span, step;
};
inline item_parameters item_loop_parameters(const std::shared_ptr<kernel_trace>& t) {
  item_parameters p;
  p.chunk = t->scalar_parameter("long", "chunk");
  p.span = t->scalar_parameter("long", "span");
  p.step = t->scalar_parameter("long", "step");
  return p;
}
/// {first, last} of item `index` in a range from base below end.
inline std::pair<std::string, std::string> item_range(const std::shared_ptr<kernel_trace>& t, const item_parameters& p,
                                                      const std::string& base, const std::string& index,
                                                      const std::string& end) {
  const std::string first = t->constant("long", base + " + " + index + " * " + p.chunk, "first");
  const std::string last = t->constant("long", "min(" + end + ", " + first + " + " + p.span + ")", "last");
  return {first, last};
}

/// The chunk, span and step values of item_loop_parameters.
inline std::tuple<std::int64_t, std::int64_t, std::int64_t> item_loop(const reduction_layout& layout) {
  return {static_cast<std::int64_t>(layout.chunk), static_cast<std::int64_t>(layout.span),
          static_cast<std::int64_t>(layout.step)};
}

/// Accumulators per work-item of the kernels without a tuning of their own.
inline constexpr std::size_t default_unroll = 4;
/// Accumulators along a row that one work-item reduces alone (a CPU device's row reductions).
inline constexpr std::size_t cpu_row_unroll = 8;

/// Adds term(x) to acc for x = first, first + step, ... below last. `unroll` accumulators take
/// every unroll-th term, so that a GPU work-item has that many loads in flight and a CPU core as
/// many independent chains of op: each round reads all its terms first, then adds them (the
/// loads do not wait for each other). The accumulators are combined in a fixed order at the end,
/// so the result depends on the sizes alone. After each term, advance() may emit statements
/// (the 2-D reduction moves its row and column along). Terms always enter op on the right, as in
/// a sequential loop.
template <typename Op, kernel_value V, typename Term, typename Advance>
void accumulate_range(const std::shared_ptr<kernel_trace>& t, traced_var<V>& acc, const std::string& identity,
                      const std::string& first, const std::string& last, const std::string& step, Term&& term,
                      Advance&& advance, std::size_t unroll = default_unroll) {
  const std::string type(t->type_name<V>());
  unroll = std::max<std::size_t>(unroll, 1);
  std::vector<traced_var<V>> others;
  others.reserve(unroll - 1);  // a copied traced_var would be a new variable
  std::vector<traced_var<V>*> accs{&acc};
  for (std::size_t k = 1; k < unroll; ++k) {
    others.emplace_back(t, t->variable(type, identity, "acc"), t->scope());
    accs.push_back(&others.back());
  }
  const std::string x = t->variable("long", first, "x");
  const std::string rounds = std::to_string(unroll - 1);
  t->open_block("for (; " + x + " + " + rounds + " * " + step + " < " + last + "; " + x + " += " +
                std::to_string(unroll) + " * " + step + ")");
  {
    using term_value = decltype(value(term(x)));
    std::vector<term_value> terms;
    terms.reserve(unroll);
    for (std::size_t k = 0; k < unroll; ++k) {
      const std::string xk = k == 0 ? x : t->constant("long", x + " + " + std::to_string(k) + " * " + step, "x");
      terms.push_back(value(term(xk)));
      advance();
    }
    for (std::size_t k = 0; k < unroll; ++k) accumulate<Op>(*accs[k], std::move(terms[k]));
  }
  t->close_block();
  t->open_block("for (; " + x + " < " + last + "; " + x + " += " + step + ")");
  accumulate<Op>(acc, term(x));
  advance();
  t->close_block();
  for (std::size_t k = 1; k < unroll; ++k) {
    traced<V> current(acc.trace(), acc.checked_text(), acc.scope());
    traced<V> other(t, accs[k]->checked_text(), accs[k]->scope());
    acc = Op{}(current, other);
  }
}
template <typename Op, kernel_value V, typename Term>
void accumulate_range(const std::shared_ptr<kernel_trace>& t, traced_var<V>& acc, const std::string& identity,
                      const std::string& first, const std::string& last, const std::string& step, Term&& term,
                      std::size_t unroll = default_unroll) {
  accumulate_range<Op>(t, acc, identity, first, last, step, std::forward<Term>(term), [] {}, unroll);
}

/// fn(row, col, args...) with row and col given as OpenCL C expressions.
template <typename Fn, typename Arguments>
decltype(auto) term_at(const std::shared_ptr<kernel_trace>& t, Arguments& arguments, const std::string& row,
                       const std::string& col) {
  return std::apply(
      [&](auto&... a) -> decltype(auto) {
        return Fn{}(traced<std::int64_t>(t, row, t->scope()), traced<std::int64_t>(t, col, t->scope()), a...);
      },
      arguments);
}

/// Stores a finished output (finalize(value) to result_slot) when the runtime flag `finish`
/// is set (every output has one part), else the partial value to partial_slot.
template <typename Finalize, kernel_value V>
void store_output(const std::shared_ptr<kernel_trace>& t, const std::string& value_text, const std::string& finish,
                  const std::string& result_slot, const std::string& partial_slot) {
  const std::string type(t->type_name<V>());
  t->open_block("if (" + finish + ")");
  auto final_value = Finalize{}(traced<V>(t, t->constant(type, value_text), t->scope()));
  t->statement(result_slot + " = " + text_of(*t, final_value));
  t->close_block();
  t->open_block("else");
  t->statement(partial_slot + " = " + value_text);
  t->close_block();
}

/// Stores acc in scratch[lid] and reduces groups of `count` lanes (lane index `lane`, lanes
/// `spacing` apart in scratch) with a tree; lane 0's scratch then holds the group's value.
template <typename Op, kernel_value V>
void reduce_in_work_group(const std::shared_ptr<kernel_trace>& t, traced_var<V>& acc, const std::string& scratch,
                          const std::string& lid, const std::string& count, const std::string& lane,
                          const std::string& spacing) {
  const std::string type(t->type_name<V>());
  t->statement(scratch + "[" + lid + "] = " + acc.checked_text());
  t->statement("barrier(CLK_LOCAL_MEM_FENCE)");
  const std::string s = t->fresh_name("s");
  t->open_block("for (long " + s + " = " + count + " / 2; " + s + " > 0; " + s + " >>= 1)");
  t->open_block("if (" + lane + " < " + s + ")");
  traced<V> mine(t, t->constant(type, scratch + "[" + lid + "]"), t->scope());
  traced<V> other(t, t->constant(type, scratch + "[" + lid + " + " + s + " * " + spacing + "]"), t->scope());
  auto combined = Op{}(mine, other);
  t->statement(scratch + "[" + lid + "] = " + text_of(*t, combined));
  t->close_block();
  t->statement("barrier(CLK_LOCAL_MEM_FENCE)");
  t->close_block();
}

/// How a 2-D reduction's work-items find each term's row and column (trace_full_partials).
enum class index_walk {
  /// A CPU device's block of terms walks whole rows (a plain loop over each row's columns, or
  /// over the rows of a single column); interleaved terms move their row and column along with
  /// the index (step_rows, step_cols), a chain of additions where a 64-bit division per term
  /// would cost more than the load.
  rows_and_steps,
  /// Interleaved terms (a GPU) whose indices fit 32 bits divide each index by cols with an
  /// index_divider, so that their loads do not wait on a chain.
  divided,
};

/// Stage 1 of a 1-D or 2-D reduction: each work-group's terms (interleaved on a GPU, a block
/// per item on a CPU device), reduced in the group, to partials[group]; a 2-D kernel's terms
/// walk as `walk` says (a kernel for each: a GPU's kernel then holds no CPU's loops).
template <bool TwoD, typename Fn, typename Op, kernel_value V, typename... Args>
void trace_full_partials(const std::shared_ptr<kernel_trace>& t, index_walk walk) {
  const std::string type(t->type_name<V>());
  const std::string n = t->scalar_parameter("long", "n");
  const std::string cols = TwoD ? t->scalar_parameter("long", "cols") : std::string();
  const std::string step_rows = TwoD ? t->scalar_parameter("long", "step_rows") : std::string();
  const std::string step_cols = TwoD ? t->scalar_parameter("long", "step_cols") : std::string();
  const std::string magic = TwoD ? t->scalar_parameter("uint", "magic") : std::string();
  const std::string pre = TwoD ? t->scalar_parameter("uint", "pre") : std::string();
  const std::string post = TwoD ? t->scalar_parameter("uint", "post") : std::string();
  const item_parameters items = item_loop_parameters(t);
  const std::string identity = t->scalar_parameter(type, "identity");
  auto arguments = traced_arguments<Args...>(t, traced_launch{});
  const std::string partials = t->pointer_parameter(type, false, codegen::address_space::global, "partials");
  const std::string scratch = local_scratch(t, type);
  const std::string lid = t->constant("long", "get_local_id(0)", "lid");
  const std::string gid = t->constant("long", "get_global_id(0)", "gid");
  traced_var<V> acc(t, t->variable(type, identity, "acc"), t->scope());
  const auto [first, last] = item_range(t, items, "0", gid, n);
  if constexpr (TwoD) {
    if (walk == index_walk::divided) {
      accumulate_range<Op>(t, acc, identity, first, last, items.step, [&](const std::string& x) -> decltype(auto) {
        const std::string y = t->constant("uint", "(uint)" + x, "y");
        const std::string h = t->constant("uint", "mul_hi(" + y + ", " + magic + ")", "h");
        const std::string q =
            t->constant("uint", "(" + h + " + ((" + y + " - " + h + ") >> " + pre + ")) >> " + post, "q");
        return term_at<Fn>(t, arguments, t->constant("long", "(long)" + q, "row"),
                           t->constant("long", "(long)(" + y + " - " + q + " * (uint)" + cols + ")", "col"));
      });
    } else {
      // A block of consecutive terms (a CPU device) over rows that are not tiny: row by row, a
      // plain loop over each row's columns.
      t->open_block("if (" + items.step + " == 1 && " + cols + " >= 16)");
      {
        const std::string row = t->variable("long", first + " / " + cols, "row");
        const std::string col = t->variable("long", first + " - " + row + " * " + cols, "col");
        const std::string x = t->variable("long", first, "x");
        t->open_block("while (" + x + " < " + last + ")");
        const std::string length =
            t->constant("long", "min(" + last + " - " + x + ", " + cols + " - " + col + ")", "length");
        const std::string stop = t->constant("long", col + " + " + length, "stop");
        accumulate_range<Op>(t, acc, identity, col, stop, "1", [&](const std::string& c) -> decltype(auto) {
          return term_at<Fn>(t, arguments, row, c);
        });
        t->statement(x + " += " + length);
        t->statement("++" + row);
        t->statement(col + " = 0");
        t->close_block();
      }
      t->close_block();
      // A block of one column's rows (a CPU device): a plain loop over the rows.
      t->open_block("else if (" + items.step + " == 1 && " + cols + " == 1)");
      accumulate_range<Op>(t, acc, identity, first, last, "1", [&](const std::string& row) -> decltype(auto) {
        return term_at<Fn>(t, arguments, row, "0");
      });
      t->close_block();
      // Otherwise the row and column move along with the index.
      t->open_block("else");
      const std::string row = t->variable("long", "(" + cols + " > 0) ? " + first + " / " + cols + " : 0", "row");
      const std::string col = t->variable("long", first + " - " + row + " * " + cols, "col");
      accumulate_range<Op>(
          t, acc, identity, first, last, items.step,
          [&](const std::string&) -> decltype(auto) {
            return term_at<Fn>(t, arguments, t->constant("long", row, "row"), t->constant("long", col, "col"));
          },
          [&] {
            t->statement(col + " += " + step_cols);
            t->statement(row + " += " + step_rows);
            t->open_block("if (" + col + " >= " + cols + ")");
            t->statement(col + " -= " + cols);
            t->statement("++" + row);
            t->close_block();
          });
      t->close_block();
    }
  } else {
    accumulate_range<Op>(t, acc, identity, first, last, items.step, [&](const std::string& i) -> decltype(auto) {
      return std::apply(
          [&](auto&... a) -> decltype(auto) { return Fn{}(traced<std::int64_t>(t, i, t->scope()), a...); }, arguments);
    });
  }
  reduce_in_work_group<Op>(t, acc, scratch, lid, "get_local_size(0)", lid, "1");
  t->open_block("if (" + lid + " == 0)");
  t->statement(partials + "[get_group_id(0)] = " + scratch + "[0]");
  t->close_block();
}

/// Stage 2 of a 1-D or 2-D reduction: one work-group combines the partials, lane 0 stores
/// finalize(total) to result[0].
template <typename Op, typename Finalize, kernel_value V>
void trace_final_scalar(const std::shared_ptr<kernel_trace>& t) {
  const std::string type(t->type_name<V>());
  const std::string count = t->scalar_parameter("long", "count");
  const std::string identity = t->scalar_parameter(type, "identity");
  const std::string partials = t->pointer_parameter(type, true, codegen::address_space::global, "partials");
  const std::string result = t->pointer_parameter(type, false, codegen::address_space::global, "result");
  const std::string scratch = local_scratch(t, type);
  const std::string lid = t->constant("long", "get_local_id(0)", "lid");
  traced_var<V> acc(t, t->variable(type, identity, "acc"), t->scope());
  const std::string k = t->fresh_name("k");
  t->open_block("for (long " + k + " = " + lid + "; " + k + " < " + count + "; " + k + " += get_local_size(0))");
  accumulate<Op>(acc, traced<V>(t, t->constant(type, partials + "[" + k + "]"), t->scope()));
  t->close_block();
  reduce_in_work_group<Op>(t, acc, scratch, lid, "get_local_size(0)", lid, "1");
  t->open_block("if (" + lid + " == 0)");
  auto final_value = Finalize{}(traced<V>(t, t->constant(type, scratch + "[0]"), t->scope()));
  t->statement(result + "[0] = " + text_of(*t, final_value));
  t->close_block();
}

/// Stage 2 of row and column reductions: `lanes` work-items per output combine every
/// lanes-th of its parts (partials[o * output_step + p * part_step]), a tree combines the
/// lanes, and lane 0 stores finalize(total). With parts_fastest the lanes of an output are
/// neighbours (its parts are contiguous: row reductions), else the outputs are (column
/// reductions), so that neighbouring items read neighbouring partials either way.
template <typename Op, typename Finalize, kernel_value V>
void trace_final_per_output(const std::shared_ptr<kernel_trace>& t) {
  const std::string type(t->type_name<V>());
  const std::string outputs = t->scalar_parameter("long", "outputs");
  const std::string parts = t->scalar_parameter("long", "parts");
  const std::string output_step = t->scalar_parameter("long", "output_step");
  const std::string part_step = t->scalar_parameter("long", "part_step");
  const std::string lanes = t->scalar_parameter("long", "lanes");
  const std::string parts_fastest = t->scalar_parameter("long", "parts_fastest");
  const std::string identity = t->scalar_parameter(type, "identity");
  const std::string partials = t->pointer_parameter(type, true, codegen::address_space::global, "partials");
  const std::string result = t->pointer_parameter(type, false, codegen::address_space::global, "result");
  const std::string result_stride = t->scalar_parameter("long", "result_stride");
  const std::string scratch = local_scratch(t, type);
  const std::string lid = t->constant("long", "get_local_id(0)", "lid");
  const std::string per_group = t->constant("long", "(long)get_local_size(0) / " + lanes, "per_group");
  const std::string lane = t->constant("long", parts_fastest + " ? " + lid + " % " + lanes + " : " + lid + " / " + per_group, "lane");
  const std::string slot = t->constant("long", parts_fastest + " ? " + lid + " / " + lanes + " : " + lid + " % " + per_group, "slot");
  const std::string spacing = t->constant("long", parts_fastest + " ? 1 : " + per_group, "spacing");
  const std::string o = t->constant("long", "(long)get_group_id(0) * " + per_group + " + " + slot, "o");
  traced_var<V> acc(t, t->variable(type, identity, "acc"), t->scope());
  t->open_block("if (" + o + " < " + outputs + ")");
  accumulate_range<Op>(t, acc, identity, lane, parts, lanes, [&](const std::string& p) {
    return traced<V>(t, t->constant(type, partials + "[" + o + " * " + output_step + " + " + p + " * " + part_step + "]"),
                     t->scope());
  });
  t->close_block();
  reduce_in_work_group<Op>(t, acc, scratch, lid, lanes, lane, spacing);
  t->open_block("if (" + lane + " == 0 && " + o + " < " + outputs + ")");
  auto final_value = Finalize{}(traced<V>(t, t->constant(type, scratch + "[" + lid + "]"), t->scope()));
  t->statement(result + "[" + o + " * " + result_stride + "] = " + text_of(*t, final_value));
  t->close_block();
}

/// Stage 1 of a row reduction: `lanes` work-items per row take one part of its columns, a tree
/// combines them; the row's value goes to result when there is one part, else to
/// partials[row * parts + part].
template <typename Fn, typename Op, typename Finalize, kernel_value V, typename... Args>
void trace_row_partials(const std::shared_ptr<kernel_trace>& t) {
  const std::string type(t->type_name<V>());
  const std::string rows = t->scalar_parameter("long", "rows");
  const std::string cols = t->scalar_parameter("long", "cols");
  const std::string lanes = t->scalar_parameter("long", "lanes");
  const std::string parts = t->scalar_parameter("long", "parts");
  const std::string part_length = t->scalar_parameter("long", "part_length");
  const item_parameters items = item_loop_parameters(t);
  const std::string identity = t->scalar_parameter(type, "identity");
  auto arguments = traced_arguments<Args...>(t, traced_launch{});
  const std::string partials = t->pointer_parameter(type, false, codegen::address_space::global, "partials");
  const std::string result = t->pointer_parameter(type, false, codegen::address_space::global, "result");
  const std::string result_stride = t->scalar_parameter("long", "result_stride");
  const std::string finish = t->scalar_parameter("long", "finish");
  const std::string scratch = local_scratch(t, type);
  const std::string lid = t->constant("long", "get_local_id(0)", "lid");
  const std::string lane = t->constant("long", lid + " % " + lanes, "lane");
  const std::string row =
      t->constant("long", "(long)get_group_id(0) * ((long)get_local_size(0) / " + lanes + ") + " + lid + " / " + lanes, "row");
  const std::string part = t->constant("long", "get_group_id(1)", "part");
  traced_var<V> acc(t, t->variable(type, identity, "acc"), t->scope());
  t->open_block("if (" + row + " < " + rows + ")");
  const std::string begin = t->constant("long", part + " * " + part_length, "begin");
  const std::string end = t->constant("long", "min(" + cols + ", " + begin + " + " + part_length + ")", "end");
  const auto [first, last] = item_range(t, items, begin, lane, end);
  accumulate_range<Op>(
      t, acc, identity, first, last, items.step,
      [&](const std::string& col) -> decltype(auto) { return term_at<Fn>(t, arguments, row, col); }, [] {},
      gpu_reduction_tuning().row_unroll);
  t->close_block();
  reduce_in_work_group<Op>(t, acc, scratch, lid, lanes, lane, "1");
  t->open_block("if (" + lane + " == 0 && " + row + " < " + rows + ")");
  store_output<Finalize, V>(t, scratch + "[" + lid + "]", finish, result + "[" + row + " * " + result_stride + "]",
                            partials + "[" + row + " * " + parts + " + " + part + "]");
  t->close_block();
}

/// Stage 1 of a row reduction with one work-item per row: each item reduces rows_per_item rows
/// (or one part of each), in batches of row_batch read together, alone: no tree, no barrier. Item i takes rows
/// i * first_row_step + k * row_step: a block of consecutive rows on a CPU device (contiguous
/// reads), rows a grid apart on a GPU (neighbouring items read neighbouring rows).
template <typename Fn, typename Op, typename Finalize, kernel_value V, typename... Args>
void trace_row_blocks(const std::shared_ptr<kernel_trace>& t) {
  const std::string type(t->type_name<V>());
  const std::string rows = t->scalar_parameter("long", "rows");
  const std::string cols = t->scalar_parameter("long", "cols");
  const std::string parts = t->scalar_parameter("long", "parts");
  const std::string part_length = t->scalar_parameter("long", "part_length");
  const std::string rows_per_item = t->scalar_parameter("long", "rows_per_item");
  const std::string first_row_step = t->scalar_parameter("long", "first_row_step");
  const std::string row_step = t->scalar_parameter("long", "row_step");
  const std::string identity = t->scalar_parameter(type, "identity");
  auto arguments = traced_arguments<Args...>(t, traced_launch{});
  const std::string partials = t->pointer_parameter(type, false, codegen::address_space::global, "partials");
  const std::string result = t->pointer_parameter(type, false, codegen::address_space::global, "result");
  const std::string result_stride = t->scalar_parameter("long", "result_stride");
  const std::string finish = t->scalar_parameter("long", "finish");
  const std::string part = t->constant("long", "get_group_id(1)", "part");
  const std::string begin = t->constant("long", part + " * " + part_length, "begin");
  const std::string end = t->constant("long", "min(" + cols + ", " + begin + " + " + part_length + ")", "end");
  const std::string first_row = t->constant("long", "(long)get_global_id(0) * " + first_row_step, "first_row");
  // On a GPU (rows a grid apart, row_step > 1), batches of row_batch rows, read together (one
  // accumulator per row, the rows' loads in flight at once); rows past the last read the last
  // row and store nothing. A CPU device reads its rows one by one: a batch would walk eight
  // rows at once, eight streams where one is faster (PoCL: half the speed at 65536 x 256).
  const std::string k = t->variable("long", "0", "k");
  const std::string batch = std::to_string(row_batch);
  t->open_block("for (; " + row_step + " > 1 && " + k + " + " + batch + " - 1 < " + rows_per_item + "; " + k +
                " += " + batch + ")");
  {
    std::vector<std::string> row, read_row;
    std::vector<traced_var<V>> acc;
    acc.reserve(row_batch);  // a copied traced_var would be a new variable
    for (std::size_t j = 0; j < row_batch; ++j) {
      row.push_back(t->constant("long", first_row + " + (" + k + " + " + std::to_string(j) + ") * " + row_step, "row"));
      if (j == 0) t->statement("if (" + row[0] + " >= " + rows + ") break");
      read_row.push_back(t->constant("long", "min(" + row[j] + ", " + rows + " - 1)", "read_row"));
      acc.emplace_back(t, t->variable(type, identity, "acc"), t->scope());
    }
    const std::string col = t->fresh_name("col");
    t->open_block("for (long " + col + " = " + begin + "; " + col + " < " + end + "; ++" + col + ")");
    for (std::size_t j = 0; j < row_batch; ++j) accumulate<Op>(acc[j], term_at<Fn>(t, arguments, read_row[j], col));
    t->close_block();
    for (std::size_t j = 0; j < row_batch; ++j) {
      t->open_block("if (" + row[j] + " < " + rows + ")");
      store_output<Finalize, V>(t, acc[j].checked_text(), finish, result + "[" + row[j] + " * " + result_stride + "]",
                                partials + "[" + row[j] + " * " + parts + " + " + part + "]");
      t->close_block();
    }
  }
  t->close_block();
  // The rest one by one, with cpu_row_unroll accumulators along the row (neighbouring terms: a
  // CPU compiler may load them as one vector).
  t->open_block("for (; " + k + " < " + rows_per_item + "; ++" + k + ")");
  const std::string row = t->constant("long", first_row + " + " + k + " * " + row_step, "row");
  t->statement("if (" + row + " >= " + rows + ") break");
  traced_var<V> acc(t, t->variable(type, identity, "acc"), t->scope());
  accumulate_range<Op>(
      t, acc, identity, begin, end, "1",
      [&](const std::string& col) -> decltype(auto) { return term_at<Fn>(t, arguments, row, col); }, [] {},
      cpu_row_unroll);
  store_output<Finalize, V>(t, acc.checked_text(), finish, result + "[" + row + " * " + result_stride + "]",
                            partials + "[" + row + " * " + parts + " + " + part + "]");
  t->close_block();
}

/// A row reduction of one column or a column reduction of one row: every output has one term,
/// so the reduction is a map, result[o * result_stride] = finalize(op(identity, term)). Item i
/// takes outputs i * first_step + k * step for k < per_item: a batch a grid apart on a GPU
/// (read together, then written; neighbouring items take neighbouring outputs), a contiguous
/// block on a CPU device (a loop it can vectorize; a CPU device pays for every work-group, so
/// it gets few).
template <bool ByRow, typename Fn, typename Op, typename Finalize, kernel_value V, typename... Args>
void trace_single_terms(const std::shared_ptr<kernel_trace>& t) {
  const std::string type(t->type_name<V>());
  const std::string outputs = t->scalar_parameter("long", "outputs");
  const std::string per_item = t->scalar_parameter("long", "per_item");
  const std::string first_step = t->scalar_parameter("long", "first_step");
  const std::string step = t->scalar_parameter("long", "step");
  const std::string identity = t->scalar_parameter(type, "identity");
  auto arguments = traced_arguments<Args...>(t, traced_launch{});
  const std::string result = t->pointer_parameter(type, false, codegen::address_space::global, "result");
  const std::string result_stride = t->scalar_parameter("long", "result_stride");
  const std::string first = t->constant("long", "(long)get_global_id(0) * " + first_step, "first");
  const std::string last = t->constant("long", "min(" + outputs + ", " + first + " + " + per_item + " * " + step + ")", "last");
  auto one_output = [&](const std::string& o) {
    traced_var<V> acc(t, t->variable(type, identity, "acc"), t->scope());
    accumulate<Op>(acc, ByRow ? term_at<Fn>(t, arguments, o, "0") : term_at<Fn>(t, arguments, "0", o));
    return Finalize{}(traced<V>(acc.trace(), acc.checked_text(), acc.scope()));
  };
  // A GPU item's outputs (a grid apart): all read first, then all stored, so that its loads
  // are in flight together (a store may alias a later load, so the compiler cannot hoist it).
  t->open_block("if (" + step + " > 1 && " + per_item + " == " + std::to_string(single_term_batch) + ")");
  {
    std::vector<std::string> o, value;
    for (std::size_t j = 0; j < single_term_batch; ++j) {
      o.push_back(t->constant("long", first + " + " + std::to_string(j) + " * " + step, "o"));
      const std::string read = t->constant("long", "min(" + o[j] + ", " + outputs + " - 1)", "read");
      value.push_back(t->constant(type, text_of(*t, one_output(read)), "value"));
    }
    for (std::size_t j = 0; j < single_term_batch; ++j)
      t->statement("if (" + o[j] + " < " + outputs + ") " + result + "[" + o[j] + " * " + result_stride +
                   "] = " + value[j]);
  }
  t->close_block();
  // A CPU item's outputs: a contiguous block, one loop.
  t->open_block("else");
  const std::string o = t->fresh_name("o");
  t->open_block("for (long " + o + " = " + first + "; " + o + " < " + last + "; " + o + " += " + step + ")");
  t->statement(result + "[" + o + " * " + result_stride + "] = " + text_of(*t, one_output(o)));
  t->close_block();
  t->close_block();
}

/// Stage 1 of a column reduction: each group covers `lanes` columns; its row lanes take one part
/// of the rows (from part * part_length below part * part_length + part_extent, every step-th:
/// consecutive rows, or rows interleaved with the other parts'; reduction_layout), a tree
/// combines them; the column's value goes to result when there is one part, else to
/// partials[part * cols + col]. `lanes` (columns_per_group) is a number in the text, one kernel for
/// each: the compiler then knows a lane's column and row lane as a mask and a shift and keeps
/// fewer registers (H200, column sums of 2^26 floats: 0.82-0.86x the copy with lanes a parameter
/// divided in 32 bits, 0.88-0.95 with lanes a number; benchmark/unified/column_probe).
template <typename Fn, typename Op, typename Finalize, kernel_value V, typename... Args>
void trace_col_partials(const std::shared_ptr<kernel_trace>& t, std::size_t columns_per_group) {
  const std::string type(t->type_name<V>());
  const std::string rows = t->scalar_parameter("long", "rows");
  const std::string cols = t->scalar_parameter("long", "cols");
  const std::string parts = t->scalar_parameter("long", "parts");
  const std::string part_length = t->scalar_parameter("long", "part_length");
  const std::string part_extent = t->scalar_parameter("long", "part_extent");
  const item_parameters items = item_loop_parameters(t);
  const std::string identity = t->scalar_parameter(type, "identity");
  auto arguments = traced_arguments<Args...>(t, traced_launch{});
  const std::string partials = t->pointer_parameter(type, false, codegen::address_space::global, "partials");
  const std::string result = t->pointer_parameter(type, false, codegen::address_space::global, "result");
  const std::string finish = t->scalar_parameter("long", "finish");
  const std::string col_groups = t->scalar_parameter("long", "col_groups");
  const std::string scratch = local_scratch(t, type);
  const std::string lanes = t->constant("long", std::to_string(columns_per_group), "lanes");
  const std::string lid = t->constant("long", "get_local_id(0)", "lid");
  // In 32 bits, unsigned (work-item numbers): with lanes a number, the best the H200 gave (a
  // signed 64-bit division by the same number: 0.86x the copy for sums, 0.42 for maxima).
  const std::string row_lane = t->constant("long", "(long)((uint)" + lid + " / (uint)" + lanes + ")", "row_lane");
  const std::string row_lanes = t->constant("long", "(long)((uint)get_local_size(0) / (uint)" + lanes + ")", "row_lanes");
  const std::string part = t->constant("long", "get_group_id(1)", "part");
  // Many columns: each group takes every num_groups-th block of columns (a group's set-up is
  // then paid once for many columns, which matters when columns are short).
  const std::string block = t->fresh_name("block");
  t->open_block("for (long " + block + " = get_group_id(0); " + block + " < " + col_groups + "; " + block +
                " += get_num_groups(0))");
  const std::string col =
      t->constant("long", block + " * " + lanes + " + (long)((uint)" + lid + " % (uint)" + lanes + ")", "col");
  traced_var<V> acc(t, t->variable(type, identity, "acc"), t->scope());
  t->open_block("if (" + col + " < " + cols + ")");
  const std::string begin = t->constant("long", part + " * " + part_length, "begin");
  const std::string end = t->constant("long", "min(" + rows + ", " + begin + " + " + part_extent + ")", "end");
  const auto [first, last] = item_range(t, items, begin, row_lane, end);
  accumulate_range<Op>(
      t, acc, identity, first, last, items.step,
      [&](const std::string& row) -> decltype(auto) { return term_at<Fn>(t, arguments, row, col); }, [] {},
      gpu_reduction_tuning().col_unroll);
  t->close_block();
  reduce_in_work_group<Op>(t, acc, scratch, lid, row_lanes, row_lane, lanes);
  t->open_block("if (" + row_lane + " == 0 && " + col + " < " + cols + ")");
  store_output<Finalize, V>(t, scratch + "[" + lid + "]", finish, result + "[" + col + "]",
                            partials + "[" + part + " * " + cols + " + " + col + "]");
  t->close_block();
  t->close_block();
}

/// What both kernels of column blocks (trace_col_blocks, trace_col_block_arrays) declare, in
/// their launch order: rows, cols, parts, part_length, first_col_step, `spread` (the kernel's own
/// scalar: col_step or block), identity; then (declare_outputs, after the traced arguments) the
/// partials, the result and finish, and the item's first column and part's rows [begin, end).
struct col_block_names {
  std::string type, rows, cols, part_length, first_col_step, spread, identity;
  std::string partials, result, finish, first_col, part, begin, end;
};
template <kernel_value V>
col_block_names declare_col_block_scalars(const std::shared_ptr<kernel_trace>& t, const std::string& spread) {
  col_block_names n;
  n.type = t->type_name<V>();
  n.rows = t->scalar_parameter("long", "rows");
  n.cols = t->scalar_parameter("long", "cols");
  t->scalar_parameter("long", "parts");
  n.part_length = t->scalar_parameter("long", "part_length");
  n.first_col_step = t->scalar_parameter("long", "first_col_step");
  n.spread = t->scalar_parameter("long", spread);
  n.identity = t->scalar_parameter(n.type, "identity");
  return n;
}
inline void declare_col_block_outputs(const std::shared_ptr<kernel_trace>& t, col_block_names& n) {
  n.partials = t->pointer_parameter(n.type, false, codegen::address_space::global, "partials");
  n.result = t->pointer_parameter(n.type, false, codegen::address_space::global, "result");
  n.finish = t->scalar_parameter("long", "finish");
  n.first_col = t->constant("long", "(long)get_global_id(0) * " + n.first_col_step, "first_col");
  n.part = t->constant("long", "get_group_id(1)", "part");
  n.begin = t->constant("long", n.part + " * " + n.part_length, "begin");
  n.end = t->constant("long", "min(" + n.rows + ", " + n.begin + " + " + n.part_length + ")", "end");
}

/// Stage 1 of a GPU's column reduction of many short columns by column blocks: each work-item
/// adds `Columns` columns (item i: i * first_col_step + j * col_step), one accumulator each,
/// walking down the rows of its part, with no tree and no barrier. The columns are a grid apart:
/// neighbouring items read neighbouring columns, and each item has Columns loads in flight.
/// Each column's terms are added in row order. (A CPU device's blocks: trace_col_block_arrays.)
template <std::size_t Columns, typename Fn, typename Op, typename Finalize, kernel_value V, typename... Args>
void trace_col_blocks(const std::shared_ptr<kernel_trace>& t) {
  col_block_names n = declare_col_block_scalars<V>(t, "col_step");
  auto arguments = traced_arguments<Args...>(t, traced_launch{});
  declare_col_block_outputs(t, n);
  const std::string &type = n.type, &cols = n.cols, &col_step = n.spread, &identity = n.identity;
  const std::string &partials = n.partials, &result = n.result, &finish = n.finish, &first_col = n.first_col,
                    &part = n.part, &begin = n.begin, &end = n.end;
  std::vector<std::string> col;
  std::vector<traced_var<V>> acc;
  acc.reserve(Columns);  // a copied traced_var would be a new variable
  for (std::size_t j = 0; j < Columns; ++j) {
    col.push_back(t->constant("long", first_col + " + " + std::to_string(j) + " * " + col_step, "col"));
    acc.emplace_back(t, t->variable(type, identity, "acc"), t->scope());
  }
  auto walk_rows = [&](bool guarded) {
    const std::string row = t->fresh_name("row");
    t->open_block("for (long " + row + " = " + begin + "; " + row + " < " + end + "; ++" + row + ")");
    for (std::size_t j = 0; j < Columns; ++j) {
      if (guarded) t->open_block("if (" + col[j] + " < " + cols + ")");
      accumulate<Op>(acc[j], term_at<Fn>(t, arguments, row, col[j]));
      if (guarded) t->close_block();
    }
    t->close_block();
  };
  // Whole blocks without a test per term; the last, partial block with one.
  t->open_block("if (" + col[Columns - 1] + " < " + cols + ")");
  walk_rows(false);
  t->close_block();
  t->open_block("else if (" + first_col + " < " + cols + ")");
  walk_rows(true);
  t->close_block();
  for (std::size_t j = 0; j < Columns; ++j) {
    t->open_block("if (" + col[j] + " < " + cols + ")");
    store_output<Finalize, V>(t, acc[j].checked_text(), finish, result + "[" + col[j] + "]",
                              partials + "[" + part + " * " + cols + " + " + col[j] + "]");
    t->close_block();
  }
}

/// Stage 1 of a CPU device's column reduction by column blocks (reduction_layout::column_arrays):
/// each work-item adds the `block` neighbouring columns from get_global_id(0) * first_col_step
/// (block <= cpu_block_columns, a kernel argument), one accumulator each in an array, walking
/// down the rows of its part: each row's block is one contiguous run, which the compiler reads
/// and adds as vectors. cpu_block_rows_per_step rows a step, each column's accumulator held in a
/// variable across them, then the rows left one by one: each column's terms are added in row
/// order, as a row a step would add them.
template <typename Fn, typename Op, typename Finalize, kernel_value V, typename... Args>
void trace_col_block_arrays(const std::shared_ptr<kernel_trace>& t) {
  col_block_names n = declare_col_block_scalars<V>(t, "block");
  auto arguments = traced_arguments<Args...>(t, traced_launch{});
  declare_col_block_outputs(t, n);
  const std::string &type = n.type, &cols = n.cols, &block = n.spread, &identity = n.identity;
  const std::string &partials = n.partials, &result = n.result, &finish = n.finish, &first_col = n.first_col,
                    &part = n.part, &begin = n.begin, &end = n.end;
  // The item's columns: block, or fewer in the last block.
  const std::string width =
      t->constant("long", "max(0L, min(" + block + ", " + cols + " - " + first_col + "))", "width");
  const std::string acc = t->fresh_name("acc");
  t->statement(type + " " + acc + "[" + std::to_string(cpu_block_columns) + "]");
  const auto over_columns = [&](const std::string& count, auto&& body) {
    const std::string c = t->fresh_name("c");
    t->open_block("for (long " + c + " = 0; " + c + " < " + count + "; ++" + c + ")");
    body(c);
    t->close_block();
  };
  over_columns(width, [&](const std::string& c) { t->statement(acc + "[" + c + "] = " + identity); });
  const std::string row = t->fresh_name("row");
  t->statement("long " + row + " = " + begin);
  // `step` rows at a time while that many are left; for step > 1 each column's accumulator is
  // held in a variable across them.
  const auto walk_rows = [&](std::size_t step) {
    t->open_block(step == 1 ? "for (; " + row + " < " + end + "; ++" + row + ")"
                            : "for (; " + row + " < " + end + " - " + std::to_string(step - 1) + "; " + row +
                                  " += " + std::to_string(step) + ")");
    over_columns(width, [&](const std::string& c) {
      const std::string col = t->constant("long", first_col + " + " + c, "col");
      const std::string element = acc + "[" + c + "]";
      traced_var<V> held(t, step == 1 ? element : t->variable(type, element, "held"), t->scope());
      for (std::size_t u = 0; u < step; ++u)
        accumulate<Op>(held, term_at<Fn>(t, arguments,
                                          step == 1 ? row : t->constant("long", row + " + " + std::to_string(u), "r"),
                                          col));
      if (step > 1) t->statement(element + " = " + held.checked_text());
    });
    t->close_block();
  };
  walk_rows(cpu_block_rows_per_step);
  walk_rows(1);
  over_columns(width, [&](const std::string& c) {
    const std::string col = t->constant("long", first_col + " + " + c, "col");
    store_output<Finalize, V>(t, acc + "[" + c + "]", finish, result + "[" + col + "]",
                              partials + "[" + part + " * " + cols + " + " + col + "]");
  });
}

}  // namespace tessera::unified::detail
