#pragma once
// SHA-256 and HMAC-SHA-256 (FIPS 180-4, RFC 2104): what the program cache signs its disk
// entries with, so that an entry another hand wrote is refused before its binary reaches the
// driver (a forged binary crashes PoCL). Small and dependency-free; not for bulk hashing.
#include <array>
#include <cstdint>
#include <string_view>

namespace tessera::runtime {

using sha256_digest = std::array<std::uint8_t, 32>;

sha256_digest sha256(std::string_view bytes);

/// HMAC-SHA-256 of message under key.
sha256_digest hmac_sha256(std::string_view key, std::string_view message);

}  // namespace tessera::runtime
