#include <tessera/runtime/atomic_file.hpp>
#include <tessera/tile/npy.hpp>

#include <bit>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace tessera::tile {

npy_error::npy_error(std::filesystem::path path, const std::string& reason)
    : tessera::error(fmt::format("{}: {}", path.string(), reason)), path_(std::move(path)) {}

namespace {

static_assert(std::endian::native == std::endian::little, "the .npy reader assumes a little-endian host");

/// The value of `'key':` in the header's Python dict literal, as raw text.
std::string header_value(const std::string& header, const std::string& key, const std::filesystem::path& path) {
  const std::string quoted[] = {"'" + key + "'", "\"" + key + "\""};
  std::size_t at = std::string::npos;
  for (const auto& q : quoted)
    if ((at = header.find(q)) != std::string::npos) {
      at += q.size();
      break;
    }
  if (at == std::string::npos) throw npy_error(path, fmt::format("the header has no '{}'", key));
  at = header.find(':', at);
  if (at == std::string::npos) throw npy_error(path, fmt::format("the header's '{}' has no value", key));
  ++at;
  while (at < header.size() && std::isspace(static_cast<unsigned char>(header[at]))) ++at;
  std::size_t end = at;
  if (at < header.size() && header[at] == '(') {
    end = header.find(')', at);
    if (end == std::string::npos) throw npy_error(path, "the header's shape is not closed");
    return header.substr(at, end - at + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  std::string v = header.substr(at, end - at);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  return v;
}

}  // namespace

npy_array parse_npy(const std::string& bytes, const std::filesystem::path& path) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    throw npy_error(path, "not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_length, header_start;
  if (major == 1) {
    header_length = static_cast<unsigned char>(bytes[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw npy_error(path, "truncated header");
    header_length = 0;
    for (int i = 0; i < 4; ++i) header_length |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    header_start = 12;
  } else {
    throw npy_error(path, fmt::format("unsupported .npy format version {}", major));
  }
  if (bytes.size() < header_start + header_length) throw npy_error(path, "truncated header");
  const std::string header = bytes.substr(header_start, header_length);

  npy_array a;
  std::string descr = header_value(header, "descr", path);
  if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"')) descr = descr.substr(1, descr.size() - 2);
  std::size_t element_size;
  if (descr == "<f4" || descr == "=f4" || descr == "f4") {
    a.type = element_type::float32;
    element_size = 4;
  } else if (descr == "<f8" || descr == "=f8" || descr == "f8") {
    a.type = element_type::float64;
    element_size = 8;
  } else {
    throw npy_error(path, fmt::format("element type '{}' is not supported; tessera reads little-endian float32 ('<f4') "
                                      "and float64 ('<f8')",
                                      descr));
  }
  const std::string order = header_value(header, "fortran_order", path);
  if (order != "False" && order != "True") throw npy_error(path, fmt::format("bad fortran_order '{}'", order));
  const bool fortran = order == "True";
  const std::string shape_text = header_value(header, "shape", path);
  if (shape_text.size() < 2 || shape_text.front() != '(') throw npy_error(path, fmt::format("bad shape '{}'", shape_text));
  std::stringstream items(shape_text.substr(1, shape_text.size() - 2));
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto first = item.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    item = item.substr(first, item.find_last_not_of(" \tL") - first + 1);
    std::int64_t d = 0;
    for (const char ch : item) {
      if (!std::isdigit(static_cast<unsigned char>(ch))) throw npy_error(path, fmt::format("bad shape '{}'", shape_text));
      try {
        d = checked_add(checked_mul(d, 10), ch - '0');
      } catch (const arithmetic_overflow&) {
        throw npy_error(path, fmt::format("shape '{}' is too large", shape_text));
      }
    }
    a.dims.push_back(d);
  }
  std::int64_t count;
  try {
    count = element_count(a.dims);
  } catch (const arithmetic_overflow&) {
    throw npy_error(path, fmt::format("shape '{}' is too large", shape_text));
  }
  const std::size_t data_start = header_start + header_length;
  if (static_cast<std::size_t>(count) > (bytes.size() - data_start) / element_size) {
    std::uint64_t needed = 0;  // in bytes, where that fits 64 bits
    if (__builtin_mul_overflow(static_cast<std::uint64_t>(count), element_size, &needed))
      throw npy_error(path, fmt::format("shape {} needs {} elements of {} bytes, the file has {} bytes of data",
                                        to_string(a.dims), count, element_size, bytes.size() - data_start));
    throw npy_error(path, fmt::format("shape {} needs {} bytes of data, the file has {}", to_string(a.dims), needed,
                                      bytes.size() - data_start));
  }
  std::vector<double> raw(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (element_size == 4) {
      float f;
      std::memcpy(&f, bytes.data() + data_start + 4 * i, 4);
      raw[i] = f;
    } else {
      std::memcpy(&raw[i], bytes.data() + data_start + 8 * i, 8);
    }
  }
  if (!fortran || a.dims.size() < 2) {
    a.values = std::move(raw);
    return a;
  }
  // Fortran order: the first axis is contiguous; reorder to row-major.
  a.values.resize(raw.size());
  std::vector<std::int64_t> index(a.dims.size(), 0);
  for (std::size_t e = 0; e < raw.size(); ++e) {
    std::int64_t o = 0, stride = 1;
    for (std::size_t k = 0; k < a.dims.size(); ++k) {
      o += index[k] * stride;
      stride *= a.dims[k];
    }
    a.values[e] = raw[static_cast<std::size_t>(o)];
    for (std::size_t k = a.dims.size(); k-- > 0;) {
      if (++index[k] < a.dims[k]) break;
      index[k] = 0;
    }
  }
  return a;
}

npy_array read_npy(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw npy_error(path, "is a directory, not a .npy file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw npy_error(path, fmt::format("cannot open the file ({})", std::strerror(errno)));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_npy(buffer.str(), path);
}

std::string format_npy(const shape& dims, const std::vector<double>& values, element_type type) {
  if (static_cast<std::int64_t>(values.size()) != element_count(dims))
    throw argument_error(fmt::format("format_npy: {} values for shape {}", values.size(), to_string(dims)));
  std::string shape_text = dims.size() == 1 ? fmt::format("({},)", dims[0]) : fmt::format("({})", fmt::join(dims, ", "));
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   type == element_type::float32 ? "<f4" : "<f8", shape_text);
  // Pad so that the data starts at a multiple of 64 bytes; the header ends with '\n'.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  for (const double v : values) {
    if (type == element_type::float32) {
      const float f = static_cast<float>(v);
      out.append(reinterpret_cast<const char*>(&f), 4);
    } else {
      out.append(reinterpret_cast<const char*>(&v), 8);
    }
  }
  return out;
}

void write_npy(const std::filesystem::path& path, const shape& dims, const std::vector<double>& values,
               element_type type) {
  // Whole or not at all: an older file at path survives a full disk or an interrupted run.
  runtime::write_file_atomically(path, format_npy(dims, values, type));
}

}  // namespace tessera::tile
