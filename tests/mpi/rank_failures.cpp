// Programs for the mpi backend's failure tests, written against the runtime as generated
// code is (s2p::rt::forall), since a sequential kernel that fails on one tile only is not
// valid seq2par input. `rank_failures throw`: the body throws on the last rank only (the
// tiles, or in place the rows, it computes), so only that rank fails; `rank_failures hang`: the last rank never reaches the kernel, so the
// others wait for its blocks until the watchdog ends the job. Both must end the whole job
// quickly, with a message naming the rank and the kernel.
#include <seq2par/runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

int rank_in_job();
int size_of_job();

void shift_kernel(s2p::field<1, double>& out, const s2p::field<1, double>& in, bool throw_on_last) {
  constexpr int tiles = 4;
  auto map = s2p::resource_map<1>::block_cyclic(out.extent(), {8}, tiles);
  auto in_map = s2p::resource_map<1>::block_cyclic(in.extent(), {8}, tiles);
  auto Od = s2p::agile(out, map);
  auto Id = s2p::agile(in, in_map);
  static const s2p::rt::tile_kernel_info info = {"shift_kernel", "rank_failures.cpp", tiles};
  s2p::rt::forall(
      info, tiles, Od, "Od",
      [throw_on_last](s2p::index<1> i, auto& O, auto& I) {
        if (throw_on_last && rank_in_job() == size_of_job() - 1)
          throw std::runtime_error("an intrinsic failed on purpose on the last rank");
        O[i] = I[{i[0] + 1}] * 2.0;
      },
      s2p::rt::reads(Id, "Id", {s2p::index_map<1>{{0}, {1}}}));
}

int rank_in_job() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  return rank ? std::atoi(rank) : 0;
}

int size_of_job() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  return size ? std::atoi(size) : 1;
}

} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "throw" && mode != "hang" && mode != "pass") {
    std::fprintf(stderr, "usage: rank_failures throw|hang|pass\n");
    return 2;
  }
  std::vector<double> in(65), out(64, 0.0);
  for (std::size_t k = 0; k < in.size(); ++k)
    in[k] = static_cast<double>(k);
  s2p::field<1, double> O(out.data(), {64});
  if (mode == "hang" && rank_in_job() == size_of_job() - 1)
    std::this_thread::sleep_for(std::chrono::hours(1));
  shift_kernel(O, s2p::field<1, double>(in.data(), {65}), mode == "throw");
  double sum = 0;
  for (const double x : out)
    sum += x;
  std::printf("sum %.1f\n", sum);
  return 0;
}
