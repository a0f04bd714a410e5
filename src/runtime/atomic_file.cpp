#include <tessera/runtime/atomic_file.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::runtime {

file_error::file_error(std::filesystem::path path, std::string_view what)
    : error(fmt::format("{}: {}", path.string(), what)), path_(std::move(path)) {}

namespace {

// Closes and removes the temporary file unless it was renamed into place.
class temporary_file {
 public:
  explicit temporary_file(std::filesystem::path path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    created_ = fd_ >= 0;
  }
  temporary_file(const temporary_file&) = delete;
  temporary_file& operator=(const temporary_file&) = delete;
  ~temporary_file() {
    close();
    if (created_ && !kept_) ::unlink(path_.c_str());
  }
  int fd() const { return fd_; }
  int close() {
    const int status = fd_ >= 0 ? ::close(fd_) : 0;
    fd_ = -1;
    return status;
  }
  void keep() { kept_ = true; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  bool created_ = false;
  bool kept_ = false;
};

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view doing, int error_number) {
  throw file_error(path, fmt::format("cannot {}: {}", doing, std::strerror(error_number)));
}

// The checks before a write; returns the folder the file goes to.
std::filesystem::path checked_folder(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw file_error(path, "is a directory, not a file");
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(folder, ec)) throw file_error(path, "its folder does not exist");
  // Renaming over a special file (/dev/full, a FIFO) would replace it: refuse before writing.
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode))
    throw file_error(path, "exists and is not a regular file");
  return folder;
}

// A temporary file beside path, opened for writing (removed unless kept).
std::unique_ptr<temporary_file> temporary_beside(const std::filesystem::path& path, const std::filesystem::path& folder) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  auto temp = std::make_unique<temporary_file>(
      folder / fmt::format(".{}.{}.{:x}.tmp", path.filename().string(), ::getpid(), rng()));
  if (temp->fd() < 0) fail(path, fmt::format("create a temporary file in {}", folder.string()), errno);
  return temp;
}

}  // namespace

void check_writable(const std::filesystem::path& path) { temporary_beside(path, checked_folder(path)); }

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  const auto folder = checked_folder(path);
  const auto owned = temporary_beside(path, folder);
  temporary_file& temp = *owned;
  const auto& temp_path = temp.path();
  // A full disk shows as a short write (ENOSPC) here or as a failing fsync/close below.
  for (std::size_t written = 0; written < contents.size();) {
    const ssize_t n = ::write(temp.fd(), contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "write", errno);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(temp.fd()) != 0) fail(path, "sync to disk", errno);
  if (temp.close() != 0) fail(path, "close", errno);
  if (::rename(temp_path.c_str(), path.c_str()) != 0) fail(path, "rename the temporary file into place", errno);
  temp.keep();
}

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

}  // namespace tessera::runtime
