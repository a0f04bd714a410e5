#pragma once
// Size arithmetic on values a caller gives (element counts, offsets, strides, spans, byte
// sizes): the one place where every front door adds, multiplies and converts them, so that a
// value that does not fit is an error naming the argument, never a number that wrapped around
// and then passed a bounds check (issue 15: a GEMM offset of SIZE_MAX - 15 reached the kernel).
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tessera::runtime {

// Each names what it computes (`name`: the argument or the quantity) and, when given, the
// operation (`operation`: "tessera::blas::gemm") in its message; both are views, so that the
// checks cost no allocation unless they fail.

/// An unsigned size argument as a signed 64-bit size. Throws argument_error naming it when it
/// is 2^63 or more: a negative value converted to size_t, as often as not.
std::int64_t checked_size(std::size_t value, std::string_view name, std::string_view operation = {});

/// a + b of sizes (a, b >= 0). Throws argument_error when a term is negative or the result
/// exceeds 2^63 - 1.
std::int64_t checked_sum(std::int64_t a, std::int64_t b, std::string_view name, std::string_view operation = {});

/// a * b of sizes (a, b >= 0). Throws argument_error when a factor is negative or the result
/// exceeds 2^63 - 1.
std::int64_t checked_product(std::int64_t a, std::int64_t b, std::string_view name,
                             std::string_view operation = {});

/// count * element_size bytes. Throws out_of_memory_error naming `what` when the product
/// overflows size_t: no device holds that much, whatever the arguments meant.
std::size_t checked_bytes(std::size_t count, std::size_t element_size, std::string_view what);

}  // namespace tessera::runtime
