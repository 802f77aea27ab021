// Tile memory is a fabric parameter: at the extents the file calls it with, each of the two
// tiles would hold 390.6 KiB of y and as much of x (plus one received element), more than the
// built-in chip's 624 KiB. The error is at the forall and says what would shrink it.
#include <seq2par/seq2par.h>
S2P_KERNEL S2P_TILES(2) void k(s2p::field<1, double>& y, const s2p::field<1, double>& x) {
  auto map = s2p::resource_map<1>::block(y.extent(), 2);
  auto x_map = s2p::resource_map<1>::block(x.extent(), 2);
  auto yd = s2p::agile(y, map);
  auto xd = s2p::agile(x, x_map);
  s2p::forall(yd.extent(), [&](s2p::index<1> i) { yd[i] = xd[{i[0] + 1}]; });
}
void call(double* y, double* x) {
  s2p::field<1, double> Y(y, {100000});
  k(Y, s2p::field<1, double>(x, {100001}));
}
// EXPECT: 10:3: error: kernel 'k': the forall does not fit in tile memory: tile 0 needs 781.8 KiB live at once but has 624.0 KiB of SRAM; its peak live set, biggest first: 'yd' 390.6 KiB, 'xd' 390.6 KiB, 'body__code' 544 bytes, 'xd (received)' 8 bytes; a smaller block would save 390.6 KiB (half the owned blocks: a map over twice the tiles, or dealing this tile less) and up to 8 bytes (the received copies: smaller memory blocks move only what is read); sharing would save nothing here (every read-only copy live at the peak is read by this forall); 1 more tile does not fit (at the extents of the call at
