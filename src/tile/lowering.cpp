#include <tessera/tile/lowering.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include <tessera/codegen/kernel_builder.hpp>
#include <tessera/codegen/substitute.hpp>
#include <tessera/codegen/type_names.hpp>

namespace tessera::tile {

namespace {

using codegen::kernel_builder;

// Work items per group the launch range is rounded to; kernels test gid against the count.
constexpr std::size_t launch_granularity = 64;

struct group {
  enum class kind { contraction, matmul, elementwise };
  kind what = kind::elementwise;
  std::optional<std::size_t> contraction;  // statement
  std::optional<gemm_call> gemm;
  std::vector<std::size_t> elementwise;    // statements, in order
};

std::size_t output_of(const statement& s) {
  if (const auto* c = std::get_if<contraction>(&s)) return c->output;
  return std::get<elementwise>(s).output;
}

void collect_reads(const value_expression& v, std::vector<std::size_t>& out) {
  if (v.what == value_expression::kind::tensor) out.push_back(v.id);
  for (const auto& operand : v.operands) collect_reads(operand, out);
}

std::size_t operation_count(const value_expression& v) {
  std::size_t count = 1;
  for (const auto& operand : v.operands) count += operation_count(operand);
  return count;
}

std::vector<std::size_t> reads_of(const statement& s) {
  std::vector<std::size_t> out;
  if (const auto* c = std::get_if<contraction>(&s)) {
    for (const auto& use : c->operands) out.push_back(use.tensor);
  } else {
    collect_reads(std::get<elementwise>(s).value, out);
  }
  return out;
}

/// Text of an integer expression sum a_i * names_i + constant, parenthesized.
std::string linear_text(const std::vector<std::pair<std::int64_t, std::string>>& terms, std::int64_t constant) {
  std::string out;
  for (const auto& [a, name] : terms) {
    if (a == 0) continue;
    const std::int64_t m = a < 0 ? -a : a;
    if (out.empty()) out += a < 0 ? "-" : "";
    else out += a < 0 ? " - " : " + ";
    out += m == 1 ? name : fmt::format("{}*{}", m, name);
  }
  if (out.empty()) return fmt::format("{}", constant);
  if (constant != 0) out += fmt::format(" {} {}", constant < 0 ? "-" : "+", constant < 0 ? -constant : constant);
  return "(" + out + ")";
}

/// Emits the elementwise statements of a group at one element: coordinates name the element's
/// index per axis of the group's shape, element its row-major position.
class element_emitter {
 public:
  element_emitter(kernel_builder& kb, const program& p, const lowered_program& lp, std::string type,
                  bool single_precision)
      : kb_(kb), p_(p), lp_(lp), type_(std::move(type)), single_(single_precision) {}

  /// Buffer parameter of a tensor read from memory (added by the caller).
  std::map<std::size_t, std::string> inputs;
  /// Values already in registers at this element (the group's own results).
  std::map<std::size_t, std::string> locals;

  void set_element(std::vector<std::string> coordinates, std::string element, const shape& iteration) {
    coordinates_ = std::move(coordinates);
    element_ = std::move(element);
    iteration_ = iteration;
  }

  std::string literal(double v) const { return codegen::float_literal(v, single_); }

  std::string read(std::size_t tensor) const {
    if (const auto it = locals.find(tensor); it != locals.end()) return it->second;
    const tensor_layout& layout = lp_.layouts[tensor];
    const std::string& buffer = inputs.at(tensor);
    const std::int64_t count = element_count(layout.dims);
    if (count == 1) return fmt::format("{}[{}]", buffer, layout.offset);
    if (layout.dims == iteration_ && layout.strides == row_major_strides(layout.dims)) {
      return layout.offset == 0 ? fmt::format("{}[{}]", buffer, element_)
                                : fmt::format("{}[{} + {}]", buffer, element_, layout.offset);
    }
    // Broadcast: axes align at the end; an axis of size 1 stays at 0.
    std::vector<std::pair<std::int64_t, std::string>> terms;
    const std::size_t rank = iteration_.size(), own = layout.dims.size();
    for (std::size_t k = 0; k < own; ++k)
      if (layout.dims[k] != 1) terms.emplace_back(layout.strides[k], coordinates_[rank - own + k]);
    return fmt::format("{}[{}]", buffer, linear_text(terms, layout.offset));
  }

  std::string emit(const value_expression& v) {
    switch (v.what) {
      case value_expression::kind::literal: return literal(v.literal);
      case value_expression::kind::dimension: return literal(static_cast<double>(lp_.shapes.dimensions[v.id]));
      case value_expression::kind::tensor: return read(v.id);
      case value_expression::kind::negate: return fmt::format("(-{})", emit(v.operands[0]));
      case value_expression::kind::binary: return emit_binary_chain(v);
      case value_expression::kind::select:
        return fmt::format("(({} != {}) ? {} : {})", emit(v.operands[0]), literal(0), emit(v.operands[1]),
                           emit(v.operands[2]));
      case value_expression::kind::call: {
        const std::string a = emit(v.operands[0]);
        const std::string b = v.operands.size() > 1 ? emit(v.operands[1]) : std::string();
        return codegen::substitute(v.function->opencl, a, b);
      }
    }
    return "0";
  }

  /// A binary operation and the chain of binary operations down its left operands (a long Tile
  /// sum is one such chain), emitted from the bottom up in the order a recursion would take (each
  /// left operand before its right one) but without recursing along the chain: a flat sum of
  /// any length takes one frame, only right operands and other nesting recurse (bounded by the
  /// parser's max_expression_height). A recursion per term overflowed the stack under clang's
  /// AddressSanitizer at 1,001 terms.
  ///
  /// A left operand loses its own parentheses when both operations are + or - (or both * or /):
  /// C reads `a + b + c` as `(a + b) + c`, the same operations in the same order, and a long
  /// Tile sum stays within the OpenCL compiler's bracket nesting limit (256 in clang) instead of
  /// nesting one level per term.
  std::string emit_binary_chain(const value_expression& top) {
    const auto is_binary = [](const value_expression& e) { return e.what == value_expression::kind::binary; };
    std::vector<const value_expression*> chain{&top};
    while (is_binary(chain.back()->operands[0])) chain.push_back(&chain.back()->operands[0]);
    const auto additive = [](token_kind op) { return op == token_kind::plus || op == token_kind::minus; };
    const auto multiplicative = [](token_kind op) { return op == token_kind::star || op == token_kind::slash; };
    std::string text = emit(chain.back()->operands[0]);
    for (auto node = chain.rbegin(); node != chain.rend(); ++node) {
      const value_expression& v = **node;
      const value_expression& left = v.operands[0];
      if (is_binary(left) && ((additive(v.op) && additive(left.op)) || (multiplicative(v.op) && multiplicative(left.op))))
        text = text.substr(1, text.size() - 2);  // "(x + y)" emitted one step before: the outer pair
      text = binary_text(v.op, text, emit(v.operands[1]));
    }
    return text;
  }

  std::string binary_text(token_kind op, const std::string& a, const std::string& b) const {
    switch (op) {
      case token_kind::plus: return fmt::format("({} + {})", a, b);
      case token_kind::minus: return fmt::format("({} - {})", a, b);
      case token_kind::star: return fmt::format("({} * {})", a, b);
      case token_kind::slash: return fmt::format("({} / {})", a, b);
      case token_kind::equal: return fmt::format("(({})({} == {}))", type_, a, b);
      case token_kind::not_equal: return fmt::format("(({})({} != {}))", type_, a, b);
      case token_kind::less: return fmt::format("(({})({} < {}))", type_, a, b);
      case token_kind::greater: return fmt::format("(({})({} > {}))", type_, a, b);
      case token_kind::less_equal: return fmt::format("(({})({} <= {}))", type_, a, b);
      default: return fmt::format("(({})({} >= {}))", type_, a, b);
    }
  }

  /// Emits statement s at this element; its value becomes a local. Returns the local's name.
  std::string emit_statement(const elementwise& s) {
    const std::string name = kb_.fresh_name("v_" + p_.tensors[s.output].name + "_");
    kb_.declare(fmt::format("const {}", type_), name, emit(s.value));
    locals[s.output] = name;
    return name;
  }

 private:
  kernel_builder& kb_;
  const program& p_;
  const lowered_program& lp_;
  std::string type_;
  bool single_;
  std::vector<std::string> coordinates_;
  std::string element_;
  shape iteration_;
};

/// Register blocking of a contraction: each work item computes a block of outputs (the
/// product of sizes) along up to two axes, so that an operand that does not move along an
/// axis is loaded once for the whole block.
struct block_plan {
  std::vector<std::size_t> axes;
  std::vector<std::int64_t> sizes;  // elements per work item along each axis
  std::vector<std::int64_t> grid;   // work items along each axis: ceil(extent / size)

  std::size_t elements() const {
    std::size_t n = 1;
    for (const auto b : sizes) n *= static_cast<std::size_t>(b);
    return n;
  }
  /// Position of element e along blocked axis i (the last axis varies fastest).
  std::int64_t index(std::size_t e, std::size_t i) const {
    std::size_t rest = e;
    for (std::size_t j = sizes.size(); j-- > i + 1;) rest /= static_cast<std::size_t>(sizes[j]);
    return static_cast<std::int64_t>(rest % static_cast<std::size_t>(sizes[i]));
  }
  /// Whether an operand's offset changes along blocked axis i.
  bool moves(const integer_affine& offset, std::size_t i) const {
    return axes[i] < offset.parameters.size() && offset.parameters[axes[i]] != 0;
  }
};

class lowerer {
 public:
  lowerer(const program& p, const std::vector<tensor_layout>& inputs, element_type type, const lowering_options& options)
      : p_(p), input_layouts_(inputs), type_(type), options_(options) {}

  lowered_program run() {
    std::vector<shape> input_shapes;
    for (const auto& l : input_layouts_) input_shapes.push_back(l.dims);
    lp_.shapes = bind_shapes(p_, input_shapes);
    lp_.layouts.resize(p_.tensors.size());
    lp_.materialized.assign(p_.tensors.size(), false);
    for (std::size_t i = 0; i < p_.inputs.size(); ++i) {
      lp_.layouts[p_.inputs[i]] = input_layouts_[i];
      lp_.materialized[p_.inputs[i]] = true;
    }
    for (std::size_t t = 0; t < p_.tensors.size(); ++t)
      if (p_.tensors[t].from != tensor_info::origin::input) lp_.layouts[t] = tensor_layout::row_major(lp_.shapes.shapes[t]);

    make_groups();
    decide_materialization();
    for (std::size_t g = 0; g < groups_.size(); ++g) emit_group(groups_[g], g);
    return std::move(lp_);
  }

 private:
  const shape& shape_of(std::size_t tensor) const { return lp_.shapes.shapes[tensor]; }

  void make_groups() {
    const auto& statements = p_.statements;
    std::size_t i = 0;
    while (i < statements.size()) {
      group g;
      if (const auto* c = std::get_if<contraction>(&statements[i])) {
        g.contraction = i;
        g.what = group::kind::contraction;
        if (options_.dispatch_matmul) {
          g.gemm = match_matmul(*c, *lp_.shapes.spaces[i], lp_.layouts);
          if (g.gemm) g.what = group::kind::matmul;
        }
        const shape& s = shape_of(c->output);
        ++i;
        // The GEMM's store is not ours to extend; elementwise statements after it get their own kernel.
        if (!g.gemm) add_fusable_statements(g, i, s);
      } else {
        add_fusable_statements(g, i, shape_of(output_of(statements[i])));
      }
      groups_.push_back(std::move(g));
    }
  }

  /// Appends to g the elementwise statements from i on that have shape s, while the kernel
  /// stays within options_.max_fused_operations (one statement at least).
  void add_fusable_statements(group& g, std::size_t& i, const shape& s) {
    const auto& statements = p_.statements;
    std::size_t operations = 0;
    while (i < statements.size() && std::holds_alternative<elementwise>(statements[i]) &&
           shape_of(output_of(statements[i])) == s) {
      operations += operation_count(std::get<elementwise>(statements[i]).value);
      if (!g.elementwise.empty() && operations > options_.max_fused_operations) break;
      g.elementwise.push_back(i++);
    }
  }

  void decide_materialization() {
    std::vector<std::size_t> group_of_statement(p_.statements.size());
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      if (groups_[g].contraction) group_of_statement[*groups_[g].contraction] = g;
      for (const auto s : groups_[g].elementwise) group_of_statement[s] = g;
    }
    for (const auto o : p_.outputs) lp_.materialized[o] = true;
    for (std::size_t s = 0; s < p_.statements.size(); ++s)
      for (const auto t : reads_of(p_.statements[s])) {
        const auto& info = p_.tensors[t];
        if (info.from == tensor_info::origin::input) continue;
        if (group_of_statement[info.defined_by] != group_of_statement[s]) lp_.materialized[t] = true;
      }
    // A GEMM writes its result to memory, always.
    for (const auto& g : groups_)
      if (g.gemm) lp_.materialized[std::get<contraction>(p_.statements[*g.contraction]).output] = true;
  }

  std::string type_name() const {
    return std::string(single() ? codegen::opencl_type_name<float>() : codegen::opencl_type_name<double>());
  }
  bool single() const { return type_ == element_type::float32; }

  /// Statements of g that write memory: their tensors, in order.
  std::vector<std::size_t> written_tensors(const group& g) const {
    std::vector<std::size_t> out;
    if (g.contraction) {
      const auto t = std::get<contraction>(p_.statements[*g.contraction]).output;
      if (lp_.materialized[t]) out.push_back(t);
    }
    for (const auto s : g.elementwise) {
      const auto t = output_of(p_.statements[s]);
      if (lp_.materialized[t]) out.push_back(t);
    }
    return out;
  }

  /// Tensors g reads from memory (not computed inside g), in first-use order.
  std::vector<std::size_t> read_tensors(const group& g) const {
    std::set<std::size_t> inside;
    if (g.contraction) inside.insert(std::get<contraction>(p_.statements[*g.contraction]).output);
    for (const auto s : g.elementwise) inside.insert(output_of(p_.statements[s]));
    std::vector<std::size_t> out;
    auto add = [&](std::size_t t) {
      if (!inside.count(t) && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    };
    if (g.contraction)
      for (const auto t : reads_of(p_.statements[*g.contraction])) add(t);
    for (const auto s : g.elementwise)
      for (const auto t : reads_of(p_.statements[s])) add(t);
    return out;
  }

  void emit_group(const group& g, std::size_t number) {
    const auto written = written_tensors(g);
    if (written.empty()) return;  // nothing of it is ever read: dead code
    if (g.what == group::kind::elementwise) {
      lp_.steps.push_back(emit_elementwise(g, number, written));
      return;
    }
    kernel_launch k = emit_contraction(g, number, written);
    if (g.gemm) lp_.steps.push_back(matmul_launch{*g.gemm, std::move(k)});
    else lp_.steps.push_back(std::move(k));
  }

  /// Adds buffer parameters for written and read tensors; returns the emitter set up with them.
  void add_buffers(kernel_builder& kb, kernel_launch& k, element_emitter& ee, const std::vector<std::size_t>& written,
                   const std::vector<std::size_t>& read, std::map<std::size_t, std::string>& outputs) {
    for (const auto t : written) {
      outputs[t] = kb.add_pointer_parameter(type_name(), "out_" + p_.tensors[t].name, false);
      k.tensors.push_back(t);
    }
    for (const auto t : read) {
      ee.inputs[t] = kb.add_pointer_parameter(type_name(), "in_" + p_.tensors[t].name, true);
      k.tensors.push_back(t);
    }
  }

  /// Declares the coordinates of element `linear` of shape s; returns their names.
  std::vector<std::string> declare_coordinates(kernel_builder& kb, const shape& s, const std::string& linear,
                                               const std::string& index_type) {
    std::vector<std::string> names(s.size());
    std::string rest = linear;
    for (std::size_t k = s.size(); k-- > 0;) {
      names[k] = kb.fresh_name(fmt::format("o{}_", k));
      if (k == 0) {
        kb.declare("const " + index_type, names[k], rest);
      } else {
        kb.declare("const " + index_type, names[k], fmt::format("{} % {}", rest, s[k]));
        const std::string next = kb.fresh_name("rest");
        kb.declare("const " + index_type, next, fmt::format("{} / {}", rest, s[k]));
        rest = next;
      }
    }
    return names;
  }

  static bool fits_int(std::int64_t v) { return v < (std::int64_t(1) << 31) - 1 && v > -(std::int64_t(1) << 31) + 1; }

  kernel_launch emit_elementwise(const group& g, std::size_t number, const std::vector<std::size_t>& written) {
    const shape s = shape_of(output_of(p_.statements[g.elementwise.front()]));
    const std::int64_t count = element_count(s);
    std::int64_t largest = count;
    for (const auto t : read_tensors(g)) largest = std::max(largest, element_count(lp_.layouts[t].dims) + lp_.layouts[t].offset);
    const std::string index_type = fits_int(largest) ? "int" : "long";

    kernel_launch k;
    k.name = fmt::format("tile_elementwise_{}_{}", number, p_.tensors[output_of(p_.statements[g.elementwise.front()])].name);
    kernel_builder kb(k.name);
    element_emitter ee(kb, p_, lp_, type_name(), single());
    std::map<std::size_t, std::string> outputs;
    add_buffers(kb, k, ee, written, read_tensors(g), outputs);
    const std::string gid = kb.declare("const " + index_type, "gid", fmt::format("({})get_global_id(0)", index_type));
    kb.statement(fmt::format("if (gid >= {}) return", count));
    ee.set_element(declare_coordinates(kb, s, gid, index_type), gid, s);
    for (const auto st : g.elementwise) ee.emit_statement(std::get<elementwise>(p_.statements[st]));
    for (const auto t : written) kb.assign(fmt::format("{}[{}]", outputs[t], gid), ee.locals.at(t));
    k.source = kb.source();
    k.range = runtime::launch_range::one_d(runtime::round_up(static_cast<std::size_t>(count), launch_granularity));
    if (count == 0) k.range = runtime::launch_range::one_d(0);
    k.summary = fmt::format("elementwise kernel for {} statement(s) over {}", g.elementwise.size(), to_string(s));
    return k;
  }

  kernel_launch emit_contraction(const group& g, std::size_t number, const std::vector<std::size_t>& written) {
    const auto& c = std::get<contraction>(p_.statements[*g.contraction]);
    const index_space& space = *lp_.shapes.spaces[*g.contraction];
    loop_nest nest;
    try {
      nest = derive_loop_nest(space, c.index_names);
    } catch (const shape_error& e) {
      throw shape_error(c.position, e.message());  // name the statement
    } catch (const lowering_error& e) {
      throw lowering_error(c.position, e.message());
    }
    const shape s = shape_of(c.output);
    const std::size_t rank = s.size();
    const std::int64_t count = element_count(s);
    const auto read = read_tensors(g);

    // Each operand's offset as an affine form of loops and parameters.
    std::vector<integer_affine> offsets;
    if (!nest.empty) {
      std::size_t row = space.output_rows.size();
      for (std::size_t k = 0; k < c.operands.size(); ++k) {
        const tensor_layout& layout = lp_.layouts[c.operands[k].tensor];
        integer_affine offset;
        offset.loops.assign(nest.loops.size(), 0);
        offset.parameters.assign(nest.parameters, 0);
        offset.constant = layout.offset;
        try {
          for (std::size_t a = 0; a < space.operand_rows[k].size(); ++a) {
            const integer_affine& v = *nest.row_values[row + a];
            const std::int64_t stride = layout.dims[a] == 1 ? 0 : layout.strides[a];
            for (std::size_t i = 0; i < v.loops.size(); ++i)
              offset.loops[i] = checked_add(offset.loops[i], checked_mul(stride, v.loops[i]));
            for (std::size_t j = 0; j < v.parameters.size(); ++j)
              offset.parameters[j] = checked_add(offset.parameters[j], checked_mul(stride, v.parameters[j]));
            offset.constant = checked_add(offset.constant, checked_mul(stride, v.constant));
          }
        } catch (const arithmetic_overflow&) {
          throw shape_error(c.operands[k].position, "the offsets of this tensor overflow 64-bit integers");
        }
        row += space.operand_rows[k].size();
        offsets.push_back(std::move(offset));
      }
    }
    const block_plan blocks = choose_blocks(nest, offsets, s);
    const std::size_t elements = blocks.elements();
    std::int64_t items = count;
    for (std::size_t i = 0; i < blocks.axes.size(); ++i) items = items / s[blocks.axes[i]] * blocks.grid[i];

    // The index type: int where every value the kernel computes fits.
    std::int64_t largest = count;
    for (const auto t : read) largest = std::max(largest, element_count(lp_.layouts[t].dims) + lp_.layouts[t].offset);
    for (const auto& [lo, hi] : nest.loop_ranges) largest = std::max({largest, lo < 0 ? -lo : lo, hi < 0 ? -hi : hi});
    for (const auto& [lo, hi] : nest.parameter_ranges) largest = std::max({largest, lo < 0 ? -lo : lo, hi < 0 ? -hi : hi});
    bool use_int = fits_int(largest);
    auto check_affine = [&](const integer_affine& a) {
      __int128 m = a.constant < 0 ? -__int128(a.constant) : __int128(a.constant);
      for (std::size_t i = 0; i < a.loops.size(); ++i) {
        const auto& [lo, hi] = nest.loop_ranges[i];
        m += (a.loops[i] < 0 ? -__int128(a.loops[i]) : __int128(a.loops[i])) * std::max(lo < 0 ? -lo : lo, hi < 0 ? -hi : hi);
      }
      for (std::size_t j = 0; j < a.parameters.size(); ++j) {
        const auto& [lo, hi] = nest.parameter_ranges[j];
        m += (a.parameters[j] < 0 ? -__int128(a.parameters[j]) : __int128(a.parameters[j])) *
             std::max(lo < 0 ? -lo : lo, hi < 0 ? -hi : hi);
      }
      if (m >= (__int128(1) << 31) - 1) use_int = false;
    };
    if (!nest.empty) {
      for (const auto& step : nest.steps) check_affine(step.value);
      for (const auto& level : nest.loops) {
        for (const auto& b : level.lower) check_affine(b.numerator);
        for (const auto& b : level.upper) check_affine(b.numerator);
      }
      for (const auto& o : offsets) check_affine(o);
    }
    const std::string index_type = use_int ? "int" : "long";

    kernel_launch k;
    k.name = fmt::format("tile_contraction_{}_{}", number, p_.tensors[c.output].name);
    kernel_builder kb(k.name);
    const std::string T = type_name();
    element_emitter ee(kb, p_, lp_, T, single());
    std::map<std::size_t, std::string> outputs;
    add_buffers(kb, k, ee, written, read, outputs);
    const bool divides = std::any_of(nest.loops.begin(), nest.loops.end(), [](const loop_level& l) {
      return std::any_of(l.lower.begin(), l.lower.end(), [](const loop_bound& b) { return b.divisor != 1; }) ||
             std::any_of(l.upper.begin(), l.upper.end(), [](const loop_bound& b) { return b.divisor != 1; });
    });
    if (divides && !nest.empty)
      kb.add_helper("tile_division",
                    fmt::format("// Rounding divisions for divisors b > 0.\n"
                                "inline {0} tile_floor_div({0} a, {0} b) {{ return (a >= 0 ? a : a - b + 1) / b; }}\n"
                                "inline {0} tile_ceil_div({0} a, {0} b) {{ return (a >= 0 ? a + b - 1 : a) / b; }}\n",
                                index_type));

    const std::string gid = kb.declare("const " + index_type, "gid", fmt::format("({})get_global_id(0)", index_type));
    kb.statement(fmt::format("if (gid >= {}) return", items));
    // Coordinates of the work item. Along a blocked axis it owns the elements g, g + G, g + 2G,
    // ... (G work items along the axis): neighbouring work items touch neighbouring elements.
    shape grid = s;
    for (std::size_t i = 0; i < blocks.axes.size(); ++i) grid[blocks.axes[i]] = blocks.grid[i];
    const std::vector<std::string> coords = declare_coordinates(kb, grid, gid, index_type);
    std::vector<std::vector<std::string>> element_coords(elements, coords);
    std::vector<std::string> element_index(elements, gid), in_range(elements);
    for (std::size_t e = 0; e < elements; ++e) {
      std::vector<std::string> conditions;
      for (std::size_t i = 0; i < blocks.axes.size(); ++i) {
        const std::size_t d = blocks.axes[i];
        const std::int64_t b = blocks.index(e, i);
        if (b == 0) continue;
        const std::string first = fmt::format("{} + {}", coords[d], b * blocks.grid[i]);
        if (blocks.grid[i] * blocks.sizes[i] > s[d]) {
          // Past the end of the axis the element is computed (from in-range reads) and discarded.
          element_coords[e][d] = kb.declare_fresh(index_type, fmt::format("min({}, ({}){})", first, index_type, s[d] - 1), "ob");
          conditions.push_back(fmt::format("{} < {}", first, s[d]));
        } else {
          element_coords[e][d] = kb.declare_fresh(index_type, first, "ob");
        }
      }
      in_range[e] = fmt::format("{}", fmt::join(conditions, " && "));
      if (!blocks.axes.empty()) {
        const auto strides = row_major_strides(s);
        std::vector<std::pair<std::int64_t, std::string>> terms;
        for (std::size_t d = 0; d < rank; ++d) terms.emplace_back(strides[d], element_coords[e][d]);
        element_index[e] = kb.declare_fresh(index_type, linear_text(terms, 0), "element");
      }
    }

    const bool needs_flag = c.agg == aggregation::product || c.agg == aggregation::max || c.agg == aggregation::min;
    std::string init;
    switch (nest.empty ? aggregation::sum : c.agg) {
      case aggregation::product: init = ee.literal(1); break;
      case aggregation::max: init = ee.literal(-std::numeric_limits<double>::infinity()); break;
      case aggregation::min: init = ee.literal(std::numeric_limits<double>::infinity()); break;
      default: init = ee.literal(0); break;
    }
    std::vector<std::string> acc(elements);
    for (auto& a : acc) a = kb.declare(T, kb.fresh_name("acc"), init);
    std::string any;
    if (needs_flag && !nest.empty) any = kb.declare("int", "any", "0");

    if (!nest.empty) {
      // Parameters: the output coordinates (of the block's first element), then derived ones.
      // No guard, definition or bound depends on a blocked coordinate (choose_blocks), so
      // every element of the block shares them.
      std::vector<std::string> params(nest.parameters);
      for (std::size_t d = 0; d < rank; ++d) params[d] = element_coords[0][d];
      std::size_t opened = 0;
      std::vector<std::string> loop_vars(nest.loops.size());
      auto text = [&](const integer_affine& a, const std::vector<std::string>& names, bool with_loops) {
        std::vector<std::pair<std::int64_t, std::string>> terms;
        if (with_loops)
          for (std::size_t i = 0; i < a.loops.size(); ++i)
            if (a.loops[i] != 0) terms.emplace_back(a.loops[i], loop_vars[i]);
        for (std::size_t j = 0; j < a.parameters.size(); ++j)
          if (a.parameters[j] != 0) terms.emplace_back(a.parameters[j], names[j]);
        return linear_text(terms, a.constant);
      };
      for (const auto& step : nest.steps) {
        const std::string v = text(step.value, params, true);
        switch (step.what) {
          case guard_step::kind::non_negative: kb.open_block(fmt::format("if ({} >= 0)", v)); ++opened; break;
          case guard_step::kind::zero: kb.open_block(fmt::format("if ({} == 0)", v)); ++opened; break;
          case guard_step::kind::divisible: kb.open_block(fmt::format("if ({} % {} == 0)", v, step.divisor)); ++opened; break;
          case guard_step::kind::define:
            params[step.defines] = kb.declare_fresh(index_type, fmt::format("{} / {}", v, step.divisor), "q");
            break;
        }
      }
      // Base offsets (the parameter part) of each operand: one per distinct position of the
      // operand within the block (operands that do not move along a blocked axis share loads).
      std::vector<std::vector<std::string>> bases(c.operands.size());
      std::vector<std::vector<std::size_t>> load_of(c.operands.size(), std::vector<std::size_t>(elements));
      for (std::size_t kx = 0; kx < c.operands.size(); ++kx) {
        std::map<std::vector<std::int64_t>, std::size_t> seen;
        for (std::size_t e = 0; e < elements; ++e) {
          std::vector<std::int64_t> key;
          for (std::size_t i = 0; i < blocks.axes.size(); ++i)
            key.push_back(blocks.moves(offsets[kx], i) ? blocks.index(e, i) : 0);
          const auto [it, fresh] = seen.emplace(key, bases[kx].size());
          if (fresh) {
            std::vector<std::string> names = params;
            for (std::size_t d = 0; d < rank; ++d) names[d] = element_coords[e][d];
            integer_affine without_loops = offsets[kx];
            bases[kx].push_back(kb.declare_fresh(index_type, text(without_loops, names, false), "base"));
          }
          load_of[kx][e] = it->second;
        }
      }
      for (std::size_t j = 0; j < nest.loops.size(); ++j) {
        const auto& level = nest.loops[j];
        std::vector<std::string> lo, hi;
        for (const auto& bound : level.lower) {
          const std::string v = text(bound.numerator, params, true);
          lo.push_back(bound.divisor == 1 ? v : fmt::format("tile_ceil_div({}, {})", v, bound.divisor));
        }
        for (const auto& bound : level.upper) {
          const std::string v = text(bound.numerator, params, true);
          hi.push_back(bound.divisor == 1 ? v : fmt::format("tile_floor_div({}, {})", v, bound.divisor));
        }
        auto fold = [](const std::vector<std::string>& xs, const char* f) {
          std::string out = xs.front();
          for (std::size_t i = 1; i < xs.size(); ++i) out = fmt::format("{}({}, {})", f, out, xs[i]);
          return out;
        };
        const std::string lo_name = kb.declare_fresh(index_type, fold(lo, "max"), "lo");
        const std::string hi_name = kb.declare_fresh(index_type, fold(hi, "min"), "hi");
        loop_vars[j] = kb.fresh_name(nest.loop_names[j] + "_");
        kb.open_block(fmt::format("for ({} {} = {}; {} <= {}; ++{})", index_type, loop_vars[j], lo_name, loop_vars[j],
                                  hi_name, loop_vars[j]));
        ++opened;
      }
      // The body: each distinct load once, then every accumulator.
      std::vector<std::vector<std::string>> loaded(c.operands.size());
      for (std::size_t kx = 0; kx < c.operands.size(); ++kx) {
        std::vector<std::pair<std::int64_t, std::string>> terms;
        for (std::size_t i = 0; i < loop_vars.size(); ++i) terms.emplace_back(offsets[kx].loops[i], loop_vars[i]);
        const std::string inner = linear_text(terms, 0);
        for (const auto& base : bases[kx])
          loaded[kx].push_back(kb.declare_fresh(
              T, fmt::format("{}[{}{}]", ee.inputs.at(c.operands[kx].tensor), base, inner == "0" ? "" : " + " + inner), "x"));
      }
      for (std::size_t e = 0; e < elements; ++e) {
        std::string value = loaded[0][load_of[0][e]];
        if (c.operands.size() == 2)
          value = fmt::format("{} {} {}", value, c.comb == combination::add ? "+" : "*", loaded[1][load_of[1][e]]);
        switch (c.agg) {
          case aggregation::sum: kb.assign(acc[e], value, "+="); break;
          case aggregation::product: kb.assign(acc[e], value, "*="); break;
          case aggregation::max: kb.assign(acc[e], fmt::format("fmax({}, {})", acc[e], value)); break;
          case aggregation::min: kb.assign(acc[e], fmt::format("fmin({}, {})", acc[e], value)); break;
          case aggregation::assign: kb.assign(acc[e], value); break;
        }
      }
      if (!any.empty()) kb.assign(any, "1");
      for (std::size_t i = 0; i < opened; ++i) kb.close_block();
    }

    // Results, the fused elementwise statements, and the stores, per element of the block.
    for (std::size_t e = 0; e < elements; ++e) {
      const bool guarded = !in_range[e].empty();
      if (guarded) kb.open_block(fmt::format("if ({})", in_range[e]));
      ee.locals.clear();
      std::string result = acc[e];
      if (!any.empty()) result = kb.declare_fresh(T, fmt::format("{} ? {} : {}", any, acc[e], ee.literal(0)), "result");
      ee.locals[c.output] = result;
      ee.set_element(element_coords[e], element_index[e], s);
      for (const auto st : g.elementwise) ee.emit_statement(std::get<elementwise>(p_.statements[st]));
      for (const auto t : written) kb.assign(fmt::format("{}[{}]", outputs[t], element_index[e]), ee.locals.at(t));
      if (guarded) kb.close_block();
    }

    k.source = kb.source();
    k.range = runtime::launch_range::one_d(items == 0 ? 0 : runtime::round_up(static_cast<std::size_t>(items), launch_granularity));
    k.summary = fmt::format("contraction kernel for '{}' {}{}{}", p_.tensors[c.output].name, to_string(s),
                            g.elementwise.empty() ? "" : fmt::format(" with {} fused elementwise statement(s)", g.elementwise.size()),
                            blocks.axes.empty() ? "" : fmt::format(", blocks of {} outputs along axes {} per work item",
                                                                   fmt::join(blocks.sizes, "x"), fmt::join(blocks.axes, ", ")));
    return k;
  }

  /// The blocking with the most multiply-adds per load, among single axes and pairs of axes
  /// that no guard or bound depends on; none when no operand could be shared.
  block_plan choose_blocks(const loop_nest& nest, const std::vector<integer_affine>& offsets, const shape& s) const {
    block_plan best;
    if (options_.register_block <= 1 || nest.empty || nest.loops.empty() || s.empty() || offsets.empty()) return best;
    std::vector<std::size_t> candidates;
    for (std::size_t d = 0; d < s.size(); ++d)
      if (s[d] >= 2 && independent_of(nest, d)) candidates.push_back(d);
    double best_score = 1.0 / static_cast<double>(offsets.size());  // unblocked: one load per operand
    bool best_has_last = false;
    auto consider = [&](std::vector<std::size_t> axes, std::int64_t limit) {
      block_plan plan;
      plan.axes = std::move(axes);
      for (const auto d : plan.axes) {
        plan.sizes.push_back(std::min<std::int64_t>(limit, s[d]));
        plan.grid.push_back((s[d] + plan.sizes.back() - 1) / plan.sizes.back());
      }
      double loads = 0;
      for (const auto& o : offsets) {
        double n = 1;
        for (std::size_t i = 0; i < plan.axes.size(); ++i)
          if (plan.moves(o, i)) n *= static_cast<double>(plan.sizes[i]);
        loads += n;
      }
      const double score = static_cast<double>(plan.elements()) / loads;
      const bool has_last = std::find(plan.axes.begin(), plan.axes.end(), s.size() - 1) != plan.axes.end();
      if (score > best_score + 1e-9 || (score > best_score - 1e-9 && has_last && !best_has_last && !best.axes.empty())) {
        best = std::move(plan);
        best_score = score;
        best_has_last = has_last;
      }
    };
    const std::int64_t single = options_.register_block;
    const std::int64_t pair = std::min<std::int64_t>(options_.register_block, 4);
    for (const auto d : candidates) consider({d}, single);
    for (std::size_t a = 0; a < candidates.size(); ++a)
      for (std::size_t b = a + 1; b < candidates.size(); ++b) consider({candidates[a], candidates[b]}, pair);
    return best;
  }

  /// Whether output coordinate d appears in no guard, definition or loop bound.
  static bool independent_of(const loop_nest& nest, std::size_t d) {
    auto uses = [d](const integer_affine& a) { return d < a.parameters.size() && a.parameters[d] != 0; };
    for (const auto& step : nest.steps)
      if (uses(step.value)) return false;
    for (const auto& level : nest.loops) {
      for (const auto& b : level.lower)
        if (uses(b.numerator)) return false;
      for (const auto& b : level.upper)
        if (uses(b.numerator)) return false;
    }
    return true;
  }

  const program& p_;
  const std::vector<tensor_layout>& input_layouts_;
  element_type type_;
  lowering_options options_;
  lowered_program lp_;
  std::vector<group> groups_;
};

}  // namespace

lowered_program lower(const program& p, const std::vector<tensor_layout>& input_layouts, element_type type,
                      const lowering_options& options) {
  return lowerer(p, input_layouts, type, options).run();
}

}  // namespace tessera::tile
