// covariance: the covariance matrix of M variables over N samples (PolyBench's data-mining
// kernel), three loop nests: the mean of each column, the centred data, and the covariance
// of each pair of columns, as PolyBench computes it: the upper triangle, then its mirror. The
// mirror's forall reads the matrix it writes, at the transposed index: its `if` keeps it
// writing the lower triangle and reading the upper one, so its iterations are independent.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 40, kM = 32; // samples, variables
} // namespace

S2P_KERNEL S2P_TILES(4) void covariance(s2p::field<2, double>& data, s2p::field<1, double>& mean,
                                        s2p::field<2, double>& cov) {
  auto data_map = s2p::resource_map<2>::block(data.extent(), 4);
  auto mean_map = s2p::resource_map<1>::block(mean.extent(), 4);
  // The triangle's rows dealt in turn, so that every tile gets long and short ones.
  auto cov_map = s2p::resource_map<2>::block_cyclic(cov.extent(), {1, cov.extent()[1]}, 4);
  auto Dd = s2p::agile(data, data_map);
  auto meand = s2p::agile(mean, mean_map);
  auto covd = s2p::agile(cov, cov_map);
  const double n = static_cast<double>(data.extent()[0]);
  s2p::forall(meand.extent(), [&](s2p::index<1> j) {
    meand[j] = 0.0;
    for (int i = 0; i < Dd.extent()[0]; ++i)
      meand[j] += Dd[{i, j[0]}];
    meand[j] /= n;
  });
  s2p::forall(Dd.extent(), [&](s2p::index<2> i) { Dd[i] -= meand[{i[1]}]; });
  s2p::forall(covd.extent(), [&](s2p::index<2> i) {
    if (i[0] > i[1])
      return;
    double sum = 0.0;
    for (int k = 0; k < Dd.extent()[0]; ++k)
      sum += Dd[{k, i[0]}] * Dd[{k, i[1]}];
    covd[i] = sum / (n - 1.0);
  });
  s2p::forall(covd.extent(), [&](s2p::index<2> i) {
    if (i[0] > i[1])
      covd[i] = covd[{i[1], i[0]}];
  });
}

int main() {
  std::vector<double> data(kN * kM), mean(kM), cov(kM * kM);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kM; ++j)
      data[i * kM + j] = static_cast<double>(i * j) / kM + i;
  s2p::field<2, double> D(data.data(), {kN, kM}), C(cov.data(), {kM, kM});
  s2p::field<1, double> Mn(mean.data(), {kM});
  covariance(D, Mn, C);
  sample::print_array("cov", cov.data(), cov.size());
  return 0;
}
