#include <tessera/tile/shapes.hpp>

#include <algorithm>

#include <fmt/format.h>

namespace tessera::tile {

std::string to_string(const shape& s) {
  if (s.size() == 1) return fmt::format("({},)", s[0]);
  return fmt::format("({})", fmt::join(s, ", "));
}

std::int64_t element_count(const shape& s) {
  std::int64_t n = 1;
  for (const auto d : s) n = checked_mul(n, d);
  return n;
}

std::vector<std::int64_t> row_major_strides(const shape& s) {
  std::vector<std::int64_t> strides(s.size());
  std::int64_t stride = 1;
  for (std::size_t i = s.size(); i-- > 0;) {
    strides[i] = stride;
    stride = checked_mul(stride, std::max<std::int64_t>(s[i], 1));
  }
  return strides;
}

std::vector<const index_row*> index_space::all_rows() const {
  std::vector<const index_row*> rows;
  for (const auto& r : output_rows) rows.push_back(&r);
  for (const auto& operand : operand_rows)
    for (const auto& r : operand) rows.push_back(&r);
  for (const auto& r : constraint_rows) rows.push_back(&r);
  return rows;
}

namespace {

std::size_t dimension_id(const program& p, const std::string& name) {
  for (std::size_t d = 0; d < p.dimensions.size(); ++d)
    if (p.dimensions[d].name == name) return d;
  throw shape_error({}, fmt::format("internal: unknown dimension '{}'", name));
}

/// Index-free parts of index expressions: exact, `/` is a rational division.
rational evaluate_rational(const ast::expression& e, const program& p, const std::vector<std::int64_t>& dims) {
  try {
    switch (e.kind) {
      case ast::expression_kind::number: return rational(e.integer);
      case ast::expression_kind::name: return rational(dims[dimension_id(p, e.name)]);
      case ast::expression_kind::unary: return -evaluate_rational(*e.operands[0], p, dims);
      case ast::expression_kind::binary: {
        const rational a = evaluate_rational(*e.operands[0], p, dims);
        const rational b = evaluate_rational(*e.operands[1], p, dims);
        switch (e.op) {
          case token_kind::plus: return a + b;
          case token_kind::minus: return a - b;
          case token_kind::star: return a * b;
          default:
            if (b.is_zero()) throw shape_error(e.operands[1]->start, "division by zero in an index expression");
            return a / b;
        }
      }
      default: break;
    }
  } catch (const arithmetic_overflow&) {
    throw shape_error(e.position, "this index expression overflows 64-bit integers with the given shapes");
  }
  throw shape_error(e.position, "internal: unexpected expression in an index expression");
}

index_row make_row(const affine_expression& a, std::int64_t bound, bool integral, const program& p,
                   const std::vector<std::int64_t>& dims) {
  index_row row{a.coefficients, a.constant, bound, integral};
  try {
    for (const auto& term : a.dimension_terms) row.constant += term.factor * evaluate_rational(*term.value, p, dims);
  } catch (const arithmetic_overflow&) {
    throw shape_error(a.position, "this index expression overflows 64-bit integers with the given shapes");
  }
  return row;
}

class binder {
 public:
  binder(const program& p, std::span<const shape> inputs) : p_(p), inputs_(inputs) {}

  binding run() {
    const auto& f = p_.syntax();
    if (inputs_.size() != p_.inputs.size())
      throw shape_error(f.position, fmt::format("the function takes {} input(s), given {}", p_.inputs.size(),
                                                inputs_.size()));
    b_.shapes.resize(p_.tensors.size());
    b_.spaces.resize(p_.statements.size());
    bind_dimensions();
    for (std::size_t s = 0; s < p_.statements.size(); ++s) {
      if (const auto* c = std::get_if<contraction>(&p_.statements[s])) bind_contraction(*c, s);
      else bind_elementwise(std::get<elementwise>(p_.statements[s]));
    }
    return std::move(b_);
  }

 private:
  void bind_dimensions() {
    b_.dimensions.assign(p_.dimensions.size(), -1);
    std::vector<std::pair<std::size_t, std::size_t>> first(p_.dimensions.size());  // tensor, axis
    for (std::size_t i = 0; i < p_.inputs.size(); ++i) {
      const auto& t = p_.tensors[p_.inputs[i]];
      const shape& given = inputs_[i];
      for (const auto d : given)
        if (d < 0) throw shape_error(t.position, fmt::format("input '{}' has a negative size in {}", t.name, to_string(given)));
      if (t.declares_dimensions && given.size() != t.dimensions.size())
        throw shape_error(t.position, fmt::format("rank mismatch: input '{}' is declared with {} dimension(s) but "
                                                  "given shape {}",
                                                  t.name, t.dimensions.size(), to_string(given)));
      for (std::size_t axis = 0; axis < t.dimensions.size(); ++axis) {
        const std::size_t d = t.dimensions[axis];
        if (b_.dimensions[d] < 0) {
          b_.dimensions[d] = given[axis];
          first[d] = {p_.inputs[i], axis};
        } else if (b_.dimensions[d] != given[axis]) {
          const auto& earlier = p_.tensors[first[d].first];
          throw shape_error(t.dimension_positions[axis],
                            fmt::format("dimension '{}' is {} from axis {} of '{}' (declared at {}) but {} from axis "
                                        "{} of '{}'",
                                        p_.dimensions[d].name, b_.dimensions[d], first[d].second, earlier.name,
                                        to_string(earlier.dimension_positions[first[d].second]), given[axis], axis,
                                        t.name));
        }
      }
      b_.shapes[p_.inputs[i]] = given;
    }
  }

  void bind_contraction(const contraction& c, std::size_t statement) {
    shape out_shape;
    for (const auto* size : c.output_sizes) {
      const std::int64_t n = evaluate_integer(*size, p_, b_.dimensions);
      if (n < 0)
        throw shape_error(size->start, fmt::format("size {} of output '{}' is {} with these shapes; sizes must not "
                                                      "be negative",
                                                      out_shape.size(), p_.tensors[c.output].name, n));
      out_shape.push_back(n);
    }
    try {
      element_count(out_shape);
    } catch (const arithmetic_overflow&) {
      throw shape_error(c.position, fmt::format("output '{}' would have more than 2^63 elements",
                                                p_.tensors[c.output].name));
    }
    index_space space;
    space.variables = c.index_names.size();
    for (std::size_t axis = 0; axis < c.output_indices.size(); ++axis)
      space.output_rows.push_back(make_row(c.output_indices[axis], out_shape[axis], true, p_, b_.dimensions));
    for (const auto& use : c.operands) {
      const shape& s = b_.shapes[use.tensor];
      if (s.size() != use.indices.size())
        throw shape_error(use.position, fmt::format("rank mismatch: tensor '{}' has shape {} but is indexed with {} "
                                                    "index expression(s)",
                                                    p_.tensors[use.tensor].name, to_string(s), use.indices.size()));
      std::vector<index_row> rows;
      for (std::size_t axis = 0; axis < s.size(); ++axis)
        rows.push_back(make_row(use.indices[axis], s[axis], true, p_, b_.dimensions));
      space.operand_rows.push_back(std::move(rows));
    }
    for (const auto& k : c.constraints) {
      const std::int64_t bound = evaluate_integer(*k.bound, p_, b_.dimensions);
      space.constraint_rows.push_back(make_row(k.index, bound, false, p_, b_.dimensions));
    }
    b_.shapes[c.output] = std::move(out_shape);
    b_.spaces[statement] = std::move(space);
  }

  shape broadcast(const std::vector<const shape*>& shapes, const value_expression& at) {
    std::size_t rank = 0;
    for (const auto* s : shapes) rank = std::max(rank, s->size());
    shape out(rank, 1);
    for (std::size_t k = 0; k < rank; ++k) {
      bool set = false;
      for (const auto* s : shapes) {
        if (k >= s->size()) continue;
        const std::int64_t d = (*s)[s->size() - 1 - k];
        std::int64_t& o = out[rank - 1 - k];
        if (d == 1) continue;
        if (!set || o == 1) {
          o = d;
          set = true;
        } else if (o != d) {
          std::vector<std::string> described;
          for (std::size_t i = 0; i < shapes.size(); ++i)
            described.push_back(fmt::format("{}", to_string(*shapes[i])));
          throw shape_error(at.position, fmt::format("cannot broadcast shapes {} together: axis {} from the end is {} "
                                                     "in one and {} in another",
                                                     fmt::join(described, " and "), k, o, d));
        }
      }
    }
    return out;
  }

  shape shape_of(const value_expression& v) {
    switch (v.what) {
      case value_expression::kind::literal:
      case value_expression::kind::dimension: return {};
      case value_expression::kind::tensor: return b_.shapes[v.id];
      default: break;
    }
    std::vector<shape> shapes;
    for (const auto& operand : v.operands) shapes.push_back(shape_of(operand));
    std::vector<const shape*> pointers;
    for (const auto& s : shapes) pointers.push_back(&s);
    return broadcast(pointers, v);
  }

  void bind_elementwise(const elementwise& e) {
    shape s = shape_of(e.value);
    b_.shapes[e.output] = std::move(s);
  }

  const program& p_;
  std::span<const shape> inputs_;
  binding b_;
};

}  // namespace

std::int64_t evaluate_integer(const ast::expression& e, const program& p, const std::vector<std::int64_t>& dims) {
  try {
    switch (e.kind) {
      case ast::expression_kind::number: return e.integer;
      case ast::expression_kind::name: return dims[dimension_id(p, e.name)];
      case ast::expression_kind::unary: return checked_sub(0, evaluate_integer(*e.operands[0], p, dims));
      case ast::expression_kind::binary: {
        const std::int64_t a = evaluate_integer(*e.operands[0], p, dims);
        const std::int64_t b = evaluate_integer(*e.operands[1], p, dims);
        switch (e.op) {
          case token_kind::plus: return checked_add(a, b);
          case token_kind::minus: return checked_sub(a, b);
          case token_kind::star: return checked_mul(a, b);
          default:
            if (b == 0) throw shape_error(e.operands[1]->start, "division by zero with these shapes");
            if (b == -1) return checked_sub(0, a);
            return a / b;
        }
      }
      default: break;
    }
  } catch (const arithmetic_overflow&) {
    throw shape_error(e.position, "this expression overflows 64-bit integers with the given shapes");
  }
  throw shape_error(e.position, "internal: unexpected expression in a size");
}

binding bind_shapes(const program& p, std::span<const shape> input_shapes) { return binder(p, input_shapes).run(); }

}  // namespace tessera::tile
