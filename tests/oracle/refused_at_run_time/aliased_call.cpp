// A call whose output aliases its input: y is x shifted by one element. The sequential loop
// reads elements it has already written; the tiles would read elements other tiles overwrite,
// so the generated program refuses the call. The refusal is a std::invalid_argument a program
// may catch; uncaught, it must end the program with its message and exit code 1, not an
// abort and a core dump.
#include <seq2par/seq2par.h>

#include <cstdio>
#include <vector>

S2P_KERNEL S2P_TILES(4) void shift_add(s2p::field<1, float>& y, const s2p::field<1, float>& x) {
  auto map = s2p::resource_map<1>::block(y.extent(), 4);
  auto Yd = s2p::agile(y, map);
  auto Xd = s2p::agile(x, map);
  s2p::forall(Yd.extent(), [&](s2p::index<1> i) { Yd[i] = Xd[i] + 1.0f; });
}

int main() {
  std::vector<float> buffer(257, 1.0f);
  std::printf("before the call\n");
  s2p::field<1, float> Y(buffer.data() + 1, {256});
  shift_add(Y, s2p::field<1, float>(buffer.data(), {256}));
  std::printf("%a\n", static_cast<double>(buffer[256]));
  return 0;
}
// EXPECT-RUNTIME: a forall reads 'Xd', which shares memory with 'Yd'
