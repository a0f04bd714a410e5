#include <tessera/runtime/context.hpp>
#include <tessera/runtime/error.hpp>
#include <tessera/runtime/program_cache.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

namespace tessera::runtime {

namespace {

constexpr std::string_view file_magic = "TESSERA-PROGRAM-BINARY 1\n";

bool env_is(const char* name, std::string_view value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string_view(v) == value;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// An exclusive lock, across processes, on one disk entry: held while the entry is looked up,
// built and written, so that processes wanting the same program build it once and the others
// load the result. It also keeps them from compiling one program at the same moment, which the
// driver may not survive (PoCL's own kernel cache races there: pocl/pocl#586, #1480).
// Without a lock file (unwritable directory) it does nothing: the entry only costs rebuilds.
class entry_file_lock {
 public:
  explicit entry_file_lock(const std::filesystem::path& entry) {
    std::error_code ec;
    std::filesystem::create_directories(entry.parent_path(), ec);
    auto lock_path = entry;
    lock_path.replace_extension(".lock");
    fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return;
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
    }
  }
  entry_file_lock(const entry_file_lock&) = delete;
  entry_file_lock& operator=(const entry_file_lock&) = delete;
  ~entry_file_lock() {
    if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the lock
  }

 private:
  int fd_ = -1;
};

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

// Entry layout: magic, key size, key, binary size, binary, FNV-1a of everything before it.
std::string encode_entry(const std::string& key, const std::vector<unsigned char>& binary) {
  std::string out(file_magic);
  append_u64(out, key.size());
  out += key;
  append_u64(out, binary.size());
  out.append(reinterpret_cast<const char*>(binary.data()), binary.size());
  append_u64(out, fnv1a_64(out));
  return out;
}

// The binary stored for key, or nothing when the file is truncated, corrupt or for another key.
std::optional<std::vector<unsigned char>> decode_entry(std::string_view file, const std::string& key) {
  if (file.size() < file_magic.size() + 8) return std::nullopt;
  const std::string_view body = file.substr(0, file.size() - 8);
  std::string_view tail = file.substr(file.size() - 8);
  std::uint64_t checksum = 0;
  if (!read_u64(tail, checksum) || checksum != fnv1a_64(body)) return std::nullopt;
  std::string_view in = body;
  if (!in.starts_with(file_magic)) return std::nullopt;
  in.remove_prefix(file_magic.size());
  std::uint64_t key_size = 0, binary_size = 0;
  if (!read_u64(in, key_size) || in.size() < key_size || in.substr(0, key_size) != key) return std::nullopt;
  in.remove_prefix(key_size);
  if (!read_u64(in, binary_size) || in.size() != binary_size || binary_size == 0) return std::nullopt;
  return std::vector<unsigned char>(in.begin(), in.end());
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
    : context_(ctx), disk_directory_(std::move(disk_directory)), show_kernels_(env_is("TESSERA_SHOW_KERNELS", "1")) {}

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
  if (disk_directory_) {
    key = disk_key(source, options);
    file = entry_path(source, options);
    disk_lock.emplace(file);
    built = load_from_disk(name, key, file, options);
  }
  if (!built) {
    built = build_from_source(name, source, options);
    if (disk_directory_) store_to_disk(*built, key, file);
  }
  slot->built = std::make_shared<const program>(std::move(*built), name, context_.device().handle);
  return slot->built;
}

std::optional<cl::Program> program_cache::load_from_disk(const std::string& name, const std::string& key,
                                                         const std::filesystem::path& file,
                                                         const std::string& options) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream contents;
  contents << in.rdbuf();
  auto binary = decode_entry(contents.str(), key);
  if (!binary) {
    std::lock_guard lock(mutex_);
    ++counters_.corrupt_entries;
    return std::nullopt;
  }
  const auto start = std::chrono::steady_clock::now();
  cl_int status = CL_SUCCESS;
  std::vector<cl_int> binary_status;
  cl::Program prog(context_.cl_context(), {context_.device().handle}, cl::Program::Binaries{*binary},
                   &binary_status, &status);
  if (status == CL_SUCCESS) status = prog.build({context_.device().handle}, options.c_str());
  if (status != CL_SUCCESS) {
    // The driver rejected its own binary (e.g. updated in place): count it and rebuild.
    std::lock_guard lock(mutex_);
    ++counters_.corrupt_entries;
    (void)name;
    return std::nullopt;
  }
  std::lock_guard lock(mutex_);
  ++counters_.disk_hits;
  counters_.load_seconds += seconds_since(start);
  return prog;
}

void program_cache::store_to_disk(const cl::Program& built, const std::string& key,
                                  const std::filesystem::path& file) {
  std::vector<std::vector<unsigned char>> binaries;
  if (built.getInfo(CL_PROGRAM_BINARIES, &binaries) != CL_SUCCESS || binaries.size() != 1 || binaries[0].empty())
    return;  // the driver keeps no binaries: the memory cache still works
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) return;  // an unwritable cache directory only costs rebuilds
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  const auto temp = file.parent_path() / fmt::format(".{}.{}.{:x}.tmp", file.filename().string(), ::getpid(), rng());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    const std::string bytes = encode_entry(key, binaries[0]);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
      std::filesystem::remove(temp, ec);
      return;
    }
  }
  // rename is atomic: a reader sees the old entry or the new one, never a mix.
  std::filesystem::rename(temp, file, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    return;
  }
  std::lock_guard lock(mutex_);
  ++counters_.disk_writes;
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
