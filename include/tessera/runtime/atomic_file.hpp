#pragma once
// Writing a whole file so that a reader, a crash or a full disk never leaves it half-written:
// the one home for every tool and cache that writes results (tune_*, tessera-tile, the
// program cache), and for reading such a file back whole.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <tessera/runtime/error.hpp>

namespace tessera::runtime {

/// A file could not be read or written; what() names the path and the reason.
class file_error : public error {
 public:
  file_error(std::filesystem::path path, std::string_view what);
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

/// Replaces path with contents in one step: a temporary file beside it is written, flushed,
/// checked, synced to disk and renamed over path, so path holds either its old contents or the
/// new ones, never a mix or a truncated file. The new file gets mode 0644 (less the umask).
/// Throws file_error naming the path (missing folder, a directory, no permission, full disk);
/// the temporary file is removed and an existing file at path is left untouched.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

/// Throws file_error, naming the path and the reason, unless write_file_atomically(path, ...)
/// could create the file now (the folder exists and takes a new file; path is no directory nor
/// special file). For tools that write their results at the end of a long run: they check
/// first. Leaves path as it is (a probe file beside it is created and removed).
void check_writable(const std::filesystem::path& path);

/// The whole contents of path, or nothing where it cannot be opened for reading (missing, no
/// permission): the caller names the file in its own terms (a defaults file, a shape suite).
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

}  // namespace tessera::runtime
