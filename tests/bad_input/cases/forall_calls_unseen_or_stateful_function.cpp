// A forall body runs on every tile at once, in an order the sequential loop does not have: a
// call whose body seq2par cannot see may keep state (a counter in another file) that the tiles
// would race on, and a library function that keeps state between calls or writes a stream in
// call order gives each element another value (or prints in another order) than the sequential
// loop; so does the standard stream every tile would write to (std::cout). Before seq2par
// refused them, each of these was accepted and the tiles computed something else. A function
// marked S2P_HARMLESS_STATE, a visible one, a pure library function (std::sqrt) and a stream the
// body declares itself stay accepted.
#include <seq2par/seq2par.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

int next_id();                              // defined in another file
S2P_HARMLESS_STATE float calibrated(float); // declared harmless by its author
float twice(float v) { return 2 * v; }      // visible: checked where it is

S2P_KERNEL S2P_TILES(3) void k(s2p::field<1, float>& z, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block_cyclic(z.extent(), {10}, 3);
  auto Zd = s2p::agile(z, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    const float id = static_cast<float>(next_id());
    const float noise = static_cast<float>(std::rand() % 7);
    std::printf("element %d\n", static_cast<int>(i[0]));
    std::cout << "element " << i[0] << "\n";
    std::ostringstream own; // the body's own stream: fine
    own << i[0];
    Zd[i] = twice(Xd[i]) + calibrated(std::sqrt(Xd[i])) + id + noise;
  });
}
// EXPECT: 26:41: error: the forall body calls 'next_id', whose body seq2par cannot see; every tile runs the body at once, so state it keeps would race or change with the order the tiles run in: define it where the kernel can see it, or mark its declaration S2P_HARMLESS_STATE if no state it keeps changes a result
// EXPECT: 27:44: error: the forall body calls 'rand', which keeps state between calls; the tiles run the body at once and in another order than the sequential loop, so they would compute something else
// EXPECT: 28:5: error: the forall body calls 'printf', which reads or writes a stream in call order; the tiles run the body at once and in another order than the sequential loop, so they would compute something else
// EXPECT: 29:10: error: the forall body uses 'std::cout', a standard stream read or written in call order; the tiles run the body at once and in another order than the sequential loop, so they would compute something else
