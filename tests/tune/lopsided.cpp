// The lopsided map `seq2par tune` must fix (tests/tune, scripts/bench tune): an elementwise
// kernel over a block-cyclic map that deals 6:1:1:1 of the blocks to four equally fast tiles,
// so the first tile does two thirds of the work and the others wait.
#include <seq2par/seq2par.h>

#include <cstddef>
#include <cstdio>
#include <vector>

S2P_KERNEL S2P_TILES(4) void lopsided(s2p::field<1, float>& z, const s2p::field<1, float>& x,
                                      float scale) {
  auto map = s2p::resource_map<1>::block_cyclic(z.extent(), {64}, 4).weights({6.0, 1.0, 1.0, 1.0});
  auto Zd = s2p::agile(z, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Xd[i] * scale + 1.0f; });
}

int main() {
  std::vector<float> x(8192), z(8192, 0.0f);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<float>(k % 97) * 0.25f;
  s2p::field<1, float> Z(z.data(), {8192});
  lopsided(Z, s2p::field<1, float>(x.data(), {8192}), 3.0f);
#ifdef S2P_TUNE_TEST_SABOTAGE // tests/tune: a tuned build that computes something else
  z[5] += 1.0f;
#endif
  for (const float v : z)
    std::printf("%a\n", static_cast<double>(v));
  return 0;
}
