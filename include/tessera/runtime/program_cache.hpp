#pragma once
// The one program cache of tessera: every front door builds its kernels here.
// In memory, the same (source, options) builds once per process and device; on disk,
// program binaries are kept keyed by device, driver version, source and options, and signed
// with a key of the cache directory (signing.key), so that no entry another hand wrote reaches
// the driver.
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <tessera/runtime/kernel.hpp>
#include <tessera/runtime/opencl.hpp>

namespace tessera::runtime {

class context;

/// A program built for one device; kernels are made from it by name.
class program {
 public:
  program(cl::Program handle, std::string name, cl::Device device)
      : handle_(std::move(handle)), name_(std::move(name)), device_(std::move(device)) {}
  const cl::Program& handle() const noexcept { return handle_; }
  const std::string& name() const noexcept { return name_; }
  /// A new kernel object knowing its work-group limit and preferred multiple on the device;
  /// throws opencl_error naming the kernel if it is not in the program.
  kernel make_kernel(const std::string& kernel_name) const;

 private:
  cl::Program handle_;
  std::string name_;
  cl::Device device_;
};

/// Counters readable by tests and tools.
struct program_cache_counters {
  std::size_t memory_hits = 0;      // served from this process's memory
  std::size_t disk_hits = 0;        // loaded from a binary on disk
  std::size_t builds = 0;           // compiled from source (memory and disk missed)
  std::size_t corrupt_entries = 0;  // disk entries rejected: signature, key, binary or build status
  std::size_t disk_writes = 0;
  std::size_t lock_timeouts = 0;    // built without the disk cache: another process kept the entry's lock
  double build_seconds = 0;         // time spent compiling from source
  double load_seconds = 0;          // time spent building from disk binaries
};

/// Where binaries go: TESSERA_CACHE=off disables, TESSERA_CACHE_DIR overrides,
/// else $XDG_CACHE_HOME/tessera, else ~/.cache/tessera. Empty when disabled.
std::optional<std::filesystem::path> disk_cache_directory_from_environment();

/// Why directory cannot keep program binaries ("exists and is not a folder", "is not
/// writable: Permission denied", ...), or nothing when it can. The cache itself only rebuilds
/// then; tools use this to say so.
std::optional<std::string> disk_cache_problem(const std::filesystem::path& directory);

class program_cache {
 public:
  /// disk_directory: where binaries are kept; nullopt keeps them in memory only.
  /// Throws argument_error when TESSERA_CACHE_LOCK_TIMEOUT is not a number of seconds.
  program_cache(const context& ctx, std::optional<std::filesystem::path> disk_directory);

  /// The program built from source with options, from memory, disk or a fresh build.
  /// name names the program in errors and in TESSERA_SHOW_KERNELS output.
  /// Processes wanting the same entry build it once: the others wait for its lock, at most
  /// TESSERA_CACHE_LOCK_TIMEOUT seconds (default 60) and not at all while its holder is
  /// stopped; past that they build without the disk entry, with one warning on stderr naming
  /// the lock file and the holder.
  /// Throws build_error with the build log when compilation fails.
  std::shared_ptr<const program> get(const std::string& name, const std::string& source,
                                     const std::string& options = {});

  program_cache_counters counters() const;
  void reset_counters();
  const std::optional<std::filesystem::path>& disk_directory() const noexcept { return disk_directory_; }
  /// The file a (source, options) pair is stored in (for tests and tools).
  std::filesystem::path entry_path(const std::string& source, const std::string& options) const;

 private:
  struct entry {
    std::mutex mutex;
    std::shared_ptr<const program> built;
  };
  std::string disk_key(const std::string& source, const std::string& options) const;
  std::optional<cl::Program> load_from_disk(const std::string& key, const std::filesystem::path& file,
                                            const std::string& options, const std::string& signing_key);
  void store_to_disk(const cl::Program& built, const std::string& key, const std::filesystem::path& file,
                     const std::string& signing_key);
  /// The disk directory's signing key (made on first use); null when it can be neither read nor made.
  const std::string* signing_key();
  void report_lock_timeout(const std::string& name, const std::filesystem::path& lock_file, const std::string& holder,
                           double waited_seconds);
  cl::Program build_from_source(const std::string& name, const std::string& source,
                                const std::string& options);

  const context& context_;
  std::optional<std::filesystem::path> disk_directory_;
  bool show_kernels_;
  double lock_timeout_seconds_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<entry>> entries_;
  program_cache_counters counters_;
  std::unordered_set<std::string> warned_locks_;
  bool signing_key_loaded_ = false;
  std::optional<std::string> signing_key_;
};

/// FNV-1a, 64 bits: names cache files.
std::uint64_t fnv1a_64(std::string_view bytes, std::uint64_t seed = 0xcbf29ce484222325ull);

}  // namespace tessera::runtime
