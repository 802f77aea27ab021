// Data spread over tiles (the agile communication operator). A resource map says
// which tile owns which block of a field; `forall` computes every output element on the
// tile that owns it, and seq2par moves the input blocks it needs there first (owner-copy),
// one memory block at a time, each at most once per tile.
//
// add_transpose is the C = A + B^T owner-copy example at 1/64 of its size with the same block
// structure: 96 x 96 doubles, 32 x 32 compute-node segments dealt block-cyclically to 4
// tiles, 32 x 16 memory blocks (the move granularity), 16 x 16 algorithmic blocks. Its
// S2P_MOVE_MEMORY(C, B) is the owner-copy model's [[move_memory(C, B)]]: B's blocks move once, at the
// start of C's tasks.
// add_transpose_blocks is the same computation in the local-global view
// (block by block): the forall runs over C's algorithmic blocks, each tile access Xt(b) is where data
// moves, and elements inside a block are read without owner lookups.
// scaled_sum is an elementwise kernel over a weighted block-cyclic map: the first tile is
// twice as fast, so it is dealt two of every four blocks.
#include <seq2par/seq2par.h>

#include "../common/sample_support.h"

#include <vector>

S2P_KERNEL S2P_TILES(4) S2P_MOVE_MEMORY(C, B) void add_transpose(s2p::field<2, double>& C,
                                                                const s2p::field<2, double>& A,
                                                                const s2p::field<2, double>& B) {
  auto map = s2p::resource_map<2>::block_cyclic(C.extent(), {32, 32}, 4)
                 .memory_blocks({32, 16})
                 .algorithmic_blocks({16, 16});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  s2p::forall(Cd.extent(), [&](s2p::index<2> i) { Cd[i] = Ad[i] + Bd[{i[1], i[0]}]; });
}

S2P_KERNEL S2P_TILES(4) void add_transpose_blocks(s2p::field<2, double>& C,
                                                  const s2p::field<2, double>& A,
                                                  const s2p::field<2, double>& B) {
  auto map = s2p::resource_map<2>::block_cyclic(C.extent(), {32, 32}, 4)
                 .memory_blocks({32, 16})
                 .algorithmic_blocks({16, 16});
  auto Cd = s2p::agile(C, map);
  auto Ad = s2p::agile(A, map);
  auto Bd = s2p::agile(B, map);
  auto Ct = s2p::tiles(Cd);
  auto At = s2p::tiles(Ad);
  auto Bt = s2p::tiles(Bd);
  s2p::forall(Ct.blocks(), [&](s2p::index<2> b) {
    const auto c = Ct(b);
    const auto a = At(b);
    const auto bt = Bt({b[1], b[0]}); // block (b1, b0) of B, read transposed
    s2p::forall(c.extent(), [&](s2p::index<2> j) { c[j] = a[j] + bt[{j[1], j[0]}]; });
  });
}

S2P_KERNEL S2P_TILES(3) void scaled_sum(s2p::field<1, float>& z, const s2p::field<1, float>& x,
                                        const s2p::field<1, float>& y, float scale) {
  auto map = s2p::resource_map<1>::block_cyclic(z.extent(), {50}, 3).weights({2.0, 1.0, 1.0});
  auto shifted_map =
      s2p::resource_map<1>::block_cyclic(y.extent(), {50}, 3).weights({2.0, 1.0, 1.0});
  auto Zd = s2p::agile(z, map);
  auto Xd = s2p::agile(x, map);
  auto Yd = s2p::agile(y, shifted_map); // one element longer: read at i + 1
  s2p::forall(Zd.extent(), [&](s2p::index<1> i) {
    const float shifted = Yd[{i[0] + 1}];
    Zd[i] = Xd[i] * scale + shifted;
  });
}

int main() {
  std::vector<double> a(96 * 96), b(96 * 96), c(96 * 96, 0.0);
  for (std::size_t k = 0; k < a.size(); ++k) {
    a[k] = static_cast<double>(k % 101) * 0.5;
    b[k] = static_cast<double>((k * 7) % 89) - 40.0;
  }
  s2p::field<2, double> C(c.data(), {96, 96});
  add_transpose(C, s2p::field<2, double>(a.data(), {96, 96}),
                s2p::field<2, double>(b.data(), {96, 96}));
  sample::print_array("C", c.data(), c.size());

  std::vector<double> c_blocks(96 * 96, 0.0);
  s2p::field<2, double> C_blocks(c_blocks.data(), {96, 96});
  add_transpose_blocks(C_blocks, s2p::field<2, double>(a.data(), {96, 96}),
                       s2p::field<2, double>(b.data(), {96, 96}));
  sample::print_array("C (local-global view)", c_blocks.data(), c_blocks.size());

  std::vector<float> x(1000), y(1001), z(1000, 0.0f);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = static_cast<float>(k) * 0.25f;
  for (std::size_t k = 0; k < y.size(); ++k)
    y[k] = static_cast<float>(k % 7);
  s2p::field<1, float> Z(z.data(), {1000});
  scaled_sum(Z, s2p::field<1, float>(x.data(), {1000}), s2p::field<1, float>(y.data(), {1001}),
             2.0f);
  sample::print_array("z", z.data(), z.size());
  return 0;
}
