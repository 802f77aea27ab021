// A forall body that reads memory through a capture: the tiles read it where the kernel was
// called, before any of them stores its output, while the sequential loop reads what its
// earlier iterations wrote there. Called as k(Z, X, z[0], &z[0], ...), every tile would add
// z[0]'s old value where the sequential build adds the new one (both backends differed from
// the sequential build before seq2par refused this).
#include <seq2par/seq2par.h>

#include <span>
#include <vector>

struct Gains {
  float low, high; // plain values: fine, by value or not
};

S2P_KERNEL S2P_TILES(3) void k(s2p::field<1, float>& z, const s2p::field<1, float>& x,
                               const float& bias, const float* offset,
                               const std::vector<float>& table, std::span<const float> window,
                               Gains gains) {
  auto map = s2p::resource_map<1>::block_cyclic(z.extent(), {10}, 3);
  auto Zd = s2p::agile(z, map);
  auto Xd = s2p::agile(x, map);
  const float* first = z.data();
  const float scale = bias * 2.0f; // a copy made before the forall: fine
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    const float base = Xd[i] * scale + gains.low * gains.high;
    Zd[i] = base + bias + *offset + table[1] + window[0] + first[0] + bias;
  });
}
// EXPECT: 26:20: error: the forall body reads 'bias', a reference captured from the kernel
// EXPECT: 26:28: error: the forall body reads 'offset', a pointer captured from the kernel
// EXPECT: 26:37: error: the forall body reads 'table', a reference captured from the kernel
// EXPECT: 26:48: error: the forall body reads 'window', a class that reaches other memory (its member
// EXPECT: 26:60: error: the forall body reads 'first', a pointer captured from the kernel
