#pragma once
// Kernel sources kept as real .cl files under src/ and embedded at build time.
#include <map>
#include <string_view>

namespace tessera::runtime {

/// All embedded files by path relative to src/ (e.g. "blas/gemm.cl").
const std::map<std::string_view, std::string_view>& embedded_source_table();

/// The text of one embedded file; throws tessera::error naming the path if absent.
std::string_view embedded_source(std::string_view path);

}  // namespace tessera::runtime
