#pragma once
// NumPy .npy files (format versions 1.0 to 3.0) of little-endian float32 or float64, in C or
// Fortran order: what `tessera-tile run` reads and writes.
#include <filesystem>
#include <string>
#include <vector>

#include <tessera/runtime/error.hpp>
#include <tessera/tile/host_tensor.hpp>
#include <tessera/tile/lowering.hpp>

namespace tessera::tile {

/// A file that is not a .npy tessera reads: carries the path and the reason.
class npy_error : public tessera::error {
 public:
  npy_error(std::filesystem::path path, const std::string& reason);
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

/// The contents of a .npy file in row-major order, values widened to double.
struct npy_array {
  shape dims;
  element_type type = element_type::float64;
  std::vector<double> values;
};

npy_array read_npy(const std::filesystem::path& path);
/// Parses .npy bytes; path only names the source in errors.
npy_array parse_npy(const std::string& bytes, const std::filesystem::path& path = "<memory>");

/// Writes values (row-major) as a C-order .npy of the given type (format 1.0), atomically
/// (runtime::write_file_atomically): throws runtime::file_error naming the path.
void write_npy(const std::filesystem::path& path, const shape& dims, const std::vector<double>& values,
               element_type type);
std::string format_npy(const shape& dims, const std::vector<double>& values, element_type type);

}  // namespace tessera::tile
