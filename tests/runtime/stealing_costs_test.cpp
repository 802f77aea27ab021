// The work-stealing planner's costs on the fabric simulator are the fabric's: the barrier
// before stolen results go home costs what the engine charges a sync group of the kernel's
// tiles (it grows with tiles and chips), not a fixed constant.
#include <seq2par/runtime.h>
#include <seq2par/sim/fabric.h>
#include <seq2par/tile_program.h>

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

TEST(StealingCosts, ReturnsBarrierIsTheEnginesBarrierForTheKernelsTiles) {
  ::unsetenv("S2P_FABRIC");
  const s2p::sim::Fabric fabric = s2p::sim::default_fabric();
  for (const int tiles : {4, 64, 1472}) {
    const s2p::rt::tile_kernel_info info{"k", "k.cpp", tiles};
    EXPECT_EQ(s2p::rt::work_stealing_costs(info).returns_barrier_cycles,
              static_cast<std::int64_t>(fabric.barrier_cycles(static_cast<std::uint64_t>(tiles), 1)))
        << tiles << " tiles";
  }
  // Small groups sync faster than a whole chip.
  EXPECT_LT(s2p::rt::work_stealing_costs({"k", "k.cpp", 4}).returns_barrier_cycles,
            s2p::rt::work_stealing_costs({"k", "k.cpp", 1472}).returns_barrier_cycles);
}

} // namespace
