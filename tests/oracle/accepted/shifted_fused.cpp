// A --plan fusion of two foralls that read a field at the index plus a kernel parameter
// (`Xd[{i[0] + lag}]`, guarded by `if (i[0] + lag < n)`): the fused task reads the shifted
// elements of the field it does not write and the first step's output at its own index, so it
// computes what the two steps computed (shifted_fused.plan.json; the same fusion reading the
// first output at `i[0] + lag` is refused at the dependence, tests/bad_input/plan_cases).
#include <seq2par/seq2par.h>
#include <cstdio>
#include <vector>
S2P_KERNEL S2P_TILES(4) void shifted_pair(int lag, s2p::field<1, double>& x, s2p::field<1, double>& y, s2p::field<1, double>& z) {
  const long n = x.extent()[0];
  auto map = s2p::resource_map<1>::block(x.extent(), 4);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, map);
  auto Zd = s2p::agile(z, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) {
    if (i[0] + lag < n) Yd[i] = Xd[{i[0] + lag}] * 2.0; else Yd[i] = 1.0;
  });
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    if (i[0] + lag < n) Zd[i] = Yd[i] + Xd[{i[0] + lag}]; else Zd[i] = Yd[i];
  });
}
int main() {
  std::vector<double> x(40), y(40), z(40);
  for (int i = 0; i < 40; ++i) x[i] = i * 0.25 - 3;
  s2p::field<1, double> X(x.data(), {40}), Y(y.data(), {40}), Z(z.data(), {40});
  shifted_pair(3, X, Y, Z);
  for (int i = 0; i < 40; ++i) std::printf("%.6f %.6f\n", y[i], z[i]);
}
