// Loops around steps in combination: nested loops whose inner one holds a ring collective, a
// forall over tile blocks reading transposed blocks, and a global forall reading a vector of
// another rank scaled by both loop variables. Every step launches once per iteration.
#include <seq2par/seq2par.h>

#include "../../../samples/common/sample_support.h"

#include <vector>

S2P_KERNEL S2P_TILES(4) void combo(int outer, int steps, s2p::field<2, float>& rows,
                                   s2p::field<2, float>& C, const s2p::field<2, float>& A,
                                   const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<2>::block_block(C.extent(), {8, 8}, 4).algorithmic_blocks({4, 4});
  auto xmap = s2p::resource_map<1>::cyclic(x.extent(), 4);
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto xd = s2p::agile(x, xmap);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  for (int o = 0; o < outer; ++o)
    for (int t = 0; t < steps; ++t) {
      s2p::all_reduce(rows, s2p::sum{});
      s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
        const auto c = Ct(b);
        const auto a = At({b[1], b[0]});
        s2p::forall(c.extent(), [&](s2p::index<2> j) { c[j] = c[j] * 0.5f + a[{j[1], j[0]}]; });
      });
      s2p::forall(Cd.extent(), [&](s2p::index<2> i) {
        Cd[i] = Cd[i] + xd[{i[1]}] * static_cast<float>(t + o);
      });
    }
}

int main() {
  std::vector<float> rows(4 * 10), c(16 * 16, 1.0f), a(16 * 16), x(16);
  for (std::size_t k = 0; k < rows.size(); ++k)
    rows[k] = static_cast<float>(k % 7) * 0.25f;
  for (std::size_t k = 0; k < a.size(); ++k)
    a[k] = static_cast<float>(k % 13) * 0.125f;
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<float>(k % 5) - 2.0f;
  s2p::field<2, float> R(rows.data(), {4, 10}), C(c.data(), {16, 16});
  combo(2, 3, R, C, s2p::field<2, float>(a.data(), {16, 16}), s2p::field<1, float>(x.data(), {16}));
  sample::print_array("rows", rows.data(), rows.size());
  sample::print_array("C", c.data(), c.size());
  return 0;
}
