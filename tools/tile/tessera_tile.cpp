// tessera-tile: check and run Tile programs on NumPy .npy files.
//
//   tessera-tile check prog.tile
//   tessera-tile run prog.tile --in A=a.npy --in B=b.npy --out C=c.npy [--emit opencl] [--reference]
//   tessera-tile emit prog.tile --in A=a.npy --in B=b.npy        (print the kernels, run nothing)
//
// Errors print as "prog.tile:line:column: message" and exit with status 1. Outputs are written
// whole or not at all (runtime::write_file_atomically), after every --out path was checked.
#include <tessera/tile/tile.hpp>
#include <tessera/tile/npy.hpp>
#include <tessera/runtime/atomic_file.hpp>

#include "../standard_output.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace tile = tessera::tile;

namespace {

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string read_source(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw usage_error(fmt::format("{}: is a directory, not a Tile file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error(fmt::format("{}: cannot open the file ({})", path, std::strerror(errno)));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::map<std::string, std::string> parse_bindings(const std::vector<std::string>& items, const char* option) {
  std::map<std::string, std::string> out;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw usage_error(fmt::format("{} expects NAME=FILE.npy, got '{}'", option, item));
    if (!out.emplace(item.substr(0, eq), item.substr(eq + 1)).second)
      throw usage_error(fmt::format("{} names '{}' twice", option, item.substr(0, eq)));
  }
  return out;
}

struct loaded_inputs {
  tile::element_type type = tile::element_type::float32;
  std::vector<tile::npy_array> arrays;  // in header order
};

loaded_inputs load_inputs(const tile::program& p, const std::map<std::string, std::string>& files,
                          const std::string& dtype) {
  loaded_inputs in;
  for (const auto& [name, file] : files)
    if (!p.find_tensor(name) || p.tensors[*p.find_tensor(name)].from != tile::tensor_info::origin::input)
      throw usage_error(fmt::format("--in {}: the function has no input named '{}'", name, name));
  bool typed = false;
  for (const auto id : p.inputs) {
    const auto& name = p.tensors[id].name;
    const auto it = files.find(name);
    if (it == files.end()) throw usage_error(fmt::format("input '{}' needs --in {}=FILE.npy", name, name));
    in.arrays.push_back(tile::read_npy(it->second));
    if (typed && in.arrays.back().type != in.type)
      throw usage_error(fmt::format("{}: all inputs must have one element type (float32 or float64)", it->second));
    in.type = in.arrays.back().type;
    typed = true;
  }
  if (!dtype.empty()) {
    const auto wanted = dtype == "float64" ? tile::element_type::float64 : tile::element_type::float32;
    if (typed && wanted != in.type) throw usage_error("--dtype disagrees with the element type of the inputs");
    in.type = wanted;
  }
  return in;
}

template <typename T>
std::vector<tile::host_tensor<T>> to_host(const std::vector<tile::npy_array>& arrays) {
  std::vector<tile::host_tensor<T>> out;
  for (const auto& a : arrays) out.emplace_back(a.dims, std::vector<T>(a.values.begin(), a.values.end()));
  return out;
}

template <typename T>
std::vector<tile::host_tensor<T>> execute(const tile::function& f, const std::vector<tile::npy_array>& arrays,
                                          bool reference) {
  const auto host = to_host<T>(arrays);
  if (reference) return tile::interpret<T>(f.checked(), host);
  std::vector<tile::tensor<T>> inputs;
  for (const auto& h : host) inputs.emplace_back(h);
  std::vector<tile::host_tensor<T>> out;
  for (const auto& t : f.run<T>(inputs)) out.push_back(t.to_host_tensor());
  return out;
}

void print_kernels(const tile::function& f, const loaded_inputs& in) {
  std::vector<tile::tensor_layout> layouts;
  for (const auto& a : in.arrays) layouts.push_back(tile::tensor_layout::row_major(a.dims));
  const auto lowered = f.lowering(layouts, in.type);
  for (const auto& step : lowered.steps) {
    if (const auto* k = std::get_if<tile::kernel_launch>(&step)) {
      std::cout << fmt::format("// {}: {}, global size {}\n{}\n", k->name, k->summary, k->range.global[0], k->source);
    } else {
      const auto& mm = std::get<tile::matmul_launch>(step);
      std::cout << fmt::format("// matrix product dispatched to GEMM: {}\n// (computed today by this kernel)\n{}\n",
                               mm.call.to_string(), mm.fallback.source);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Check and run Tile programs on NumPy .npy files."};
  app.require_subcommand(1);
  std::string path, emit, dtype;
  std::vector<std::string> in_items, out_items;
  bool reference = false;

  auto* check = app.add_subcommand("check", "parse and check a Tile program");
  check->add_option("program", path, "the .tile file")->required();

  auto* run = app.add_subcommand("run", "run a Tile program on .npy inputs");
  run->add_option("program", path, "the .tile file")->required();
  run->add_option("--in", in_items, "an input: NAME=FILE.npy (float32 or float64)");
  run->add_option("--out", out_items, "where to write an output: NAME=FILE.npy");
  run->add_option("--emit", emit, "also print the generated code: 'opencl'")->check(CLI::IsMember({"opencl"}));
  run->add_flag("--reference", reference, "run the host reference interpreter instead of the device");
  run->add_option("--dtype", dtype, "element type when there are no inputs")->check(CLI::IsMember({"float32", "float64"}));

  auto* emit_cmd = app.add_subcommand("emit", "print the OpenCL kernels for .npy inputs without running them");
  emit_cmd->add_option("program", path, "the .tile file")->required();
  emit_cmd->add_option("--in", in_items, "an input: NAME=FILE.npy");
  emit_cmd->add_option("--dtype", dtype, "element type when there are no inputs")->check(CLI::IsMember({"float32", "float64"}));

  CLI11_PARSE(app, argc, argv);

  try {
    const std::string source = read_source(path);
    tile::function f = tile::compile(source);
    if (check->parsed()) {
      std::cout << fmt::format("{}: ok ({} input(s), {} output(s), {} statement(s))\n", path, f.checked().inputs.size(),
                               f.checked().outputs.size(), f.checked().statements.size());
      return tessera::tools::flush_standard_output("tessera-tile", 0);
    }
    const loaded_inputs in = load_inputs(f.checked(), parse_bindings(in_items, "--in"), dtype);
    if (emit_cmd->parsed() || emit == "opencl") print_kernels(f, in);
    if (emit_cmd->parsed()) return tessera::tools::flush_standard_output("tessera-tile", 0);

    const auto outputs = parse_bindings(out_items, "--out");
    for (const auto& [name, file] : outputs) {
      const auto& outs = f.checked().outputs;
      // name captured by a named copy: clang 14 cannot capture a structured binding.
      if (std::none_of(outs.begin(), outs.end(),
                       [&, &wanted = name](std::size_t id) { return f.checked().tensors[id].name == wanted; }))
        throw usage_error(fmt::format("--out {}: the function has no output named '{}'", name, name));
      // A missing folder or a directory fails now, not after the run.
      tessera::runtime::check_writable(file);
    }
    auto write = [&](const auto& results) {
      for (std::size_t i = 0; i < results.size(); ++i) {
        const auto& name = f.checked().tensors[f.checked().outputs[i]].name;
        const auto it = outputs.find(name);
        if (it == outputs.end()) {
          std::cout << fmt::format("{}: shape {} (not written; add --out {}=FILE.npy)\n", name,
                                   tile::to_string(results[i].dims), name);
          continue;
        }
        tile::write_npy(it->second, results[i].dims, std::vector<double>(results[i].values.begin(), results[i].values.end()),
                        in.type);
        std::cout << fmt::format("{}: shape {} written to {}\n", name, tile::to_string(results[i].dims), it->second);
      }
    };
    if (in.type == tile::element_type::float32) write(execute<float>(f, in.arrays, reference));
    else write(execute<double>(f, in.arrays, reference));
    return tessera::tools::flush_standard_output("tessera-tile", 0);
  } catch (const tile::error& e) {
    std::cerr << fmt::format("{}:{}\n", path, e.what());
  } catch (const std::bad_alloc&) {
    std::cerr << "tessera-tile: out of host memory: a tensor of the program is too large for this machine\n";
  } catch (const std::exception& e) {
    std::cerr << fmt::format("tessera-tile: {}\n", e.what());
  }
  return 1;
}
