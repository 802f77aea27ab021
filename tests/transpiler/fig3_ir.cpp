#include "ir_builder.h"

namespace s2p::test {

ir::Kernel fig3_kernel() {
  KernelBuilder b("fig3_pipeline");
  const int smem = b.pool("smem", 60);
  const int buffer1 = b.tensor("buffer1", smem, 0, 3, 10);
  const int buffer2 = b.tensor("buffer2", smem, 15, 3, 15);
  const int buffer3 = b.tensor("buffer3", smem, 0, 1, 50);
  for (int t : {buffer1, buffer2}) {
    b.add(
        KernelBuilder::loop("i", lit(0), lit(3),
                            {b.call("intrinsic_producer", 0, {{t, var("i"), AccessMode::Write}}),
                             b.call("intrinsic_consumer", 1, {{t, var("i"), AccessMode::Read}})}));
  }
  b.add(KernelBuilder::function(
      "stage3", {b.call("intrinsic_producer", 0, {{buffer3, lit(0), AccessMode::Write}}),
                 b.call("intrinsic_consumer", 1, {{buffer3, lit(0), AccessMode::Read}})}));
  return b.kernel();
}

ir::Kernel ring_pipeline(int depth, Expr trips, const std::string& symbol) {
  KernelBuilder b("ring");
  if (!symbol.empty())
    b.symbol(symbol);
  const int pool = b.pool("smem", 2 * depth * 10);
  const int in_slots = b.tensor("in_slots", pool, 0, depth, 10);
  const int out_slots = b.tensor("out_slots", pool, depth * 10, depth, 10);
  const int src = b.ref("src");
  const int dst = b.ref("dst");
  const auto slot = Expr::binary(Expr::Op::Rem, var("i"), lit(depth));
  b.add(KernelBuilder::loop(
      "i", lit(0), std::move(trips),
      {b.call("load", 0, {{src, var("i"), AccessMode::Read}, {in_slots, slot, AccessMode::Write}}),
       b.call("compute", 1,
              {{in_slots, slot, AccessMode::Read}, {out_slots, slot, AccessMode::Write}}),
       b.call("store", 2,
              {{out_slots, slot, AccessMode::Read}, {dst, var("i"), AccessMode::Write}})}));
  return b.kernel();
}

} // namespace s2p::test
