#pragma once
// Which element of a matrix each work-item touches, relative to the element (i, j) it
// computes: the aliasing analysis that decides whether an assignment may run in place.
// A target that is also read in place (`a = a + b`) is safe; one that is read elsewhere
// (`a = transpose(a)`, a block assigned from a shifted block of itself, a reduction over
// the target) would make the result depend on the order work-items run, so the
// assignment goes through a temporary.
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <tessera/kernel_generator/shape.hpp>
#include <tessera/runtime/opencl.hpp>

namespace tessera::runtime {
class context;
}
namespace tessera::codegen {
class kernel_builder;
}

namespace tessera::kernel_generator {

/// Element (i, j) of the result reads element transposed ? (j, i) : (i, j), shifted by the
/// offsets, of the matrix. Opaque: anything else (reductions, broadcasts, diagonals).
struct access_map {
  bool opaque = false;
  bool transposed = false;
  index_t row_offset = 0;
  index_t col_offset = 0;

  static access_map identity() { return {}; }
  static access_map unknown() { return {true, false, 0, 0}; }
  /// The map seen by the argument of a transpose.
  access_map transpose() const {
    return opaque ? *this : access_map{false, !transposed, col_offset, row_offset};
  }
  /// The map seen by the argument of a block starting at (rows, cols).
  access_map shift(index_t rows, index_t cols) const {
    return opaque ? *this : access_map{false, transposed, row_offset + rows, col_offset + cols};
  }
  friend bool operator==(const access_map&, const access_map&) = default;
};

struct fused_launch;

/// An operation computed by a kernel of its own layout (a matmul, by the GEMM), as the
/// assignment sees it: where the result's elements read it (map) and the two ways to run it.
/// Either the rest of the assignment is fused into its store step (launch_fused, one kernel),
/// or it is evaluated into a temporary first (materialize; release frees it) and the
/// assignment's kernel loads that.
/// Two producers with equal operands (matrices, transposes, type) compute the same values,
/// so a fall-back evaluates them once (adopt).
struct producer {
  const void* node;
  access_map map;
  bool is_double;
  std::tuple<const void*, const void*, bool, bool, bool> operands;
  std::function<void(const runtime::context&)> materialize;
  std::function<bool()> materialized;
  std::function<std::shared_ptr<void>()> temporary;
  std::function<void(std::shared_ptr<void>)> adopt;
  std::function<void()> release;
  std::function<cl::Event(const fused_launch&)> launch_fused;
};

class kernel_context;

/// A rowwise or colwise reduction as the assignment sees it (reductions.hpp): where the result
/// reads it (map) and how the reduction skeleton (reduction_skeleton.hpp) generates it. One
/// reached in place (map identity) is a root: the skeleton computes it with work-group
/// cooperation and applies the rest of the expression to its finished value. Any other (under a
/// broadcast, a transpose, another reduction) is materialized first (evaluated into a
/// temporary by an assignment of its own) and read from there.
struct reduction_site {
  const void* node;
  access_map map;
  bool rowwise;         // reduces along the columns: one result per row
  index_t outputs;      // results: rows when rowwise, else columns
  index_t length;       // terms per result
  std::string type;     // OpenCL C type of the accumulator
  std::size_t element_bytes;
  bool compensated;     // a floating sum: Kahan-compensated
  std::string initial;  // the identity, as OpenCL C
  /// The term at (row, col) of the argument: a variable holding it.
  std::function<std::string(kernel_context&, const std::string& row, const std::string& col)> term;
  /// OpenCL C combining two values (for the tree and the finishing pass).
  std::function<std::string(const std::string& a, const std::string& b)> combine;
  /// Evaluates the reduction into its temporary; the event of that work (its first command is
  /// the first the materializing enqueued).
  std::function<cl::Event(const runtime::context&)> materialize;
  std::function<bool()> materialized;
  std::function<void()> release;
  /// For reading the kernels (kernel_source): the OpenCL C that materializing runs, and an
  /// empty stand-in for the temporary, so the reading kernel's source can be generated.
  std::function<std::string(const runtime::context&)> materializing_source;
  std::function<void(const runtime::context&)> stand_in;
  /// Set by the analysis of each assignment (reduction_skeleton.hpp): whether the reduction,
  /// computed in place by an element's work-item, has exactly one term, so that its code reads
  /// that term without a loop (a loop's load cannot be issued beside the other elements' loads).
  /// The kernel's key holds the analysis, so a kernel made for one term serves only one term.
  std::function<void(bool)> compute_as_one_term;

  /// The online maximum-and-sum rule, for a sum of exp(E - broadcast(M)) where M is the maximum
  /// of the same E along the same dimension (softmax, log-sum-exp): one pass over E gives both
  /// (reductions.hpp: online_softmax_sum). Set on such a sum when its E and M's read the same
  /// values: M's node, E's term at (row, col), and M and the sum evaluated together into their
  /// temporaries (for the reading of kernels: that assignment's source).
  const void* online_max = nullptr;
  std::function<std::string(kernel_context&, const std::string& row, const std::string& col)> online_term{};
  std::function<cl::Event(const runtime::context&)> materialize_with_max{};
  std::function<std::string(const runtime::context&)> materializing_with_max_source{};

  /// How the skeleton makes a root's finished value known to the rest of the expression; empty:
  /// the value is the node's. (The online rule's root finishes a (max, sum) pair into both.)
  std::function<void(kernel_context&, const std::string& value, const std::string& row, const std::string& col)>
      remember_finished{};
  /// OpenCL C functions the generated kernels call on this site's values (the online rule's).
  std::function<void(codegen::kernel_builder&)> add_helpers{};
  /// How a reduction pass adds a step of terms to the accumulator `acc` where that is not
  /// `combine` (or Kahan's sum) per term; empty: per term. (The online rule's pair takes a step's
  /// terms at once: one rescaling per step.)
  std::function<void(codegen::kernel_builder&, const std::string& acc, const std::vector<std::string>& terms)>
      accumulate_step{};
};

/// Records every read and write of an assignment, by matrix identity, and its producers.
class access_collector {
 public:
  void read(const void* matrix, const access_map& map) { reads_.push_back({matrix, map}); }
  void write(const void* matrix, const access_map& map) { writes_.push_back({matrix, map}); }
  void produce(producer p) { producers_.push_back(std::move(p)); }
  void reduce(reduction_site r) { reductions_.push_back(std::move(r)); }
  /// Every reduction reached, parents before the reductions nested in them.
  const std::vector<reduction_site>& reductions() const noexcept { return reductions_; }
  /// Every producer reached, once per path to it (a named node reached twice appears twice).
  const std::vector<producer>& producers() const noexcept { return producers_; }

  /// Whether one matrix is the target of two outputs.
  bool writes_twice() const;
  /// Whether some target is read at other elements than the ones written there.
  bool order_dependent() const;
  /// Whether some target is read at all.
  bool reads_a_target() const;

 private:
  struct access {
    const void* matrix;
    access_map map;
  };
  std::vector<access> reads_;
  std::vector<access> writes_;
  std::vector<producer> producers_;
  std::vector<reduction_site> reductions_;
};

}  // namespace tessera::kernel_generator
