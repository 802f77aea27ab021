// Acceptance fuzzer: valid kernels mutated into the C++ a user writes and seq2par's other
// fuzzers never generate: unsigned and narrow index arithmetic, hidden state, pointer and
// reference parameters, second views of a buffer, side effects and tile-dependent compute in
// forall bodies, user combine objects. Each program is one kernel plus a main() that prints
// what it computed. The property (run_acceptance.cmake): seq2par refuses it with a located
// error, or the generated program prints exactly what the sequential one prints, on sim and
// repeatedly on threads.
//   s2p-fuzz-accept --seed S --kernel K -o k.cpp
#include "fuzz_common.h"

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

using s2p::fuzz::Random;

template <class T> const T& pick(Random& rng, const std::vector<T>& options) {
  return options[static_cast<std::size_t>(rng.below(static_cast<int>(options.size())))];
}

struct IntKind {
  const char* spelling;
  int max; // loop bounds stay below it, except when the fuzzer wants a wrap
};

// --- warp-split kernels -------------------------------------------------------------------

// One value argument of `produce`: a C++ type for the parameter and an expression in `i`.
struct ValueArgument {
  std::string type, expression;
};

ValueArgument value_argument(Random& rng) {
  static const std::vector<std::string> types = {"unsigned", "int", "long long", "unsigned char",
                                                 "short", "std::uint64_t"};
  const int c = rng.between(0, 9);
  const std::string k = std::to_string(c);
  const std::vector<std::string> expressions = {
      "i - " + k,
      k + " - i",
      "i * " + std::to_string(rng.between(2, 40000)),
      "7u / (i + 1)",
      "static_cast<unsigned char>(i * 100 + 50)",
      "static_cast<short>(i * 20000)",
      "(i - " + k + ") / 2",
      "-i",
      "i % 2 - 1",
      "static_cast<int>(i) - " + k,
      "i / (i - " + k + ")", // divides by zero when i reaches k: refused
      "(i - " + k + ") % 5u",
  };
  return {pick(rng, types), pick(rng, expressions)};
}

std::string pool_coordinate(Random& rng) {
  const std::string c = std::to_string(rng.between(0, 4));
  return pick(rng, std::vector<std::string>{"i % 3", "(i + " + c + ") % 3", "(i - " + c + ") % 3",
                                             "(2 * i + " + c + ") % 3", "(i - 1) % 5 % 3"});
}

// Parameter kinds for the state an intrinsic reaches besides its tensors.
enum class StateKind {
  None,
  GlobalOnOneWarp,   // accepted: program order on one warp
  GlobalOnTwoWarps,  // refused
  StaticLocal,       // on one warp: accepted
  MutableReference,  // refused
  Pointer,           // refused
  ConstReference,    // accepted
  PlainStruct,       // accepted
  StructWithPointer, // refused
  SecondView,        // a tensor_ref over another's memory: refused
  MemberIntrinsic,   // refused
};

const char* state_name(StateKind kind) {
  static const char* const names[] = {"none",         "global-one-warp", "global-two-warps",
                                      "static-local", "mutable-reference", "pointer",
                                      "const-reference", "plain-struct", "struct-with-pointer",
                                      "second-view",  "member-intrinsic"};
  return names[static_cast<int>(kind)];
}

void warp_kernel(Random& rng, std::ostream& out) {
  static const std::vector<IntKind> loop_types = {{"int", 40},          {"unsigned", 40},
                                                  {"long", 40},         {"unsigned char", 300},
                                                  {"short", 40},        {"std::size_t", 40}};
  const IntKind loop = pick(rng, loop_types);
  const int lo = rng.between(0, 3);
  const int hi = lo + rng.between(1, loop.max == 300 ? 300 : 12);
  const ValueArgument value = value_argument(rng);
  const std::string coordinate = pool_coordinate(rng);
  const auto state = static_cast<StateKind>(rng.below(11));
  const bool symbolic = rng.chance(25);

  // The shape this kernel was mutated into: the batch counts its verdicts per shape.
  out << "// shape: warp " << state_name(state) << "\n";
  out << "#include <seq2par/seq2par.h>\n#include <cstdint>\n#include <cstdio>\n\n";
  out << "struct Plain { long a; int b; };\nstruct Holder { long* p; };\n";
  out << "long g_total = 0;\n";
  out << "inline long next_id() { static long id = 0; return ++id; }\n\n";
  std::string extra_param, extra_arg, produce_state, consume_state;
  switch (state) {
  case StateKind::GlobalOnOneWarp: produce_state = "g_total += 3; slot[0] += g_total;"; break;
  case StateKind::GlobalOnTwoWarps:
    produce_state = "g_total += 3;";
    consume_state = "dst[0] += g_total;";
    break;
  case StateKind::StaticLocal: produce_state = "slot[0] += next_id();"; break;
  case StateKind::MutableReference: extra_param = ", long& acc"; extra_arg = ", acc"; break;
  case StateKind::Pointer: extra_param = ", long* acc"; extra_arg = ", acc_ptr"; break;
  case StateKind::ConstReference: extra_param = ", const long& acc"; extra_arg = ", acc"; break;
  case StateKind::PlainStruct: extra_param = ", Plain acc"; extra_arg = ", plain"; break;
  case StateKind::StructWithPointer: extra_param = ", Holder acc"; extra_arg = ", holder"; break;
  default: break;
  }
  const bool member = state == StateKind::MemberIntrinsic;
  out << (member ? "struct Unit {\n  long bias = 1;\n  " : "") << "S2P_INTRINSIC void produce(s2p::out<long> slot, "
      << value.type << " v" << extra_param << ") {\n"
      << "  for (std::size_t k = 0; k < slot.size(); ++k)\n"
      << "    slot[k] = static_cast<long>(v) * 31 + static_cast<long>(k);\n  " << produce_state
      << "\n}\n" << (member ? "};\n" : "");
  out << "S2P_INTRINSIC void consume(s2p::in<long> slot, s2p::out<long> dst) {\n"
      << "  dst[0] = dst[0] * 1000003 + slot[0] + slot[slot.size() - 1];\n  " << consume_state
      << "\n}\n\n";
  const std::string bound = symbolic ? "n" : std::to_string(hi);
  out << "S2P_KERNEL void k(s2p::tensor_ref<long> out, int n" << (member ? ", Unit& unit" : "")
      << ") {\n"
      << "  s2p::pool<long, 3 * 4> smem;\n  auto ring = smem.tensor<3, 4>(0);\n"
      << "  long acc = 7;\n  long* acc_ptr = nullptr;\n  const Plain plain{5, 6};\n"
      << "  const Holder holder{nullptr};\n";
  if (state == StateKind::SecondView)
    out << "  s2p::tensor_ref<long> view(out.data(), out.count(), 1);\n";
  out << "  for (" << loop.spelling << " i = " << lo << "; i < " << bound << "; ++i) {\n"
      << "    S2P_WARP(0) " << (member ? "unit." : "") << "produce(ring[" << coordinate << "], "
      << value.expression << extra_arg << ");\n"
      << "    S2P_WARP(1) consume(ring[" << coordinate << "], "
      << (state == StateKind::SecondView ? "view" : "out") << "[i % 2]);\n  }\n}\n\n";
  out << "int main() {\n  long out[2] = {0, 0};\n" << (member ? "  Unit unit;\n" : "")
      << "  for (int run = 0; run < 2; ++run)\n    k({out, 2, 1}, " << hi << (member ? ", unit" : "")
      << ");\n  std::printf(\"%ld %ld %ld\\n\", out[0], out[1], g_total);\n}\n";
}

// --- multi-tile kernels ---------------------------------------------------------------------

enum class TileMutation {
  Valid,           // a constexpr helper in the body: accepted
  CapturedWrite,   // refused
  PlainFieldRead,  // refused
  TileIndex,       // refused
  StaticInHelper,  // refused
  InPlace,         // refused
  CustomCombine,   // refused
  LibraryCombine,  // accepted
  // The access model's shapes: reads it must compute (through helpers) or refuse.
  HelperRead,          // a template helper reading the field at the index: accepted
  HelperClampedRead,   // a helper whose index is no index map: refused
  LocalReference,      // `const auto& view = Ad;` then view[i]: refused
  MutatedIndex,        // the body changes its index: refused
  ConstPointerState,   // a `long* const` global bumped in the body: refused
  ThreadLocalState,    // a thread_local counter: refused
  OtherExtent,         // a forall over another field's extent: refused
  ReadsOwnOutput,      // Cd[i] = Cd[i] * 2 + Ad[i]: accepted
  LambdaRead,          // a lambda of the body reading the field, called: accepted
  LambdaPointer,       // that lambda called through a pointer: refused
  ReferenceWrite,      // the output written through `auto& acc = Cd[i]`: accepted
  ElementAddress,      // `const long* p = &Ad[i]`: refused
  Count,
};

void tile_kernel(Random& rng, std::ostream& out) {
  const auto mutation = static_cast<TileMutation>(rng.below(static_cast<int>(TileMutation::Count)));
  static const char* const names[] = {
      "valid",          "captured-write",      "plain-field-read",  "tile-index",
      "static-in-helper", "in-place",          "custom-combine",    "library-combine",
      "helper-read",    "helper-clamped-read", "local-reference",   "mutated-index",
      "const-pointer-state", "thread-local-state", "other-extent",  "reads-own-output",
      "lambda-read",    "lambda-pointer",      "reference-write",   "element-address"};
  static_assert(std::size(names) == static_cast<std::size_t>(TileMutation::Count));
  out << "// shape: tiles " << names[static_cast<int>(mutation)] << "\n";
  const int tiles = rng.between(1, 4);
  const int n = tiles * rng.between(2, 6);
  out << "#include <seq2par/seq2par.h>\n#include <cstdio>\n#include <vector>\n\n";
  out << "constexpr long twice(long v) { return 2 * v; }\n";
  out << "inline long next_id() { static long id = 0; return ++id; }\n";
  out << "struct Xor { long operator()(long a, long b) const { return a ^ b; } };\n";
  out << "template <class F> long at(const F& f, long k) { return f[{k}]; }\n";
  out << "template <class F> long clamped(const F& f, long k) { return f[{k > 0 ? k - 1 : 0}]; }\n";
  out << "long g_seen = 0;\nlong* const g_counter = &g_seen;\nthread_local long g_local = 0;\n\n";
  const bool collective =
      mutation == TileMutation::CustomCombine || mutation == TileMutation::LibraryCombine;
  if (collective) {
    out << "S2P_KERNEL S2P_TILES(" << tiles << ") void k(s2p::field<2, long>& rows) {\n"
        << "  s2p::all_reduce(rows, "
        << (mutation == TileMutation::CustomCombine ? "Xor{}" : "s2p::maximum{}") << ");\n}\n\n";
    out << "int main() {\n  std::vector<long> r(" << tiles * 3 << ");\n"
        << "  for (std::size_t x = 0; x < r.size(); ++x) r[x] = static_cast<long>(x * 7 % 5);\n"
        << "  s2p::field<2, long> rows(r.data(), {" << tiles << ", 3});\n  k(rows);\n"
        << "  for (long v : r) std::printf(\"%ld \", v);\n  std::printf(\"\\n\");\n}\n";
    return;
  }
  std::string body = "Cd[i] = Ad[i] * 3 + twice(i[0]);";
  std::string extra;
  std::string domain = "Cd.extent()";
  switch (mutation) {
  case TileMutation::HelperRead: body = "Cd[i] = at(Ad, i[0]) * 3 + twice(i[0]);"; break;
  case TileMutation::HelperClampedRead: body = "Cd[i] = clamped(Ad, i[0]) + 1;"; break;
  case TileMutation::LocalReference: body = "const auto& view = Ad; Cd[i] = view[i] + 1;"; break;
  case TileMutation::MutatedIndex: body = "const long v = Ad[i]; i[0] = 0; Cd[{i[0]}] = v;"; break;
  case TileMutation::ConstPointerState: body = "Cd[i] = Ad[i] + ++*g_counter;"; break;
  case TileMutation::ThreadLocalState: body = "Cd[i] = Ad[i] + ++g_local;"; break;
  case TileMutation::OtherExtent: domain = "A.extent()"; break;
  case TileMutation::ReadsOwnOutput: body = "Cd[i] = Cd[i] * 2 + Ad[i];"; break;
  case TileMutation::LambdaRead:
    body = "auto near = [&](long r) { return Ad[{r}]; }; Cd[i] = near(i[0]) * 3 + twice(i[0]);";
    break;
  case TileMutation::LambdaPointer:
    body = "auto near = [&](long r) { return Ad[{r}]; }; auto* p = &near; Cd[i] = (*p)(i[0]);";
    break;
  case TileMutation::ReferenceWrite: body = "auto& acc = Cd[i]; acc = Ad[i] - acc;"; break;
  case TileMutation::ElementAddress: body = "const long* p = &Ad[i]; Cd[i] = *p + 1;"; break;
  case TileMutation::CapturedWrite: body += " h = h * 31 + Ad[i];"; break;
  case TileMutation::PlainFieldRead: body = "Cd[i] = Ad[i] + C(" + std::to_string(n - 1) + " - i[0]);"; break;
  case TileMutation::TileIndex: body = "Cd[i] = Ad[i] + s2p::tile_index();"; break;
  case TileMutation::StaticInHelper: body = "Cd[i] = Ad[i] + next_id();"; break;
  case TileMutation::InPlace:
    extra = "  auto Td = s2p::agile(C, map);\n";
    body = "Cd[i] = Td[i] + 1;";
    break;
  default: break;
  }
  out << "S2P_KERNEL S2P_TILES(" << tiles
      << ") void k(s2p::field<1, long>& C, const s2p::field<1, long>& A, long& h) {\n"
      << "  auto map = s2p::resource_map<1>::block(C.extent(), " << tiles << ");\n"
      << "  auto Cd = s2p::agile(C, map);\n  auto Ad = s2p::agile(A, map);\n" << extra
      << "  s2p::forall(" << domain << ", [&](s2p::index<1> i) { " << body << " });\n}\n\n";
  out << "int main() {\n  std::vector<long> c(" << n << ", 1), a(" << n << ");\n"
      << "  for (int x = 0; x < " << n << "; ++x) a[x] = x * x - 3;\n  long h = 0;\n"
      << "  s2p::field<1, long> C(c.data(), {" << n << "});\n"
      << "  const s2p::field<1, long> A(a.data(), {" << n << "});\n  k(C, A, h);\n"
      << "  for (long v : c) std::printf(\"%ld \", v);\n  std::printf(\"%ld\\n\", h);\n}\n";
}

} // namespace

int main(int argc, char** argv) {
  const auto request = s2p::fuzz::parse_batch_request(argc, argv, "s2p-fuzz-accept");
  if (!request || request->last - request->first != 1) {
    if (request)
      std::cerr << "s2p-fuzz-accept writes one program a file: use --kernel K\n";
    return 2;
  }
  Random rng(s2p::fuzz::kernel_seed(request->seed, request->first));
  std::ostringstream program;
  program << "// s2p-fuzz-accept --seed " << request->seed << " --kernel " << request->first
          << "\n";
  if (rng.chance(65))
    warp_kernel(rng, program);
  else
    tile_kernel(rng, program);
  std::ofstream file(request->output);
  file << program.str();
  return file ? 0 : 2;
}
