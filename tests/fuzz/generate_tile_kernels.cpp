// s2p-fuzz-tiles: writes random valid multi-tile kernels (owner-copy foralls) for differential testing.
//
//   s2p-fuzz-tiles --seed S --count N -o batch.cpp     N kernels in one translation unit
//   s2p-fuzz-tiles --seed S --kernel K -o one.cpp      kernel K of batch S alone
//
// Each kernel spans 1-6 tiles and distributes rank-1 or rank-2 fields with random resource
// maps (block, cyclic, block_block, block_cyclic, split_points; rows or columns order;
// weights; memory and algorithmic blocks that nest). One forall writes the output from
// reads of other fields, possibly distributed differently, through index maps (identity,
// shifts, transpose) in the full global view, or block by block in the local-global view,
// where half the tasks are warp pipelines over a pool (random warps, ring depth, trips);
// some kernels end with a ring collective. Elements are unsigned, so every backend must
// give the same bits. main() prints a checksum of every field each kernel writes.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_common.h"

namespace {

using s2p::fuzz::kernel_seed;
using s2p::fuzz::Random;

constexpr int kPad = 3; // inputs are this much larger per axis, so shifted reads stay inside

std::string list(const std::vector<int>& values) {
  std::string text = "{";
  for (std::size_t k = 0; k < values.size(); ++k)
    text += (k ? ", " : "") + std::to_string(values[k]);
  return text + "}";
}

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0)
      out.push_back(d);
  return out;
}

// The shape a kernel is generated for, written into main() as well.
struct Shape {
  int rank = 1;
  std::vector<int> extent; // the output's; inputs add kPad per axis
  int tiles = 1;
  bool transpose = false; // B is read transposed (rank 2, square)
  bool local_global = false;
  bool collective = false;
};

class TileKernelWriter {
public:
  TileKernelWriter(std::uint64_t seed, std::string name) : rng_(seed), name_(std::move(name)) {}

  const Shape& shape() const { return shape_; }

  std::string write() {
    shape_.rank = rng_.chance(50) ? 1 : 2;
    shape_.tiles = rng_.between(1, 6);
    shape_.local_global = rng_.chance(30);
    shape_.collective = rng_.chance(20);
    if (shape_.rank == 1) {
      shape_.extent = {rng_.between(1, 48)};
    } else {
      shape_.extent = {rng_.between(1, 12), rng_.between(1, 12)};
      shape_.transpose = rng_.chance(40);
      if (shape_.transpose)
        shape_.extent[1] = shape_.extent[0];
    }
    std::ostringstream out;
    const std::string field = "s2p::field<" + std::to_string(shape_.rank) + ", unsigned>";
    out << "S2P_KERNEL S2P_TILES(" << shape_.tiles << ") void " << name_ << "(" << field
        << "& C, const " << field << "& A, const " << field << "& B";
    if (shape_.collective)
      out << ", s2p::field<2, unsigned>& rows";
    out << ", unsigned k) {\n";
    // The output's map, and the inputs' (the same map object, or their own).
    const bool blocks = shape_.local_global;
    out << "  auto map = " << map_expression("C", shape_.extent, blocks) << ";\n";
    // The inputs are larger (shifted reads), so in the global view they get maps of their own.
    std::string a_map = "map", b_map = "map";
    if (!blocks) {
      out << "  auto a_map = " << map_expression("A", padded(shape_.extent), false) << ";\n";
      out << "  auto b_map = " << map_expression("B", padded(shape_.extent), false) << ";\n";
      a_map = "a_map";
      b_map = "b_map";
    }
    out << "  auto Cd = s2p::agile(C, map);\n";
    out << "  auto Ad = s2p::agile(A, " << a_map << ");\n";
    out << "  auto Bd = s2p::agile(B, " << b_map << ");\n";
    out << (blocks ? local_global_forall() : global_forall());
    if (shape_.collective) {
      const char* op[] = {"s2p::sum{}", "s2p::maximum{}", "s2p::minimum{}"};
      switch (rng_.below(3)) {
      case 0:
        out << "  s2p::all_reduce(rows, " << op[rng_.below(3)] << ");\n";
        break;
      case 1:
        out << "  s2p::reduce_scatter(rows, " << op[rng_.below(3)] << ");\n";
        break;
      default:
        out << "  s2p::all_gather(rows);\n";
      }
    }
    out << "}\n";
    return out.str();
  }

private:
  std::vector<int> padded(std::vector<int> e) const {
    if (!shape_.local_global)
      for (auto& x : e)
        x += kPad;
    return e;
  }

  // A random map over `extent` (of field `field`), dealt to the kernel's tiles. Maps that
  // take part in the local-global view keep their algorithmic blocks equal to the output's.
  std::string map_expression(const std::string& field, const std::vector<int>& extent,
                             bool fixed_blocks) {
    const int rank = static_cast<int>(extent.size());
    const std::string type = "s2p::resource_map<" + std::to_string(rank) + ">";
    std::ostringstream e;
    std::vector<int> segment(extent.size(), 1);
    const int protocol = rng_.below(fixed_blocks ? 2 : 5);
    const std::string tiles = std::to_string(shape_.tiles);
    const std::string order = rank == 2 && rng_.chance(30) ? ", s2p::axis::columns" : std::string();
    bool regular = true;
    if (protocol == 0 || protocol == 1) { // block_block / block_cyclic with random segments
      for (int d = 0; d < rank; ++d)
        segment[static_cast<std::size_t>(d)] = rng_.between(1, extent[static_cast<std::size_t>(d)]);
      e << type << "::" << (protocol == 0 ? "block_block" : "block_cyclic") << "(" << field
        << ".extent(), " << list(segment) << ", " << tiles << order << ")";
    } else if (protocol == 2 || protocol == 3) {
      e << type << "::" << (protocol == 2 ? "block" : "cyclic") << "(" << field << ".extent(), "
        << tiles << order << ")";
    } else { // split points: strictly increasing inside each axis
      regular = false;
      e << type << "::split_points(" << field << ".extent(), {{";
      for (int d = 0; d < rank; ++d) {
        std::vector<int> points;
        for (int p = 1; p < extent[static_cast<std::size_t>(d)]; ++p)
          if (rng_.chance(25))
            points.push_back(p);
        e << (d ? ", " : "") << list(points);
      }
      e << "}}, " << tiles << order << ")";
    }
    if (rng_.chance(30)) {
      e << ".weights({";
      for (int t = 0; t < shape_.tiles; ++t)
        e << (t ? ", " : "") << rng_.between(1, 3) << ".0";
      e << "})";
    }
    if (fixed_blocks) {
      // The local-global view reads whole blocks: the output's algorithmic blocks are its
      // segments (a whole number of them per axis in every input).
      return e.str();
    }
    if (regular && rng_.chance(50)) {
      std::vector<int> memory, algorithmic;
      for (int d = 0; d < rank; ++d) {
        const auto m = divisors(segment[static_cast<std::size_t>(d)]);
        memory.push_back(m[static_cast<std::size_t>(rng_.below(static_cast<int>(m.size())))]);
        const auto a = divisors(memory.back());
        algorithmic.push_back(a[static_cast<std::size_t>(rng_.below(static_cast<int>(a.size())))]);
      }
      e << ".memory_blocks(" << list(memory) << ")";
      if (rng_.chance(60))
        e << ".algorithmic_blocks(" << list(algorithmic) << ")";
    }
    return e.str();
  }

  // An index into an input: i, or i shifted by up to kPad per axis, or i transposed.
  std::string shifted_index() {
    std::string text = "{";
    for (int d = 0; d < shape_.rank; ++d) {
      const int shift = rng_.below(kPad + 1);
      text += (d ? ", " : "") + std::string("i[") + std::to_string(d) + "]" +
              (shift ? " + " + std::to_string(shift) : "");
    }
    return text + "}";
  }

  std::string term(bool allow_transpose) {
    switch (rng_.below(allow_transpose && shape_.transpose ? 4 : 3)) {
    case 0:
      return "Ad[" + (rng_.chance(50) ? std::string("i") : shifted_index()) + "]";
    case 1:
      return "Bd[" + shifted_index() + "]";
    case 2:
      return rng_.chance(50) ? "k" : std::to_string(rng_.between(1, 9)) + "u";
    default:
      return "Bd[{i[1], i[0]}]";
    }
  }

  std::string expression() {
    const char* ops[] = {" + ", " - ", " * ", " ^ "};
    std::string text = term(true);
    const int more = rng_.between(1, 3);
    for (int t = 0; t < more; ++t)
      text += ops[rng_.below(4)] + term(true);
    // At least one field read, so something moves.
    if (text.find("d[") == std::string::npos)
      text += " + Ad[i]";
    return text;
  }

  std::string global_forall() {
    return "  s2p::forall(Cd.extent(), [&](s2p::index<" + std::to_string(shape_.rank) +
           "> i) { Cd[i] = " + expression() + "; });\n";
  }

  std::string local_global_forall() {
    const std::string r = std::to_string(shape_.rank);
    std::ostringstream out;
    out << "  auto Ct = s2p::tiles(Cd);\n  auto At = s2p::tiles(Ad);\n  auto Bt = "
           "s2p::tiles(Bd);\n";
    out << "  s2p::forall(Ct.blocks(), [&](s2p::index<" << r << "> b) {\n";
    if (rng_.chance(50)) {
      out << warp_task();
      out << "  });\n";
      return out.str();
    }
    out << "    const auto c = Ct(b);\n    const auto a = At(b);\n    const auto bb = Bt(b);\n";
    const char* ops[] = {" + ", " - ", " * ", " ^ "};
    out << "    s2p::forall(c.extent(), [&](s2p::index<" << r << "> j) { c[j] = a[j]"
        << ops[rng_.below(4)] << "bb[j]" << ops[rng_.below(4)] << "k; });\n";
    out << "  });\n";
    return out.str();
  }

  // A task split into warps: the blocks of A and B loaded into ring slots of a pool, mixed
  // into an accumulator, stored into C's block; random warps, ring depth and trip count.
  // A slot holds a whole field, so it holds any block.
  std::string warp_task() {
    std::int64_t slot = 1;
    for (int x : shape_.extent)
      slot *= x;
    const int depth = rng_.between(1, 3), trips = rng_.between(1, 4);
    const std::string d = std::to_string(depth), e = std::to_string(slot);
    auto warp = [&] { return "S2P_WARP(" + std::to_string(rng_.below(3)) + ") "; };
    std::ostringstream out;
    out << "    s2p::pool<unsigned, " << (2 * depth + 1) * slot << "> smem;\n"
        << "    auto xa = smem.tensor<" << d << ", " << e << ">(0);\n"
        << "    auto xb = smem.tensor<" << d << ", " << e << ">(" << depth * slot << ");\n"
        << "    auto acc = smem.tensor<1, " << e << ">(" << 2 * depth * slot << ");\n"
        << "    " << warp() << "fz_zero(acc[0]);\n"
        << "    for (int s = 0; s < " << trips << "; ++s) {\n"
        << "      " << warp() << "fz_load(At(b), xa[s % " << d << "]);\n"
        << "      " << warp() << "fz_load(Bt(b), xb[s % " << d << "]);\n"
        << "      " << warp() << "fz_mix(xa[s % " << d << "], xb[s % " << d << "], acc[0], k + s);\n"
        << "    }\n"
        << "    " << warp() << "fz_store(acc[0], Ct(b));\n";
    return out.str();
  }

  Random rng_;
  std::string name_;
  Shape shape_;
};

const char* const kPrelude = R"(#include <seq2par/seq2par.h>

#include <cstdio>
#include <vector>

// The intrinsics of tasks split into warps: blocks in and out of pool slots, and a mix.
S2P_INTRINSIC void fz_load(s2p::in<s2p::field<1, unsigned>> src, s2p::out<unsigned> dst) {
  for (std::int64_t k = 0; k < src.size(); ++k)
    dst[static_cast<std::size_t>(k)] = src[s2p::delinearize(k, src.extent())];
}
S2P_INTRINSIC void fz_load(s2p::in<s2p::field<2, unsigned>> src, s2p::out<unsigned> dst) {
  for (std::int64_t k = 0; k < src.size(); ++k)
    dst[static_cast<std::size_t>(k)] = src[s2p::delinearize(k, src.extent())];
}
S2P_INTRINSIC void fz_store(s2p::in<unsigned> src, s2p::out<s2p::field<1, unsigned>> dst) {
  for (std::int64_t k = 0; k < dst.size(); ++k)
    dst[s2p::delinearize(k, dst.extent())] = src[static_cast<std::size_t>(k)];
}
S2P_INTRINSIC void fz_store(s2p::in<unsigned> src, s2p::out<s2p::field<2, unsigned>> dst) {
  for (std::int64_t k = 0; k < dst.size(); ++k)
    dst[s2p::delinearize(k, dst.extent())] = src[static_cast<std::size_t>(k)];
}
S2P_INTRINSIC void fz_zero(s2p::out<unsigned> acc) {
  for (std::size_t k = 0; k < acc.size(); ++k)
    acc[k] = 0u;
}
S2P_INTRINSIC void fz_mix(s2p::in<unsigned> x, s2p::in<unsigned> y, s2p::inout<unsigned> acc, unsigned m) {
  for (std::size_t k = 0; k < acc.size(); ++k)
    acc[k] = (acc[k] * 31u) ^ (x[k] + y[k] * m);
}

)";

// After the checksum: deterministic field contents.
const char* const kFill = R"(std::vector<unsigned> filled(std::size_t n, unsigned salt) {
  std::vector<unsigned> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned>(i * 2654435761u) ^ salt;
  return v;
}
}  // namespace
)";

std::string extent_text(const std::vector<int>& e, int pad) {
  std::string text = "{";
  for (std::size_t d = 0; d < e.size(); ++d)
    text += (d ? ", " : "") + std::to_string(e[d] + pad);
  return text + "}";
}

std::int64_t elements(const std::vector<int>& e, int pad) {
  std::int64_t n = 1;
  for (int x : e)
    n *= x + pad;
  return n;
}

// main()'s call of one kernel: fields filled deterministically (collective rows hold
// tiles + 3 elements: reduce_scatter needs one per tile), checksums printed.
std::string call(const std::string& name, const Shape& s) {
  const int pad = s.local_global ? 0 : kPad;
  const std::string r = std::to_string(s.rank);
  std::ostringstream out;
  out << "  {\n"
      << "    auto c = filled(" << elements(s.extent, 0) << ", 1u), a = filled("
      << elements(s.extent, pad) << ", 2u), b = filled(" << elements(s.extent, pad) << ", 3u);\n"
      << "    auto rows = filled(" << s.tiles * (s.tiles + 3) << ", 4u);\n"
      << "    s2p::field<" << r << ", unsigned> C(c.data(), " << extent_text(s.extent, 0) << ");\n"
      << "    const s2p::field<" << r << ", unsigned> A(a.data(), " << extent_text(s.extent, pad)
      << "), B(b.data(), " << extent_text(s.extent, pad) << ");\n"
      << "    s2p::field<2, unsigned> R(rows.data(), {" << s.tiles << ", " << s.tiles + 3 << "});\n"
      << "    " << name << "(C, A, B" << (s.collective ? ", R" : "") << ", 7u);\n"
      << "    (void)R;\n";
  out << "    std::printf(\"" << name << " C=%08x rows=%08x\\n\", checksum(c), checksum(rows));\n"
      << "  }\n";
  return out.str();
}

} // namespace

int main(int argc, char** argv) {
  const auto request = s2p::fuzz::parse_batch_request(argc, argv, "s2p-fuzz-tiles");
  if (!request)
    return 2;
  const std::uint64_t seed = request->seed;
  std::ofstream out(request->output);
  out << kPrelude << "namespace {\n" << s2p::fuzz::kChecksumSource << kFill << "\n";
  std::ostringstream calls;
  for (int k = request->first; k < request->last; ++k) {
    const std::string name = "tiles_s" + std::to_string(seed) + "_k" + std::to_string(k);
    TileKernelWriter writer(kernel_seed(seed ^ 0x7469u, k), name);
    out << "// kernel " << k << " of batch " << seed << "\n" << writer.write() << "\n";
    calls << call(name, writer.shape());
  }
  out << "int main() {\n" << calls.str() << "  return 0;\n}\n";
  return out.good() ? 0 : 1;
}
