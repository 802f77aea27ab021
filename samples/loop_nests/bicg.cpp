// bicg: the two matrix-vector products of BiCGStab, s = A^T r and q = A p (PolyBench's one
// loop nest computes both; the parallel form runs one forall per output vector). Each forall
// runs over a vector and reads A a column or a row at a time.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

namespace {
constexpr int kN = 40, kM = 34;
} // namespace

S2P_KERNEL S2P_TILES(4) void bicg(const s2p::field<2, double>& A, const s2p::field<1, double>& r,
                                  const s2p::field<1, double>& p, s2p::field<1, double>& s,
                                  s2p::field<1, double>& q) {
  auto a_map = s2p::resource_map<2>::block(A.extent(), 4);
  auto r_map = s2p::resource_map<1>::block(r.extent(), 4);
  auto p_map = s2p::resource_map<1>::cyclic(p.extent(), 4);
  auto Ad = s2p::agile(A, a_map);
  auto rd = s2p::agile(r, r_map);
  auto pd = s2p::agile(p, p_map);
  auto sd = s2p::agile(s, p_map);
  auto qd = s2p::agile(q, r_map);
  s2p::forall(sd.extent(), [&](s2p::index<1> j) {
    sd[j] = 0.0;
    for (int i = 0; i < Ad.extent()[0]; ++i)
      sd[j] += rd[{i}] * Ad[{i, j[0]}];
  });
  s2p::forall(qd.extent(), [&](s2p::index<1> i) {
    qd[i] = 0.0;
    for (int j = 0; j < Ad.extent()[1]; ++j)
      qd[i] += Ad[{i[0], j}] * pd[{j}];
  });
}

int main() {
  std::vector<double> a(kN * kM), r(kN), p(kM), s(kM), q(kN);
  for (int i = 0; i < kM; ++i)
    p[i] = static_cast<double>(i % kM) / kM;
  for (int i = 0; i < kN; ++i) {
    r[i] = static_cast<double>(i % kN) / kN;
    for (int j = 0; j < kM; ++j)
      a[i * kM + j] = static_cast<double>(i * (j + 1) % kN) / kN;
  }
  s2p::field<1, double> S(s.data(), {kM}), Q(q.data(), {kN});
  bicg(s2p::field<2, double>(a.data(), {kN, kM}), s2p::field<1, double>(r.data(), {kN}),
       s2p::field<1, double>(p.data(), {kM}), S, Q);
  sample::print_array("s", s.data(), s.size());
  sample::print_array("q", q.data(), q.size());
  return 0;
}
