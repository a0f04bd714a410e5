#include <tessera/runtime/atomic_file.hpp>
#include <tessera/runtime/context.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/runtime/program_cache.hpp>
#include <tessera/runtime/sha256.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace tessera::runtime {

namespace {

constexpr std::string_view file_magic = "TESSERA-PROGRAM-BINARY 2\n";
constexpr std::size_t signature_size = std::tuple_size_v<sha256_digest>;

bool env_is(const char* name, std::string_view value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string_view(v) == value;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The process holding an entry's lock, as it wrote itself into the lock file ("1234 tune_nn"),
// and whether it is stopped (SIGSTOP, a debugger): it will not release the lock by itself.
struct lock_holder {
  std::string description = "an unknown process";
  bool stopped = false;
};

// Whether the kernel's lock table (/proc/locks) shows process `pid` holding a flock on the file
// open at `fd`; nullopt where the table cannot be read. The pid in a lock file may be stale: a
// process that has just taken the lock has not written itself yet, so the file still names the
// previous holder, which may be exiting under a debugger-like stop of its own (LeakSanitizer
// stops every thread with ptrace at exit), and a waiter must not give up on such a process.
std::optional<bool> holds_flock(int fd, int pid) {
  struct stat file {};
  std::ifstream table("/proc/locks");
  if (::fstat(fd, &file) != 0 || !table) return std::nullopt;
  // "1: FLOCK  ADVISORY  WRITE 1234 fd:01:567 0 EOF"; a blocked request reads "1: -> FLOCK ...".
  const std::string file_id = fmt::format("{:02x}:{:02x}:{}", major(file.st_dev), minor(file.st_dev),
                                          static_cast<unsigned long>(file.st_ino));
  for (std::string line; std::getline(table, line);) {
    std::istringstream fields(line);
    std::string number, type, mode, access, device_and_inode;
    int owner = 0;
    if (fields >> number >> type >> mode >> access >> owner >> device_and_inode && type == "FLOCK" &&
        owner == pid && device_and_inode == file_id)
      return true;
  }
  return false;
}

lock_holder read_lock_holder(int fd) {
  char text[128] = {};
  const ssize_t got = ::pread(fd, text, sizeof text - 1, 0);
  lock_holder holder;
  int pid = 0;
  if (got <= 0 || std::sscanf(text, "%d", &pid) != 1 || pid <= 0) return holder;
  std::string_view line(text, static_cast<std::size_t>(got));
  line = line.substr(0, line.find('\n'));
  holder.description = fmt::format("process {}", line);
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string status;
  if (std::getline(stat, status)) {
    // "pid (comm) state ...": comm may hold spaces and parentheses, the state follows the last ')'.
    const auto close = status.rfind(')');
    if (close != std::string::npos && close + 2 < status.size())
      holder.stopped = status[close + 2] == 'T' || status[close + 2] == 't';
  }
  // A stopped process named by a stale lock file is not the holder: keep waiting for the real one.
  if (holder.stopped && holds_flock(fd, pid) == false) holder.stopped = false;
  if (holder.stopped) holder.description += " (stopped)";
  return holder;
}

// An exclusive lock, across processes, on one disk entry: held while the entry is looked up,
// built and written, so that processes wanting the same program build it once and the others
// load the result. It also keeps them from compiling one program at the same moment, which the
// driver may not survive (PoCL's own kernel cache races there: pocl/pocl#586, #1480).
// The holder writes its pid into the lock file. A waiter gives up after timeout_seconds, or at
// once when the holder is stopped, and then builds without the disk entry (issue 15: a stopped
// holder made every other process wait forever).
// Without a lock file (unwritable directory) it does nothing: the entry only costs rebuilds.
class entry_file_lock {
 public:
  entry_file_lock(const std::filesystem::path& entry, double timeout_seconds) : path_(entry) {
    std::error_code ec;
    std::filesystem::create_directories(entry.parent_path(), ec);
    path_.replace_extension(".lock");
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return;
    const auto start = std::chrono::steady_clock::now();
    auto pause = std::chrono::milliseconds(1);
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) {
        release();
        return;
      }
      holder_ = read_lock_holder(fd_);
      waited_seconds_ = seconds_since(start);
      if (holder_.stopped || waited_seconds_ >= timeout_seconds) {
        timed_out_ = true;
        release();
        return;
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
    // Who holds it, for the processes that wait: "pid program".
    const std::string me = fmt::format("{} {}\n", ::getpid(), program_invocation_short_name);
    if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, me.data(), me.size(), 0);
  }
  entry_file_lock(const entry_file_lock&) = delete;
  entry_file_lock& operator=(const entry_file_lock&) = delete;
  ~entry_file_lock() { release(); }  // closing the descriptor releases the lock

  /// Another process kept the lock past the timeout, or is stopped while holding it.
  bool timed_out() const noexcept { return timed_out_; }
  const std::filesystem::path& path() const noexcept { return path_; }
  const lock_holder& holder() const noexcept { return holder_; }
  double waited_seconds() const noexcept { return waited_seconds_; }

 private:
  void release() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  std::filesystem::path path_;
  int fd_ = -1;
  bool timed_out_ = false;
  lock_holder holder_;
  double waited_seconds_ = 0;
};

// TESSERA_CACHE_LOCK_TIMEOUT: seconds to wait for another process building the same program
// (default 60: a large kernel can take that long to compile on a loaded machine).
double lock_timeout_from_environment() {
  const char* text = std::getenv("TESSERA_CACHE_LOCK_TIMEOUT");
  if (text == nullptr || *text == '\0') return 60.0;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(seconds >= 0) || seconds > 1e6)
    throw argument_error(fmt::format("TESSERA_CACHE_LOCK_TIMEOUT='{}': expected a number of seconds from 0 to 1e6",
                                     text));
  return seconds;
}

void append_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool read_u64(std::string_view& in, std::uint64_t& v) {
  if (in.size() < 8) return false;
  v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
  in.remove_prefix(8);
  return true;
}

// Entry layout: magic, key size, key, binary size, binary, then the HMAC-SHA-256 of everything
// before it under the directory's signing key. The key names everything the binary depends on
// (platform, device, vendor, driver and OpenCL versions, options, the whole source), so an entry
// for another device or driver is refused; the signature refuses an entry that no tessera
// process with this directory's signing key wrote (a forged binary crashes PoCL).
std::string encode_entry(const std::string& key, const std::vector<unsigned char>& binary,
                         const std::string& signing_key) {
  std::string out(file_magic);
  append_u64(out, key.size());
  out += key;
  append_u64(out, binary.size());
  out.append(reinterpret_cast<const char*>(binary.data()), binary.size());
  const sha256_digest signature = hmac_sha256(signing_key, out);
  out.append(reinterpret_cast<const char*>(signature.data()), signature.size());
  return out;
}

// The binary stored for key, or nothing when the file is truncated, corrupt, unsigned or for
// another key: nothing of it reaches the driver unless all of it checks out.
std::optional<std::vector<unsigned char>> decode_entry(std::string_view file, const std::string& key,
                                                       const std::string& signing_key) {
  if (file.size() < file_magic.size() + signature_size) return std::nullopt;
  const std::string_view body = file.substr(0, file.size() - signature_size);
  const sha256_digest expected = hmac_sha256(signing_key, body);
  const std::string_view signature = file.substr(file.size() - signature_size);
  unsigned char difference = 0;  // compared in full, as signatures are
  for (std::size_t i = 0; i < signature_size; ++i)
    difference |= static_cast<unsigned char>(signature[i]) ^ expected[i];
  if (difference != 0) return std::nullopt;
  std::string_view in = body;
  if (!in.starts_with(file_magic)) return std::nullopt;
  in.remove_prefix(file_magic.size());
  std::uint64_t key_size = 0, binary_size = 0;
  if (!read_u64(in, key_size) || in.size() < key_size || in.substr(0, key_size) != key) return std::nullopt;
  in.remove_prefix(key_size);
  if (!read_u64(in, binary_size) || in.size() != binary_size || binary_size == 0) return std::nullopt;
  return std::vector<unsigned char>(in.begin(), in.end());
}

// The directory's signing key: 32 random bytes in `signing.key` (mode 0600), made by the first
// process that needs it. Two processes making it at once both end up with the one that was
// linked into place first. Nothing when it can neither be read nor made (the disk cache is off).
std::optional<std::string> load_or_make_signing_key(const std::filesystem::path& directory) {
  constexpr std::size_t key_size = 32;
  const std::filesystem::path path = directory / "signing.key";
  const auto read_key = [&]() -> std::optional<std::string> {
    std::ifstream in(path, std::ios::binary);
    std::string bytes(key_size + 1, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (in.gcount() != static_cast<std::streamsize>(key_size)) return std::nullopt;
    bytes.resize(key_size);
    return bytes;
  };
  if (auto key = read_key()) return key;
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  std::random_device random;
  std::string bytes;
  while (bytes.size() < key_size) {
    const unsigned value = random();
    for (int i = 0; i < 4 && bytes.size() < key_size; ++i) bytes.push_back(static_cast<char>(value >> (8 * i)));
  }
  const auto temp = directory / fmt::format(".signing.key.{}.{:x}.tmp", ::getpid(), random());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    const bool written = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()) &&
                         ::fsync(fd) == 0;
    ::close(fd);
    if (written) (void)::link(temp.c_str(), path.c_str());  // fails when another process was first
    ::unlink(temp.c_str());
  }
  return read_key();
}

std::string build_log(const cl::Program& program, const cl::Device& device) {
  std::string log;
  program.getBuildInfo(device, CL_PROGRAM_BUILD_LOG, &log);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log.empty() ? "(the driver gave no build log)" : log;
}

}  // namespace

std::uint64_t fnv1a_64(std::string_view bytes, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::optional<std::filesystem::path> disk_cache_directory_from_environment() {
  if (env_is("TESSERA_CACHE", "off") || env_is("TESSERA_CACHE", "0")) return std::nullopt;
  if (const char* dir = std::getenv("TESSERA_CACHE_DIR"); dir && *dir) return std::filesystem::path(dir);
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "tessera";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "tessera";
  return std::nullopt;
}

std::optional<std::string> disk_cache_problem(const std::filesystem::path& directory) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // The folder, or else the nearest existing folder it would be created in.
  fs::path existing = directory;
  while (!fs::exists(existing, ec) && existing.has_parent_path() && existing != existing.parent_path())
    existing = existing.parent_path();
  if (!fs::exists(existing, ec)) return fmt::format("cannot be created: {}", ec ? ec.message() : "no such folder");
  const bool is_target = existing == directory;
  if (!fs::is_directory(existing, ec))
    return is_target ? std::string("exists and is not a folder")
                     : fmt::format("cannot be created: {} is not a folder", existing.string());
  if (::access(existing.c_str(), W_OK | X_OK) != 0)
    return is_target ? fmt::format("is not writable: {}", std::strerror(errno))
                     : fmt::format("cannot be created in {}: {}", existing.string(), std::strerror(errno));
  return std::nullopt;
}

kernel program::make_kernel(const std::string& kernel_name) const {
  const std::string where = fmt::format("kernel '{}' in program '{}'", kernel_name, name_);
  const auto check = [&where](cl_int status, const char* call) {
    if (status != CL_SUCCESS) throw opencl_error(call, status, where);
  };
  cl_int status = CL_SUCCESS;
  cl::Kernel k(handle_, kernel_name.c_str(), &status);
  check(status, "clCreateKernel");
  std::size_t kernel_limit = 0, multiple = 0, device_limit = 0;
  check(k.getWorkGroupInfo(device_, CL_KERNEL_WORK_GROUP_SIZE, &kernel_limit), "clGetKernelWorkGroupInfo");
  check(k.getWorkGroupInfo(device_, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, &multiple),
        "clGetKernelWorkGroupInfo");
  check(device_.getInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE, &device_limit), "clGetDeviceInfo");
  // A kernel's limit never exceeds the device's; a driver reporting 0 has no limit of its own.
  const std::size_t limit = kernel_limit == 0 ? device_limit : std::min(kernel_limit, device_limit);
  return kernel(std::move(k), kernel_name, limit, std::max<std::size_t>(multiple, 1));
}

program_cache::program_cache(const context& ctx, std::optional<std::filesystem::path> disk_directory)
    : context_(ctx),
      disk_directory_(std::move(disk_directory)),
      show_kernels_(env_is("TESSERA_SHOW_KERNELS", "1")),
      lock_timeout_seconds_(disk_directory_ ? lock_timeout_from_environment() : 0) {}

void program_cache::report_lock_timeout(const std::string& name, const std::filesystem::path& lock_file,
                                        const std::string& holder, double waited_seconds) {
  std::lock_guard lock(mutex_);
  ++counters_.lock_timeouts;
  // One warning per lock file: a process building many programs while another is stopped
  // says it once for each entry it could not use.
  if (!warned_locks_.insert(lock_file.string()).second) return;
  std::cerr << fmt::format(
      "tessera: the program cache's lock {} is held by {}{}; building '{}' without the disk cache\n",
      lock_file.string(), holder,
      waited_seconds > 0 ? fmt::format(" (waited {:.1f} s)", waited_seconds) : std::string(), name);
}

std::string program_cache::disk_key(const std::string& source, const std::string& options) const {
  const device_info& dev = context_.device();
  return fmt::format("platform={}\ndevice={}\nvendor={}\ndriver={}\nversion={}\noptions={}\nsource={}\n",
                     dev.platform_name, dev.name, dev.vendor, dev.driver_version, dev.opencl_version, options,
                     source);
}

std::filesystem::path program_cache::entry_path(const std::string& source, const std::string& options) const {
  if (!disk_directory_) return {};
  return *disk_directory_ / fmt::format("{:016x}.clbin", fnv1a_64(disk_key(source, options)));
}

std::shared_ptr<const program> program_cache::get(const std::string& name, const std::string& source,
                                                  const std::string& options) {
  std::shared_ptr<entry> slot;
  {
    std::lock_guard lock(mutex_);
    auto& found = entries_[options + '\0' + source];
    if (!found) found = std::make_shared<entry>();
    slot = found;
  }
  // Different programs build in parallel; the same one builds once.
  std::lock_guard build_lock(slot->mutex);
  if (slot->built) {
    std::lock_guard lock(mutex_);
    ++counters_.memory_hits;
    return slot->built;
  }
  if (show_kernels_) std::cerr << fmt::format("// tessera: building '{}' ({})\n{}\n", name, options, source);

  std::optional<cl::Program> built;
  std::filesystem::path file;
  std::string key;
  std::optional<entry_file_lock> disk_lock;
  const std::string* signing = disk_directory_ ? signing_key() : nullptr;
  bool use_disk = signing != nullptr;  // without a signing key, no entry can be trusted or written
  if (use_disk) {
    key = disk_key(source, options);
    file = entry_path(source, options);
    disk_lock.emplace(file, lock_timeout_seconds_);
    if (disk_lock->timed_out()) {
      use_disk = false;
      report_lock_timeout(name, disk_lock->path(), disk_lock->holder().description, disk_lock->waited_seconds());
    } else {
      built = load_from_disk(key, file, options, *signing);
    }
  }
  if (!built) {
    built = build_from_source(name, source, options);
    if (use_disk) store_to_disk(*built, key, file, *signing);
  }
  slot->built = std::make_shared<const program>(std::move(*built), name, context_.device().handle);
  return slot->built;
}

std::optional<cl::Program> program_cache::load_from_disk(const std::string& key, const std::filesystem::path& file,
                                                         const std::string& options, const std::string& signing_key) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream contents;
  contents << in.rdbuf();
  auto binary = decode_entry(contents.str(), key, signing_key);
  const auto reject = [&] {
    std::lock_guard lock(mutex_);
    ++counters_.corrupt_entries;
    return std::nullopt;
  };
  if (!binary) return reject();
  const auto start = std::chrono::steady_clock::now();
  const cl::Device& device = context_.device().handle;
  cl_int status = CL_SUCCESS;
  std::vector<cl_int> binary_status;
  cl::Program prog(context_.cl_context(), {device}, cl::Program::Binaries{*binary}, &binary_status, &status);
  if (status == CL_SUCCESS && (binary_status.size() != 1 || binary_status[0] != CL_SUCCESS)) status = CL_INVALID_BINARY;
  if (status == CL_SUCCESS) status = prog.build({device}, options.c_str());
  cl_build_status build_status = CL_BUILD_NONE;
  if (status == CL_SUCCESS) status = prog.getBuildInfo(device, CL_PROGRAM_BUILD_STATUS, &build_status);
  // The driver rejected its own binary (e.g. updated in place): count it and rebuild.
  if (status != CL_SUCCESS || build_status != CL_BUILD_SUCCESS) return reject();
  std::lock_guard lock(mutex_);
  ++counters_.disk_hits;
  counters_.load_seconds += seconds_since(start);
  return prog;
}

void program_cache::store_to_disk(const cl::Program& built, const std::string& key, const std::filesystem::path& file,
                                  const std::string& signing_key) {
  // Only what built: a binary the driver made of a failed or partial build is never stored.
  cl_build_status build_status = CL_BUILD_NONE;
  cl_program_binary_type type = CL_PROGRAM_BINARY_TYPE_NONE;
  const cl::Device& device = context_.device().handle;
  if (built.getBuildInfo(device, CL_PROGRAM_BUILD_STATUS, &build_status) != CL_SUCCESS ||
      build_status != CL_BUILD_SUCCESS ||
      built.getBuildInfo(device, CL_PROGRAM_BINARY_TYPE, &type) != CL_SUCCESS ||
      type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
    return;
  std::vector<std::vector<unsigned char>> binaries;
  if (built.getInfo(CL_PROGRAM_BINARIES, &binaries) != CL_SUCCESS || binaries.size() != 1 || binaries[0].empty())
    return;  // the driver keeps no binaries: the memory cache still works
  try {
    // Whole or not at all: a reader sees the old entry or the new one, never a mix.
    write_file_atomically(file, encode_entry(key, binaries[0], signing_key));
  } catch (const file_error&) {
    return;  // an unwritable cache directory or a full disk only costs rebuilds
  }
  std::lock_guard lock(mutex_);
  ++counters_.disk_writes;
}

const std::string* program_cache::signing_key() {
  std::lock_guard lock(mutex_);
  if (!signing_key_loaded_) {
    signing_key_ = load_or_make_signing_key(*disk_directory_);
    signing_key_loaded_ = true;
  }
  return signing_key_ ? &*signing_key_ : nullptr;
}

cl::Program program_cache::build_from_source(const std::string& name, const std::string& source,
                                             const std::string& options) {
  const auto start = std::chrono::steady_clock::now();
  cl_int status = CL_SUCCESS;
  cl::Program prog(context_.cl_context(), source, false, &status);
  check_cl(status, "clCreateProgramWithSource");
  status = prog.build({context_.device().handle}, options.c_str());
  {
    std::lock_guard lock(mutex_);
    ++counters_.builds;
    counters_.build_seconds += seconds_since(start);
  }
  if (status == CL_BUILD_PROGRAM_FAILURE || status == CL_INVALID_BUILD_OPTIONS || status == CL_COMPILE_PROGRAM_FAILURE)
    throw build_error(name, context_.device().name, options, build_log(prog, context_.device().handle));
  check_cl(status, "clBuildProgram");
  return prog;
}

program_cache_counters program_cache::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

void program_cache::reset_counters() {
  std::lock_guard lock(mutex_);
  counters_ = {};
}

}  // namespace tessera::runtime
