#pragma once
// OpenCL C names of C++ scalar types: the one mapping every front door uses.
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace tessera::codegen {

template <typename T>
constexpr std::string_view opencl_type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "char";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uchar";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "short";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "ushort";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint";
  else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, long long>) return "long";
  else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, unsigned long long>) return "ulong";
  else static_assert(sizeof(T) == 0, "no OpenCL C type for this C++ type");
}

/// Whether kernels using T need `#pragma OPENCL EXTENSION cl_khr_fp64 : enable`.
template <typename T>
constexpr bool needs_fp64() {
  return std::is_same_v<T, double>;
}

}  // namespace tessera::codegen
