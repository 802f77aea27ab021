// A body loop inside a lambda of the forall body, bounded by that lambda's parameter, which
// shares its name with a variable of the kernel. The bound is the body's own value (the whole
// axis for planning), not the kernel's `j`: read as the kernel's, the launch planned elements
// [30, 32) alone and the sim backend stopped ("a forall read an element its tile was not given").
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

namespace {
constexpr int kSize = 32;
} // namespace

S2P_KERNEL S2P_TILES(4) void tail_sums(s2p::field<1, double>& Y, const s2p::field<1, double>& X) {
  auto map = s2p::resource_map<1>::block(Y.extent(), 4);
  auto Yd = s2p::agile(Y, map);
  auto Xd = s2p::agile(X, map);
  const long j = 30;
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    const auto tail = [&](long j) {
      double sum = 0.0;
      for (long k = j; k < kSize; ++k)
        sum += Xd[{k}];
      return sum;
    };
    Yd[i] = tail(i[0] / 2) + static_cast<double>(j);
  });
}

int main() {
  std::vector<double> x(kSize), y(kSize);
  for (int q = 0; q < kSize; ++q)
    x[static_cast<std::size_t>(q)] = static_cast<double>(q % 7) * 0.5;
  s2p::field<1, double> Y(y.data(), {kSize}), X(x.data(), {kSize});
  tail_sums(Y, X);
  sample::print_array("y", y.data(), y.size());
  return 0;
}
