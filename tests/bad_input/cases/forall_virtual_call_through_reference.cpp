// A virtual call through a reference or pointer in a forall body runs an override seq2par does
// not look at (it reads the static callee's body): a counter in the override would race on the
// tiles, as a global does. Called on an object of its own type (or a final class), the callee is
// known and its body is checked as any other; marked S2P_HARMLESS_STATE, it is trusted.
#include <seq2par/seq2par.h>

struct Scale {
  virtual ~Scale() = default;
  virtual float apply(float v) const { return v; }
  S2P_HARMLESS_STATE virtual float trusted(float v) const { return v; }
};
struct Twice final : Scale {
  float apply(float v) const override { return 2 * v; }
};

S2P_KERNEL S2P_TILES(3) void k(s2p::field<1, float>& z, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block_cyclic(z.extent(), {10}, 3);
  auto Zd = s2p::agile(z, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    const Twice twice;
    const Scale& scale = twice;
    const Twice& known = twice;
    Zd[i] = scale.apply(Xd[i]) + known.apply(Xd[i]) + twice.apply(Xd[i]) + scale.trusted(Xd[i]);
  });
}
// EXPECT: 24:19: error: the forall body makes a virtual call of 'Scale::apply' through a reference or pointer, whose override seq2par cannot see; call it on an object of its own type, or mark the function S2P_HARMLESS_STATE if no override keeps state that changes a result
