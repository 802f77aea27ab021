// Foralls in place on the threads backend (<seq2par/forall.h>, tile/threads/
// forall_in_place.cpp): the parts the workers run, their exceptions, and launches nested in a
// part.
#include <seq2par/runtime.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

TEST(InPlace, PartsCoverTheRangeOnceEach) {
  std::vector<std::atomic<int>> visits(1000);
  s2p::rt::run_parts_in_place(1000, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t k = first; k < last; ++k)
      visits[static_cast<std::size_t>(k)].fetch_add(1);
  });
  for (const auto& v : visits)
    EXPECT_EQ(v.load(), 1);
}

TEST(InPlace, TheFirstThrowingPartsExceptionReachesTheCallerAfterEveryPartReturned) {
  std::atomic<int> returned{0};
  try {
    s2p::rt::run_parts_in_place(64, [&](std::int64_t first, std::int64_t) {
      returned.fetch_add(1);
      throw std::runtime_error(std::to_string(first));
    });
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "0");
  }
  EXPECT_GE(returned.load(), 1);
  // The workers are free again: the next launch runs.
  std::atomic<std::int64_t> sum{0};
  s2p::rt::run_parts_in_place(10, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t k = first; k < last; ++k)
      sum.fetch_add(k);
  });
  EXPECT_EQ(sum.load(), 45);
}

TEST(InPlace, ALaunchInsideAPartRunsInline) {
  std::atomic<int> inner{0};
  s2p::rt::run_parts_in_place(4, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t k = first; k < last; ++k)
      s2p::rt::run_parts_in_place(3, [&](std::int64_t a, std::int64_t b) {
        inner.fetch_add(static_cast<int>(b - a));
      });
  });
  EXPECT_EQ(inner.load(), 12);
}

struct ThreadsBackend {
  ThreadsBackend() { setenv("S2P_BACKEND", "threads", 1); }
  ~ThreadsBackend() { unsetenv("S2P_BACKEND"); }
};

// A body's exception leaves the kernel call, as in the sequential program.
TEST(InPlace, ABodysExceptionLeavesTheForall) {
  const ThreadsBackend backend;
  std::vector<double> y(64);
  const auto map = s2p::resource_map<1>::block({64}, 4);
  const auto Yd = s2p::agile(s2p::field<1, double>(y.data(), {64}), map);
  const s2p::rt::tile_kernel_info info{"throws", "test.cpp", 4};
  EXPECT_THROW(s2p::rt::forall(info, 4, Yd, "Yd",
                               [](s2p::index<1> i, auto& Y) {
                                 if (i[0] == 40)
                                   throw std::domain_error("element 40");
                                 Y[i] = 1.0;
                               }),
               std::domain_error);
}

// Many launches of a tiny forall, as a time loop makes them: each is computed in full.
TEST(InPlace, ManyLaunchesInARow) {
  const ThreadsBackend backend;
  std::vector<double> x(16, 0.0), y(16, 0.0);
  const auto map = s2p::resource_map<1>::block({16}, 16);
  const auto Xd = s2p::agile(s2p::field<1, double>(x.data(), {16}), map);
  const auto Yd = s2p::agile(s2p::field<1, double>(y.data(), {16}), map);
  const s2p::rt::tile_kernel_info info{"bump", "test.cpp", 16};
  for (int l = 0; l < 500; ++l) {
    s2p::rt::forall(info, 16, Yd, "Yd", [](s2p::index<1> i, auto& Y, auto& X) { Y[i] = X[i] + 1.0; },
                    s2p::rt::reads(Xd, "Xd", {s2p::index_map<1>::identity()}));
    s2p::rt::forall(info, 16, Xd, "Xd", [](s2p::index<1> i, auto& X, auto& Y) { X[i] = Y[i] + 1.0; },
                    s2p::rt::reads(Yd, "Yd", {s2p::index_map<1>::identity()}));
  }
  EXPECT_EQ(x, std::vector<double>(16, 1000.0));
}

} // namespace
