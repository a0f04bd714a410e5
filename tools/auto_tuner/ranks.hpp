#pragma once
// The processes of one tuning job: a single process, or the ranks of an MPI job (mpirun, srun)
// when tessera was built with MPI (TESSERA_WITH_MPI) and the process was launched by one.
// Only the thread that made the job calls these (MPI_THREAD_FUNNELED).
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessera::auto_tuner {

/// Where this process stands in its job.
struct rank_place {
  int rank = 0, ranks = 1;
  int local_rank = 0, local_ranks = 1;  // among the job's ranks on this host
  std::string host;
};

/// True when the environment shows an MPI launcher (mpirun's OMPI_COMM_WORLD_SIZE, PMIx's or
/// PMI's rank): only then is MPI initialized, so that a tuner started by hand never waits on a
/// launcher that is not there.
bool launched_by_mpi();

/// The job's size as the launcher's environment gives it (1 where none does).
int ranks_in_environment();

/// Whether this build can run as ranks of an MPI job.
bool built_with_mpi();

class rank_job {
 public:
  /// Initializes MPI where launched_by_mpi() and built_with_mpi(); a job of one otherwise.
  rank_job(int& argc, char**& argv);
  ~rank_job();  // MPI_Finalize
  rank_job(const rank_job&) = delete;
  rank_job& operator=(const rank_job&) = delete;

  const rank_place& place() const { return place_; }
  bool distributed() const { return place_.ranks > 1; }

  /// Every rank's text, in rank order, on every rank (collective).
  std::vector<std::string> all_gather(const std::string& mine) const;
  /// Rank 0's flag on every rank (collective).
  bool broadcast(bool from_rank_0) const;
  /// Sends text to rank `to` under tag.
  void send(int to, int tag, const std::string& text) const;
  /// A message of tag from any rank, if one has arrived: (its rank, its text). Never blocks.
  std::optional<std::pair<int, std::string>> poll(int tag) const;
  /// The next message of tag from rank `from`, polling with short sleeps: a blocking MPI receive
  /// spins a core, which a rank sharing a CPU device with its OpenCL runtime cannot spare.
  std::string receive(int from, int tag, std::chrono::milliseconds nap = std::chrono::milliseconds(2)) const;
  /// Ends every rank of the job (after a failure of the messages themselves: a rank left waiting
  /// for an answer would wait for ever); returns only in a job of one.
  void abort(int status) const;

 private:
  rank_place place_;
  bool initialized_ = false;
};

}  // namespace tessera::auto_tuner
