// s2p-fuzz-gen: writes random valid annotated kernels for differential testing.
//
//   s2p-fuzz-gen --seed S --count N -o batch.cpp     N kernels in one translation unit
//   s2p-fuzz-gen --seed S --kernel K -o one.cpp      kernel K of batch S alone (to reproduce)
//
// Kernel K of batch S depends only on (S, K), so a failing kernel found in a batch can be
// regenerated on its own and kept as a regression test. Every kernel has 1-3 stages
// (straight code, constant loops with nested loops, loops with a run-time trip count),
// conditions (with or without an else) on the variables of constant loops (`if (i + 2 < 4)`,
// resolved at transpile time), on them and the parameter n, and on the variable of a loop
// over n (`if (k + 2 < n)`, `if (k == n - 1)`; both predicated), 2-4 warps, pool tensors that overlap, and several readers per producer. main() runs each
// kernel for several trip counts and prints checksums of everything it wrote.
#include <cstdint>
#include <cstdio>
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

struct Tensor {
  std::string name;
  int rows = 1; // rank-2 tensors: rows x cols sub-tensors
  int cols = 1;
  bool rank2 = false;
  int size = 4;
  int offset = 0;
  int count() const { return rows * cols; }
};

constexpr int kRefCapacity = 64; // sub-tensors in each tensor_ref; > every trip count used

class KernelWriter {
public:
  KernelWriter(std::uint64_t seed, std::string name) : rng_(seed), name_(std::move(name)) {}

  std::string write() {
    warps_ = rng_.between(2, 4);
    pool_ = rng_.between(48, 192);
    const int tensors = rng_.between(2, 4);
    for (int t = 0; t < tensors; ++t)
      tensors_.push_back(make_tensor(t));
    std::ostringstream body;
    const int stages = rng_.between(1, 3);
    for (int s = 0; s < stages; ++s)
      write_stage(body, s);
    // Make every tensor observable: store its first sub-tensor.
    for (std::size_t t = 0; t < tensors_.size(); ++t)
      body << "  S2P_WARP(" << rng_.below(warps_) << ") fz_store(" << element(tensors_[t], "0", "0")
           << ", out[" << kRefCapacity - 1 - static_cast<int>(t) << "]);\n";
    std::ostringstream out;
    out << "S2P_KERNEL void " << name_
        << "(s2p::tensor_ref<unsigned> in, s2p::tensor_ref<unsigned> out, "
        << "s2p::tensor_ref<unsigned> acc, int n) {\n";
    out << "  s2p::pool<unsigned, " << pool_ << "> smem;\n";
    for (const auto& t : tensors_) {
      out << "  auto " << t.name << " = smem.tensor<";
      if (t.rank2)
        out << t.rows << ", " << t.cols << ", ";
      else
        out << t.count() << ", ";
      out << t.size << ">(" << t.offset << ");\n";
    }
    out << body.str() << "}\n";
    return out.str();
  }

private:
  Tensor make_tensor(int index) {
    Tensor t;
    t.name = 't' + std::to_string(index); // chars, not "t": GCC bug 105651 (a false -Wrestrict)
    t.rank2 = rng_.chance(20);
    t.rows = t.rank2 ? rng_.between(1, 2) : 1;
    t.cols = rng_.between(1, 4);
    t.size = rng_.between(2, 12);
    while (t.count() * t.size > pool_)
      t.size = std::max(1, t.size / 2), t.cols = std::max(1, t.cols - 1);
    // Offsets are random, so tensors overlap (alias) often.
    t.offset = rng_.between(0, pool_ - t.count() * t.size);
    return t;
  }

  // A coordinate of `t` valid for every value of the loop variables in scope.
  std::string coordinate(int count, bool symbolic_i) {
    if (count == 1)
      return "0";
    const std::string i = loop_vars_.empty() ? "" : loop_vars_[0];
    const std::string j = loop_vars_.size() > 1 ? loop_vars_[1] : "";
    std::string expr = std::to_string(rng_.below(count));
    if (!i.empty() && rng_.chance(80))
      expr = (rng_.chance(70) ? "" : "2 * ") + i + " + " + expr;
    if (!j.empty() && rng_.chance(60))
      expr += " + " + j;
    (void)symbolic_i;
    return "(" + expr + ") % " + std::to_string(count);
  }

  std::string element(const Tensor& t, const std::string& row, const std::string& col) {
    return t.rank2 ? t.name + "(" + row + ", " + col + ")" : t.name + "[" + col + "]";
  }

  std::string sub_tensor(const Tensor& t) {
    if (!t.rank2 && rng_.chance(8))
      return t.name + ".all()";
    return element(t, coordinate(t.rows, symbolic_),
                   coordinate(t.rank2 ? t.cols : t.count(), symbolic_));
  }

  const Tensor& pick() { return tensors_[rng_.below(static_cast<int>(tensors_.size()))]; }

  std::string ref_index() {
    // tensor_ref indices: affine in the outer loop variable, or constant.
    if (!loop_vars_.empty() && rng_.chance(70))
      return loop_vars_[0] + (rng_.chance(50) ? "" : " + 1");
    return std::to_string(rng_.below(8));
  }

  // A call, in a loop sometimes under a condition, with or without an else: in a loop with a
  // constant trip count on the loop's variable (resolved per iteration at transpile time) or
  // on it and `n` (predicated); in a loop over n on its variable (predicated).
  void write_statement(std::ostringstream& out, const std::string& indent) {
    if (loop_vars_.empty() || !rng_.chance(25)) {
      write_call(out, indent);
      return;
    }
    const std::string condition = symbolic_         ? run_time_condition()
                                  : rng_.chance(20) ? mixed_condition()
                                                    : static_condition();
    out << indent << "if (" << condition << ") {\n";
    write_call(out, indent + "  ");
    if (rng_.chance(40)) {
      out << indent << "} else {\n";
      write_call(out, indent + "  ");
    }
    out << indent << "}\n";
  }

  // Affine in the innermost loop variable and constants: what a hand-pipelined kernel writes
  // (a prefetch guard `k + 2 < K`, the first or last iteration, every other one).
  std::string static_condition() {
    const std::string& v = loop_vars_.back();
    const int trip = trips_.back();
    switch (rng_.below(5)) {
    case 0:
      return v + " + " + std::to_string(rng_.between(1, 2)) + " < " + std::to_string(trip);
    case 1:
      return v + " == 0";
    case 2:
      return v + " % 2 == " + std::to_string(rng_.below(2));
    case 3:
      return v + " != " + std::to_string(rng_.below(trip));
    default:
      return "2 * " + v + " >= " + std::to_string(trip);
    }
  }

  // On the variable of the loop over n (and an inner loop's): a prefetch guard, the first
  // or last iteration, every other one. Only the running program decides these.
  std::string run_time_condition() {
    const std::string& k = loop_vars_.front();
    switch (rng_.below(6)) {
    case 0:
      return k + " + " + std::to_string(rng_.between(1, 2)) + " < n";
    case 1:
      return k + " == 0";
    case 2:
      return k + " == n - 1";
    case 3:
      return k + " > 0";
    case 4:
      return k + " % 2 == " + std::to_string(rng_.below(2));
    default:
      return loop_vars_.back() + " + " + (loop_vars_.size() > 1 ? k + " + " : "") + "1 < n";
    }
  }

  // A constant loop's variable together with the parameter n.
  std::string mixed_condition() {
    const std::string& v = loop_vars_.back();
    return rng_.chance(50) ? v + " < n" : v + " + n > " + std::to_string(rng_.between(2, 4));
  }

  void write_call(std::ostringstream& out, const std::string& indent) {
    out << indent << "S2P_WARP(" << rng_.below(warps_) << ") ";
    const std::string tag = loop_vars_.empty()
                                ? std::to_string(rng_.below(100))
                                : loop_vars_[0] + " * 7 + " + std::to_string(rng_.below(9));
    switch (rng_.below(7)) {
    case 0:
      out << "fz_fill(" << sub_tensor(pick()) << ", " << tag << ");\n";
      break;
    case 1: {
      const Tensor& a = pick();
      const Tensor& b = pick();
      out << "fz_copy(" << sub_tensor(a) << ", " << sub_tensor(b) << ");\n";
      break;
    }
    case 2:
      out << "fz_mix(" << sub_tensor(pick()) << ", " << sub_tensor(pick()) << ", "
          << sub_tensor(pick()) << ");\n";
      break;
    case 3:
      out << "fz_update(" << sub_tensor(pick()) << ", " << tag << ");\n";
      break;
    case 4:
      out << "fz_fold(" << sub_tensor(pick()) << ", acc[" << rng_.below(4) << "]);\n";
      break;
    case 5:
      out << "fz_load(in[" << ref_index() << "], " << sub_tensor(pick()) << ");\n";
      break;
    default:
      out << "fz_store(" << sub_tensor(pick()) << ", out[" << ref_index() << "]);\n";
      break;
    }
  }

  void write_stage(std::ostringstream& out, int stage) {
    const std::string i = 'i' + std::to_string(stage); // chars: see make_tensor
    const int kind = rng_.below(10);
    if (kind < 2) { // straight-line
      for (int c = rng_.between(1, 3); c > 0; --c)
        write_call(out, "  ");
      return;
    }
    symbolic_ = kind >= 7;
    const int trip = symbolic_ ? 0 : rng_.between(1, 5);
    loop_vars_ = {i};
    trips_ = {trip};
    out << "  for (int " << i << " = 0; " << i << " < "
        << (symbolic_ ? "n" : std::to_string(trip)) << "; ++" << i << ") {\n";
    const bool nested = rng_.chance(35);
    if (nested) {
      const std::string j = 'j' + std::to_string(stage);
      if (rng_.chance(50))
        write_statement(out, "    ");
      const int inner = rng_.between(1, 3);
      loop_vars_.push_back(j);
      trips_.push_back(inner);
      out << "    for (int " << j << " = 0; " << j << " < " << inner << "; ++" << j << ") {\n";
      for (int c = rng_.between(1, 3); c > 0; --c)
        write_statement(out, "      ");
      out << "    }\n";
      loop_vars_.pop_back();
      trips_.pop_back();
    }
    for (int c = rng_.between(nested ? 0 : 1, 3); c > 0; --c)
      write_statement(out, "    ");
    out << "  }\n";
    loop_vars_.clear();
    trips_.clear();
    symbolic_ = false;
  }

  Random rng_;
  std::string name_;
  int warps_ = 2;
  int pool_ = 64;
  std::vector<Tensor> tensors_;
  std::vector<std::string> loop_vars_;
  std::vector<int> trips_; // each loop variable's constant trip count
  bool symbolic_ = false;
};

const char* kPrelude =
    R"(// Generated by s2p-fuzz-gen: random valid kernels; the sequential build is the oracle.
#include <seq2par/seq2par.h>

#include <cstdio>
#include <vector>

S2P_INTRINSIC void fz_fill(s2p::out<unsigned> dst, int tag) {
  for (std::size_t k = 0; k < dst.size(); ++k) dst[k] = static_cast<unsigned>(tag) * 2654435761u + static_cast<unsigned>(k);
}
S2P_INTRINSIC void fz_copy(s2p::in<unsigned> src, s2p::out<unsigned> dst) {
  for (std::size_t k = 0; k < dst.size(); ++k) dst[k] = src[k % src.size()] * 3u + 1u;
}
S2P_INTRINSIC void fz_mix(s2p::in<unsigned> a, s2p::in<unsigned> b, s2p::out<unsigned> dst) {
  // Reads everything first: dst may alias a or b.
  std::vector<unsigned> mixed(dst.size());
  for (std::size_t k = 0; k < dst.size(); ++k) mixed[k] = a[k % a.size()] * 7u ^ b[(k * 3) % b.size()];
  for (std::size_t k = 0; k < dst.size(); ++k) dst[k] = mixed[k];
}
S2P_INTRINSIC void fz_update(s2p::inout<unsigned> x, int tag) {
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = x[k] * 5u + static_cast<unsigned>(tag);
}
S2P_INTRINSIC void fz_fold(s2p::in<unsigned> src, s2p::inout<unsigned> acc) {
  unsigned s = acc[0];
  for (unsigned v : src) s = s * 31u + v;
  acc[0] = s;
}
S2P_INTRINSIC void fz_load(s2p::in<unsigned> src, s2p::out<unsigned> dst) {
  for (std::size_t k = 0; k < dst.size(); ++k) dst[k] = src[k % src.size()] + static_cast<unsigned>(k);
}
S2P_INTRINSIC void fz_store(s2p::in<unsigned> src, s2p::out<unsigned> dst) {
  for (std::size_t k = 0; k < dst.size(); ++k) dst[k] = src[k % src.size()];
}

)";

// After the checksum: runs a kernel for several trip counts, printing what it wrote.
const char* kRunner = R"(template <class Kernel> void run(const char* name, Kernel kernel) {
  for (int n : {0, 1, 2, 3, 5, 11}) {
    std::vector<unsigned> in(64 * 4), out(64 * 4, 0u), acc(4, 1u);
    for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<unsigned>(k * 2654435761u);
    kernel({in.data(), 64, 4}, {out.data(), 64, 4}, {acc.data(), 4, 1}, n);
    std::printf("%s n=%d out=%08x acc=%08x\n", name, n, checksum(out), checksum(acc));
  }
}
} // namespace
)";

} // namespace

int main(int argc, char** argv) {
  const auto request = s2p::fuzz::parse_batch_request(argc, argv, "s2p-fuzz-gen");
  if (!request)
    return 2;
  const std::uint64_t seed = request->seed;
  std::ofstream out(request->output);
  out << kPrelude << "namespace {\n" << s2p::fuzz::kChecksumSource << kRunner << "\n";
  std::vector<std::string> names;
  for (int k = request->first; k < request->last; ++k) {
    const std::string name = "fuzz_s" + std::to_string(seed) + "_k" + std::to_string(k);
    out << "// kernel " << k << " of batch " << seed << "\n"
        << KernelWriter(kernel_seed(seed, k), name).write() << "\n";
    names.push_back(name);
  }
  out << "int main() {\n";
  for (const auto& name : names)
    out << "  run(\"" << name << "\", " << name << ");\n";
  out << "  return 0;\n}\n";
  return out.good() ? 0 : 1;
}
