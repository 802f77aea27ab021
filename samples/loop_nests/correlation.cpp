// correlation: the correlation matrix of M variables over N samples (PolyBench's data-mining
// kernel): each column's mean and standard deviation, the data centred and scaled, then the
// correlation of each pair of columns (computed directly for every pair, PolyBench's mirrored
// triangle being the same products summed in the same order; the diagonal is 1).
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <cmath>
#include <vector>

namespace {
constexpr int kN = 36, kM = 28; // samples, variables
} // namespace

S2P_KERNEL S2P_TILES(4) void correlation(s2p::field<2, double>& data, s2p::field<1, double>& mean,
                                         s2p::field<1, double>& stddev,
                                         s2p::field<2, double>& corr) {
  auto data_map = s2p::resource_map<2>::block(data.extent(), 4);
  auto vector_map = s2p::resource_map<1>::block(mean.extent(), 4);
  auto corr_map = s2p::resource_map<2>::block(corr.extent(), 4);
  auto Dd = s2p::agile(data, data_map);
  auto meand = s2p::agile(mean, vector_map);
  auto stddevd = s2p::agile(stddev, vector_map);
  auto corrd = s2p::agile(corr, corr_map);
  const double n = static_cast<double>(data.extent()[0]);
  const double eps = 0.1;
  s2p::forall(meand.extent(), [&](s2p::index<1> j) {
    meand[j] = 0.0;
    for (int i = 0; i < Dd.extent()[0]; ++i)
      meand[j] += Dd[{i, j[0]}];
    meand[j] /= n;
  });
  s2p::forall(stddevd.extent(), [&](s2p::index<1> j) {
    stddevd[j] = 0.0;
    for (int i = 0; i < Dd.extent()[0]; ++i)
      stddevd[j] += (Dd[{i, j[0]}] - meand[j]) * (Dd[{i, j[0]}] - meand[j]);
    stddevd[j] /= n;
    stddevd[j] = std::sqrt(stddevd[j]);
    stddevd[j] = stddevd[j] <= eps ? 1.0 : stddevd[j];
  });
  s2p::forall(Dd.extent(), [&](s2p::index<2> i) {
    Dd[i] -= meand[{i[1]}];
    Dd[i] /= std::sqrt(n) * stddevd[{i[1]}];
  });
  s2p::forall(corrd.extent(), [&](s2p::index<2> i) {
    if (i[0] == i[1]) {
      corrd[i] = 1.0;
      return;
    }
    corrd[i] = 0.0;
    for (int k = 0; k < Dd.extent()[0]; ++k)
      corrd[i] += Dd[{k, i[0]}] * Dd[{k, i[1]}];
  });
}

int main() {
  std::vector<double> data(kN * kM), mean(kM), stddev(kM), corr(kM * kM);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kM; ++j)
      data[i * kM + j] = static_cast<double>(i * j) / kM + i;
  s2p::field<2, double> D(data.data(), {kN, kM}), C(corr.data(), {kM, kM});
  s2p::field<1, double> Mn(mean.data(), {kM}), Sd(stddev.data(), {kM});
  correlation(D, Mn, Sd, C);
  sample::print_array("corr", corr.data(), corr.size());
  return 0;
}
