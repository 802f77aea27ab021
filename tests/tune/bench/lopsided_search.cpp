// scripts/bench tune's exhaustive search: tests/tune/lopsided.cpp's kernel with the map's four
// weights as kernel parameters, so one build measures any weights. `grid G A` launches it for
// every weight vector (A, b, c, d) with b, c, d in 1..G (a report keeps at most 1000 launches:
// the bench runs A = 1..G one at a time); `one W0 W1 W2 W3` once with those weights. It prints
// the vectors in launch order; the simulator's report (S2P_REPORT) has each launch's cycles in
// the same order. With tile 2 failed (the map's exclude_tiles, as `seq2par --plan` builds a
// plan that left it out): `grid3 G` for every (a, b, d) in 1..G on tiles 0, 1, 3, `one3 W0 W1 W3`.
#include <seq2par/seq2par.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

S2P_KERNEL S2P_TILES(4) void lopsided(s2p::field<1, float>& z, const s2p::field<1, float>& x,
                                      float scale, double w0, double w1, double w2, double w3) {
  auto map = s2p::resource_map<1>::block_cyclic(z.extent(), {64}, 4).weights({w0, w1, w2, w3});
  auto Zd = s2p::agile(z, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Xd[i] * scale + 1.0f; });
}

S2P_KERNEL S2P_TILES(4) void without_tile2(s2p::field<1, float>& z, const s2p::field<1, float>& x,
                                           float scale, double w0, double w1, double w3) {
  auto map = s2p::resource_map<1>::block_cyclic(z.extent(), {64}, 4)
                 .weights({w0, w1, 1.0, w3})
                 .exclude_tiles({2});
  auto Zd = s2p::agile(z, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) { Zd[i] = Xd[i] * scale + 1.0f; });
}

int main(int argc, char** argv) {
  std::vector<float> x(8192), z(8192, 0.0f);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<float>(k % 97) * 0.25f;
  s2p::field<1, float> Z(z.data(), {8192});
  const s2p::field<1, float> X(x.data(), {8192});
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "one" && argc == 6) {
    lopsided(Z, X, 3.0f, std::atof(argv[2]), std::atof(argv[3]), std::atof(argv[4]),
             std::atof(argv[5]));
    std::printf("%s %s %s %s\n", argv[2], argv[3], argv[4], argv[5]);
    return 0;
  }
  if (mode == "one3" && argc == 5) {
    without_tile2(Z, X, 3.0f, std::atof(argv[2]), std::atof(argv[3]), std::atof(argv[4]));
    std::printf("%s %s %s\n", argv[2], argv[3], argv[4]);
    return 0;
  }
  if (mode == "grid3" && argc == 3) {
    const int grid = std::atoi(argv[2]);
    for (int a = 1; a <= grid; ++a)
      for (int b = 1; b <= grid; ++b)
        for (int d = 1; d <= grid; ++d) {
          without_tile2(Z, X, 3.0f, a, b, d);
          std::printf("%d %d %d\n", a, b, d);
        }
    return 0;
  }
  if (mode != "grid" || argc != 4) {
    std::fprintf(stderr, "usage: %s grid G A | one W0 W1 W2 W3 | grid3 G | one3 W0 W1 W3\n", argv[0]);
    return 2;
  }
  const int grid = std::atoi(argv[2]), a = std::atoi(argv[3]);
  for (int b = 1; b <= grid; ++b)
    for (int c = 1; c <= grid; ++c)
      for (int d = 1; d <= grid; ++d) {
        lopsided(Z, X, 3.0f, a, b, c, d);
        std::printf("%d %d %d %d\n", a, b, c, d);
      }
  return 0;
}
