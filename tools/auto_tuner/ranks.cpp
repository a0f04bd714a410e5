// rank_job over MPI's C interface, or a job of one where tessera was built without MPI.
#include "ranks.hpp"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include <unistd.h>

#ifdef TESSERA_WITH_MPI
#include <mpi.h>
#endif

#include <tessera/runtime/error.hpp>

namespace tessera::auto_tuner {

namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

}  // namespace

bool launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(variable) != nullptr) return true;
  return false;
}

int ranks_in_environment() {
  // SLURM_STEP_NUM_TASKS: srun's tasks of this step (a batch script alone is one task).
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char* value = std::getenv(variable)) return std::max(1, std::atoi(value));
  return 1;
}

#ifdef TESSERA_WITH_MPI

bool built_with_mpi() { return true; }

namespace {

void check(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw runtime::error(std::string(call) + ": " + std::string(text, std::size_t(length)));
}

}  // namespace

rank_job::rank_job(int& argc, char**& argv) {
  place_.host = host_name();
  if (!launched_by_mpi()) return;
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  initialized_ = true;
  // Rank 0 measures in a thread of its own while its main thread makes every MPI call.
  if (provided < MPI_THREAD_FUNNELED)
    throw runtime::error("MPI_Init_thread: this MPI gives no thread support (MPI_THREAD_FUNNELED), which rank 0's "
                         "measuring thread needs");
  // Errors come back as statuses (check() names them) instead of aborting the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &place_.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &place_.ranks);
  MPI_Comm local;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, place_.rank, MPI_INFO_NULL, &local),
        "MPI_Comm_split_type");
  MPI_Comm_rank(local, &place_.local_rank);
  MPI_Comm_size(local, &place_.local_ranks);
  MPI_Comm_free(&local);
}

rank_job::~rank_job() {
  if (initialized_) MPI_Finalize();
}

std::vector<std::string> rank_job::all_gather(const std::string& mine) const {
  if (!initialized_) return {mine};
  const int size = int(mine.size());
  std::vector<int> sizes(std::size_t(place_.ranks)), offsets(std::size_t(place_.ranks));
  check(MPI_Allgather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  int total = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) offsets[r] = total, total += sizes[r];
  std::string all(std::size_t(total), '\0');
  check(MPI_Allgatherv(mine.data(), size, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR,
                       MPI_COMM_WORLD),
        "MPI_Allgatherv");
  std::vector<std::string> out;
  for (std::size_t r = 0; r < sizes.size(); ++r) out.push_back(all.substr(std::size_t(offsets[r]), std::size_t(sizes[r])));
  return out;
}

bool rank_job::broadcast(bool from_rank_0) const {
  if (!initialized_) return from_rank_0;
  int flag = from_rank_0 ? 1 : 0;
  check(MPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return flag != 0;
}

void rank_job::send(int to, int tag, const std::string& text) const {
  check(MPI_Send(text.data(), int(text.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD), "MPI_Send");
}

void rank_job::abort(int status) const {
  if (initialized_ && place_.ranks > 1) MPI_Abort(MPI_COMM_WORLD, status);
}

std::optional<std::pair<int, std::string>> rank_job::poll(int tag) const {
  int arrived = 0;
  MPI_Status status;
  check(MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &arrived, &status), "MPI_Iprobe");
  if (!arrived) return std::nullopt;
  int size = 0;
  MPI_Get_count(&status, MPI_CHAR, &size);
  std::string text(std::size_t(size), '\0');
  check(MPI_Recv(text.data(), size, MPI_CHAR, status.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  return std::make_pair(status.MPI_SOURCE, std::move(text));
}

std::string rank_job::receive(int from, int tag, std::chrono::milliseconds nap) const {
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    check(MPI_Iprobe(from, tag, MPI_COMM_WORLD, &arrived, &status), "MPI_Iprobe");
    if (arrived) {
      int size = 0;
      MPI_Get_count(&status, MPI_CHAR, &size);
      std::string text(std::size_t(size), '\0');
      check(MPI_Recv(text.data(), size, MPI_CHAR, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
      return text;
    }
    std::this_thread::sleep_for(nap);
  }
}

#else  // a job of one

bool built_with_mpi() { return false; }

rank_job::rank_job(int&, char**&) { place_.host = host_name(); }
rank_job::~rank_job() = default;
std::vector<std::string> rank_job::all_gather(const std::string& mine) const { return {mine}; }
bool rank_job::broadcast(bool from_rank_0) const { return from_rank_0; }
void rank_job::send(int, int, const std::string&) const {
  throw runtime::error("rank_job::send: this tuner was built without MPI");
}
void rank_job::abort(int) const {}
std::optional<std::pair<int, std::string>> rank_job::poll(int) const { return std::nullopt; }
std::string rank_job::receive(int, int, std::chrono::milliseconds) const {
  throw runtime::error("rank_job::receive: this tuner was built without MPI");
}

#endif

}  // namespace tessera::auto_tuner
