// fdtd-2d: the 2-D finite-difference time-domain kernel (PolyBench's electromagnetics
// stencil): each time step updates ey, ex and then hz, one forall per loop nest, the first
// row of ey driven by the source vector. The `if`s are PolyBench's loop bounds.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kNx = 30, kNy = 34, kSteps = 8;
} // namespace

S2P_KERNEL S2P_TILES(4) void fdtd_2d(int steps, s2p::field<2, double>& ex,
                                     s2p::field<2, double>& ey, s2p::field<2, double>& hz,
                                     const s2p::field<1, double>& fict) {
  auto map = s2p::resource_map<2>::block(ex.extent(), 4);
  auto fict_map = s2p::resource_map<1>::block(fict.extent(), 4);
  auto exd = s2p::agile(ex, map);
  auto eyd = s2p::agile(ey, map);
  auto hzd = s2p::agile(hz, map);
  auto fictd = s2p::agile(fict, fict_map);
  const auto nx = ex.extent()[0], ny = ex.extent()[1];
  for (int t = 0; t < steps; ++t) {
    s2p::forall(eyd.extent(), [&](s2p::index<2> i) {
      if (i[0] >= 1)
        eyd[i] = eyd[i] - 0.5 * (hzd[i] - hzd[{i[0] - 1, i[1]}]);
      else
        eyd[i] = fictd[{t}];
    });
    s2p::forall(exd.extent(), [&](s2p::index<2> i) {
      if (i[1] >= 1)
        exd[i] = exd[i] - 0.5 * (hzd[i] - hzd[{i[0], i[1] - 1}]);
    });
    s2p::forall(hzd.extent(), [&](s2p::index<2> i) {
      if (i[0] < nx - 1 && i[1] < ny - 1)
        hzd[i] = hzd[i] - 0.7 * (exd[{i[0], i[1] + 1}] - exd[i] + eyd[{i[0] + 1, i[1]}] - eyd[i]);
    });
  }
}

int main() {
  std::vector<double> ex(kNx * kNy), ey(kNx * kNy), hz(kNx * kNy), fict(kSteps);
  for (int t = 0; t < kSteps; ++t)
    fict[t] = t;
  for (int i = 0; i < kNx; ++i)
    for (int j = 0; j < kNy; ++j) {
      ex[i * kNy + j] = static_cast<double>(i) * (j + 1) / kNx;
      ey[i * kNy + j] = static_cast<double>(i) * (j + 2) / kNy;
      hz[i * kNy + j] = static_cast<double>(i) * (j + 3) / kNx;
    }
  s2p::field<2, double> Ex(ex.data(), {kNx, kNy}), Ey(ey.data(), {kNx, kNy});
  s2p::field<2, double> Hz(hz.data(), {kNx, kNy});
  fdtd_2d(kSteps, Ex, Ey, Hz, s2p::field<1, double>(fict.data(), {kSteps}));
  sample::print_array("ex", ex.data(), ex.size());
  sample::print_array("ey", ey.data(), ey.size());
  sample::print_array("hz", hz.data(), hz.size());
  return 0;
}
