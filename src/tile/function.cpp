#include <tessera/tile/function.hpp>
#include <tessera/blas/gemm.hpp>
#include <tessera/tile/parser.hpp>

#include <algorithm>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include <tessera/runtime/kernel_cache.hpp>
#include <tessera/runtime/program_cache.hpp>

namespace tessera::tile {

namespace {

// What a call runs for one (element type, input layouts): kept in the function's kernel cache.
struct compiled_plan {
  compiled_plan(lowered_program l, std::vector<std::optional<runtime::kernel>> k)
      : lowered(std::move(l)), kernels(std::move(k)) {}

  lowered_program lowered;
  // Per step: its kernel; none for a GEMM step (lower_matmul runs it).
  std::vector<std::optional<runtime::kernel>> kernels;
  // Held while a call allocates intermediates and launches: calls sharing a plan share them.
  std::mutex launch_mutex;
  // Buffers of intermediate tensors (materialized, neither input nor output), allocated on the
  // first call and reused by every later one: the context's one in-order queue runs a call's
  // kernels after the previous call's, so no call can see another's intermediates.
  std::vector<runtime::device_buffer> intermediates;
};

std::string layout_key(const tensor_layout& l) {
  return fmt::format("[{}|{}|{}]", fmt::join(l.dims, ","), fmt::join(l.strides, ","), l.offset);
}

// Outputs given by the caller are written where the lowering expects fresh ones: the same
// context, exactly the bound shape, dense row-major from offset 0, memory of their own (an
// output sharing memory with an input or another output would be read while written).
template <runtime::device_scalar T>
void check_given_outputs(const program& p, const lowered_program& lp, const runtime::context& ctx,
                         const std::vector<tensor<T>>& inputs, const std::vector<tensor<T>>& outputs) {
  if (outputs.size() != p.outputs.size())
    throw argument_error(fmt::format("Tile function: {} outputs given, the function has {}", outputs.size(),
                                     p.outputs.size()));
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const auto& out = outputs[o];
    const auto& name = p.tensors[p.outputs[o]].name;
    const tensor_layout& expected = lp.layouts[p.outputs[o]];
    if (&out.ctx() != &ctx)
      throw argument_error(fmt::format("Tile function: output {} lives on another context than the inputs", name));
    if (out.dims() != expected.dims)
      throw shape_error(p.tensors[p.outputs[o]].position,
                        fmt::format("output {} has shape ({}), the call produces ({})", name,
                                    fmt::join(out.dims(), ", "), fmt::join(expected.dims, ", ")));
    if (out.layout() != expected)
      throw argument_error(fmt::format("Tile function: output {} must be a dense row-major tensor of its own", name));
    if (out.size() == 0) continue;
    if (static_cast<std::size_t>(out.size()) * sizeof(T) > out.storage().bytes())
      throw argument_error(fmt::format("Tile function: output {} has less memory than its shape needs", name));
    auto same_memory = [&](const tensor<T>& other) { return other.buffer()() == out.buffer()(); };
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (same_memory(inputs[i]))
        throw argument_error(fmt::format("Tile function: output {} shares memory with input {}", name,
                                         p.tensors[p.inputs[i]].name));
    for (std::size_t other = 0; other < o; ++other)
      if (same_memory(outputs[other]))
        throw argument_error(fmt::format("Tile function: outputs {} and {} share memory", p.tensors[p.outputs[other]].name,
                                         name));
  }
}

}  // namespace

struct function::cache {
  // Plans by element type and input layouts, per context.
  runtime::kernel_cache<std::string, compiled_plan> plans;
};

function::function(program p, lowering_options options)
    : program_(std::make_shared<const program>(std::move(p))), options_(options), cache_(std::make_shared<cache>()) {}

lowered_program function::lowering(const std::vector<tensor_layout>& inputs, element_type type) const {
  return lower(*program_, inputs, type, options_);
}

std::size_t function::cached_plans() const { return cache_->plans.size(); }

template <runtime::device_scalar T>
std::vector<tensor<T>> function::run(const std::vector<tensor<T>>& inputs) const {
  return run_impl<T>(inputs, nullptr);
}

template <runtime::device_scalar T>
void function::run(const std::vector<tensor<T>>& inputs, const std::vector<tensor<T>>& outputs) const {
  run_impl<T>(inputs, &outputs);
}

template <runtime::device_scalar T>
std::vector<tensor<T>> function::run_impl(const std::vector<tensor<T>>& inputs,
                                          const std::vector<tensor<T>>* given_outputs) const {
  const runtime::context& ctx = inputs.empty() ? runtime::context::get() : inputs.front().ctx();
  if constexpr (std::is_same_v<T, double>) runtime::require_fp64(ctx.device());
  std::vector<tensor_layout> layouts;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (&inputs[i].ctx() != &ctx)
      throw argument_error(fmt::format("Tile function: input {} lives on another context than input 0", i));
    layouts.push_back(inputs[i].layout());
  }
  // Shapes are checked (and errors thrown) before anything is cached.
  std::string key = fmt::format("{}|", sizeof(T));
  for (const auto& l : layouts) key += layout_key(l);
  const std::shared_ptr<compiled_plan> plan = cache_->plans.get(ctx, key, [&] {
    lowered_program lowered = lower(*program_, layouts, element_type_of<T>(), options_);
    std::vector<std::optional<runtime::kernel>> kernels;
    for (const auto& step : lowered.steps) {
      if (const auto* k = std::get_if<kernel_launch>(&step))
        kernels.push_back(ctx.programs().get(k->name, k->source)->make_kernel(k->name));
      else
        kernels.emplace_back();
    }
    return compiled_plan(std::move(lowered), std::move(kernels));
  });

  const lowered_program& lp = plan->lowered;
  const auto& p = *program_;
  if (given_outputs) check_given_outputs(p, lp, ctx, inputs, *given_outputs);
  std::vector<runtime::device_buffer> storage(p.tensors.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) storage[p.inputs[i]] = inputs[i].storage();
  for (std::size_t o = 0; given_outputs && o < p.outputs.size(); ++o) storage[p.outputs[o]] = (*given_outputs)[o].storage();
  {
    std::lock_guard lock(plan->launch_mutex);
    plan->intermediates.resize(p.tensors.size());
    for (std::size_t t = 0; t < p.tensors.size(); ++t) {
      if (!lp.materialized[t] || p.tensors[t].from == tensor_info::origin::input || storage[t].owner()) continue;
      const auto bytes = runtime::checked_bytes(static_cast<std::size_t>(element_count(lp.shapes.shapes[t])),
                                                sizeof(T), "Tile tensor");
      const bool is_output = std::find(p.outputs.begin(), p.outputs.end(), t) != p.outputs.end();
      if (is_output) {
        storage[t] = runtime::device_buffer(ctx, bytes);  // the caller keeps it: always fresh
      } else {
        if (!plan->intermediates[t].owner()) plan->intermediates[t] = runtime::device_buffer(ctx, bytes);
        storage[t] = plan->intermediates[t];
      }
    }
    for (std::size_t s = 0; s < lp.steps.size(); ++s) {
      if (const auto* mm = std::get_if<matmul_launch>(&lp.steps[s])) {
        lower_matmul<T>(ctx, mm->call, storage[mm->call.a], storage[mm->call.b], storage[mm->call.c]);
        continue;
      }
      const kernel_launch& k = std::get<kernel_launch>(lp.steps[s]);
      std::vector<runtime::kernel_argument> arguments;
      for (const auto t : k.tensors) arguments.emplace_back(storage[t].handle());
      plan->kernels[s]->launch(ctx, k.range, arguments);
    }
  }
  std::vector<tensor<T>> outputs;
  if (given_outputs) return outputs;
  for (const auto o : p.outputs) outputs.emplace_back(storage[o], lp.layouts[o], ctx);
  return outputs;
}

template std::vector<tensor<float>> function::run(const std::vector<tensor<float>>&) const;
template std::vector<tensor<double>> function::run(const std::vector<tensor<double>>&) const;
template void function::run(const std::vector<tensor<float>>&, const std::vector<tensor<float>>&) const;
template void function::run(const std::vector<tensor<double>>&, const std::vector<tensor<double>>&) const;

function compile(std::string_view source, lowering_options options) { return function(check(source), options); }

template <runtime::device_scalar T>
void lower_matmul(const runtime::context& ctx, const gemm_call& call, const runtime::device_buffer& a,
                  const runtime::device_buffer& b, const runtime::device_buffer& c) {
  (void)ctx;  // the buffers carry their context
  blas::gemm_arguments<T> args;
  args.trans_a = call.transpose_a ? blas::transpose::trans : blas::transpose::none;
  args.trans_b = call.transpose_b ? blas::transpose::trans : blas::transpose::none;
  args.m = call.m, args.n = call.n, args.k = call.k, args.alpha = T(1), args.beta = T(0);
  args.a = &a, args.a_offset = static_cast<std::size_t>(call.offset_a), args.lda = call.lda, args.stride_a = call.stride_a;
  args.b = &b, args.b_offset = static_cast<std::size_t>(call.offset_b), args.ldb = call.ldb, args.stride_b = call.stride_b;
  args.c = &c, args.c_offset = static_cast<std::size_t>(call.offset_c), args.ldc = call.ldc, args.stride_c = call.stride_c;
  args.batch_count = call.batch_count;
  blas::gemm(args);
}

template void lower_matmul<float>(const runtime::context&, const gemm_call&, const runtime::device_buffer&,
                                  const runtime::device_buffer&, const runtime::device_buffer&);
template void lower_matmul<double>(const runtime::context&, const gemm_call&, const runtime::device_buffer&,
                                   const runtime::device_buffer&, const runtime::device_buffer&);

}  // namespace tessera::tile
