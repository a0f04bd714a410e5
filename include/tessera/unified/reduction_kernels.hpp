#pragma once
// The OpenCL C of the reductions, traced: stage 1 (each work-group reduces its terms into a
// partial result) for 1-D/2-D, row and column reductions, and the final passes that combine
// partials and apply finalize. The user's fn, op and finalize are traced into them like any
// kernel lambda; reduction.hpp launches them.
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

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

/// The loop over one work-item's terms (see reduction_layout): opens
/// `for (long x = first; x < last; x += step)` and returns x.
inline std::string open_item_loop(const std::shared_ptr<kernel_trace>& t, const std::string& base,
                                  const std::string& index, const std::string& end, const char* name) {
  const std::string chunk = t->scalar_parameter("long", "chunk");
  const std::string span = t->scalar_parameter("long", "span");
  const std::string step = t->scalar_parameter("long", "step");
  const std::string first = t->constant("long", base + " + " + index + " * " + chunk, "first");
  const std::string last = t->constant("long", "min(" + end + ", " + first + " + " + span + ")", "last");
  const std::string x = t->fresh_name(name);
  t->open_block("for (long " + x + " = " + first + "; " + x + " < " + last + "; " + x + " += " + step + ")");
  return x;
}

/// The chunk, span and step parameters of open_item_loop.
inline std::tuple<std::int64_t, std::int64_t, std::int64_t> item_loop(const reduction_layout& layout) {
  return {static_cast<std::int64_t>(layout.chunk), static_cast<std::int64_t>(layout.span),
          static_cast<std::int64_t>(layout.step)};
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

/// Stage 1 of a 1-D or 2-D reduction: each work-group's grid-stride terms, reduced in the
/// group, to partials[group].
template <bool TwoD, typename Fn, typename Op, kernel_value V, typename... Args>
void trace_full_partials(const std::shared_ptr<kernel_trace>& t) {
  const std::string type(t->type_name<V>());
  const std::string n = t->scalar_parameter("long", "n");
  const std::string cols = TwoD ? t->scalar_parameter("long", "cols") : std::string();
  const std::string identity = t->scalar_parameter(type, "identity");
  auto arguments = traced_arguments<Args...>(t, traced_launch{});
  const std::string partials = t->pointer_parameter(type, false, codegen::address_space::global, "partials");
  const std::string scratch = local_scratch(t, type);
  const std::string lid = t->constant("long", "get_local_id(0)", "lid");
  const std::string gid = t->constant("long", "get_global_id(0)", "gid");
  traced_var<V> acc(t, t->variable(type, identity, "acc"), t->scope());
  const std::string i = open_item_loop(t, "0", gid, n, "i");
  if constexpr (TwoD) {
    const std::string row = t->constant("long", i + " / " + cols, "row");
    const std::string col = t->constant("long", i + " - " + row + " * " + cols, "col");
    auto&& term = std::apply(
        [&](auto&... a) -> decltype(auto) {
          return Fn{}(traced<std::int64_t>(t, row, t->scope()), traced<std::int64_t>(t, col, t->scope()), a...);
        },
        arguments);
    accumulate<Op>(acc, std::forward<decltype(term)>(term));
  } else {
    auto&& term = std::apply(
        [&](auto&... a) -> decltype(auto) { return Fn{}(traced<std::int64_t>(t, i, t->scope()), a...); }, arguments);
    accumulate<Op>(acc, std::forward<decltype(term)>(term));
  }
  t->close_block();
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

/// Stage 2 of row and column reductions: one work-item per output combines its parts
/// (partials[o * output_step + p * part_step]) and stores finalize(total).
template <typename Op, typename Finalize, kernel_value V>
void trace_final_per_output(const std::shared_ptr<kernel_trace>& t) {
  const std::string type(t->type_name<V>());
  const std::string outputs = t->scalar_parameter("long", "outputs");
  const std::string parts = t->scalar_parameter("long", "parts");
  const std::string output_step = t->scalar_parameter("long", "output_step");
  const std::string part_step = t->scalar_parameter("long", "part_step");
  const std::string identity = t->scalar_parameter(type, "identity");
  const std::string partials = t->pointer_parameter(type, true, codegen::address_space::global, "partials");
  const std::string result = t->pointer_parameter(type, false, codegen::address_space::global, "result");
  const std::string result_stride = t->scalar_parameter("long", "result_stride");
  const std::string o = t->constant("long", "get_global_id(0)", "o");
  t->open_block("if (" + o + " < " + outputs + ")");
  traced_var<V> acc(t, t->variable(type, identity, "acc"), t->scope());
  const std::string p = t->fresh_name("p");
  t->open_block("for (long " + p + " = 0; " + p + " < " + parts + "; ++" + p + ")");
  accumulate<Op>(acc, traced<V>(t,
                                t->constant(type, partials + "[" + o + " * " + output_step + " + " + p + " * " +
                                                      part_step + "]"),
                                t->scope()));
  t->close_block();
  auto final_value = Finalize{}(traced<V>(acc.trace(), acc.checked_text(), acc.scope()));
  t->statement(result + "[" + o + " * " + result_stride + "] = " + text_of(*t, final_value));
  t->close_block();
}

/// Stage 1 of a row reduction: `lanes` work-items per row stride over one part of its columns.
template <typename Fn, typename Op, kernel_value V, typename... Args>
void trace_row_partials(const std::shared_ptr<kernel_trace>& t) {
  const std::string type(t->type_name<V>());
  const std::string rows = t->scalar_parameter("long", "rows");
  const std::string cols = t->scalar_parameter("long", "cols");
  const std::string lanes = t->scalar_parameter("long", "lanes");
  const std::string parts = t->scalar_parameter("long", "parts");
  const std::string part_length = t->scalar_parameter("long", "part_length");
  const std::string identity = t->scalar_parameter(type, "identity");
  auto arguments = traced_arguments<Args...>(t, traced_launch{});
  const std::string partials = t->pointer_parameter(type, false, codegen::address_space::global, "partials");
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
  const std::string col = open_item_loop(t, begin, lane, end, "col");
  auto&& term = std::apply(
      [&](auto&... a) -> decltype(auto) {
        return Fn{}(traced<std::int64_t>(t, row, 0), traced<std::int64_t>(t, col, t->scope()), a...);
      },
      arguments);
  accumulate<Op>(acc, std::forward<decltype(term)>(term));
  t->close_block();
  t->close_block();
  reduce_in_work_group<Op>(t, acc, scratch, lid, lanes, lane, "1");
  t->open_block("if (" + lane + " == 0 && " + row + " < " + rows + ")");
  t->statement(partials + "[" + row + " * " + parts + " + " + part + "] = " + scratch + "[" + lid + "]");
  t->close_block();
}

/// Stage 1 of a column reduction: each group covers `lanes` columns; its row lanes stride over
/// one part of the rows.
template <typename Fn, typename Op, kernel_value V, typename... Args>
void trace_col_partials(const std::shared_ptr<kernel_trace>& t) {
  const std::string type(t->type_name<V>());
  const std::string rows = t->scalar_parameter("long", "rows");
  const std::string cols = t->scalar_parameter("long", "cols");
  const std::string lanes = t->scalar_parameter("long", "lanes");
  const std::string parts = t->scalar_parameter("long", "parts");
  const std::string part_length = t->scalar_parameter("long", "part_length");
  const std::string identity = t->scalar_parameter(type, "identity");
  auto arguments = traced_arguments<Args...>(t, traced_launch{});
  const std::string partials = t->pointer_parameter(type, false, codegen::address_space::global, "partials");
  const std::string scratch = local_scratch(t, type);
  const std::string lid = t->constant("long", "get_local_id(0)", "lid");
  const std::string row_lane = t->constant("long", lid + " / " + lanes, "row_lane");
  const std::string row_lanes = t->constant("long", "(long)get_local_size(0) / " + lanes, "row_lanes");
  const std::string col =
      t->constant("long", "(long)get_group_id(0) * " + lanes + " + " + lid + " % " + lanes, "col");
  const std::string part = t->constant("long", "get_group_id(1)", "part");
  traced_var<V> acc(t, t->variable(type, identity, "acc"), t->scope());
  t->open_block("if (" + col + " < " + cols + ")");
  const std::string begin = t->constant("long", part + " * " + part_length, "begin");
  const std::string end = t->constant("long", "min(" + rows + ", " + begin + " + " + part_length + ")", "end");
  const std::string row = open_item_loop(t, begin, row_lane, end, "row");
  auto&& term = std::apply(
      [&](auto&... a) -> decltype(auto) {
        return Fn{}(traced<std::int64_t>(t, row, t->scope()), traced<std::int64_t>(t, col, 0), a...);
      },
      arguments);
  accumulate<Op>(acc, std::forward<decltype(term)>(term));
  t->close_block();
  t->close_block();
  reduce_in_work_group<Op>(t, acc, scratch, lid, row_lanes, row_lane, lanes);
  t->open_block("if (" + row_lane + " == 0 && " + col + " < " + cols + ")");
  t->statement(partials + "[" + part + " * " + cols + " + " + col + "] = " + scratch + "[" + lid + "]");
  t->close_block();
}

}  // namespace tessera::unified::detail
