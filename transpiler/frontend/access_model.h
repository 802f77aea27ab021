// What an intrinsic or a forall body may reach, and what seq2par refuses because it cannot
// see it. The access model: a call reads and writes exactly the declared ranges of its
// s2p::in / out / inout / view arguments, and takes every other argument as a plain value.
// Anything else it could reach (memory behind a pointer or a mutable reference, `*this`,
// global or static variables) is state seq2par cannot order between warps or tiles, so
// these checks name it and the front end refuses the kernel.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>

#include <optional>
#include <string>
#include <vector>

namespace s2p::frontend {

// Why a parameter of type `type` is not a plain value (a pointer, a mutable reference, a
// class holding pointers or references, ...); nullopt if it is one. Arithmetic and enum
// types, and trivially copyable classes without pointers or references, by value or by
// const reference, are plain values.
std::optional<std::string> plain_value_problem(clang::QualType type, const clang::ASTContext& ctx);

// How a variable of type `type` that a forall body captured from the kernel reaches memory
// beyond its own bytes (a reference or pointer, an array of them, a class holding one, such as
// std::vector or std::span); nullopt if it holds only its own bytes. seq2par's own types
// (agile fields, tile views, resource maps, indices) are the distribution itself and never a
// problem here. Tiles read such memory where the kernel called them, neither moved nor ordered
// with the forall's writes: if it is part of a field the kernel writes, the sequential loop
// reads values its earlier iterations wrote and the tiles read the old ones.
std::optional<std::string> host_memory_reach(clang::QualType type);

// State outside the arguments that a function whose body seq2par can see reaches: the
// mutable global, namespace-scope and static variables its body (or a function it calls
// whose body is visible, transitively) names, each once. Functions without a visible body
// are taken at their declaration (the documented assumption: they reach only their
// arguments), and so are functions marked S2P_HARMLESS_STATE.
struct HiddenState {
  // A variable, or nullptr for a call of s2p::tile_index() / s2p::chip_index(): what such
  // a function computes depends on the tile running it; or for a call that UnseenCalls::Refused
  // refuses.
  const clang::VarDecl* variable;
  clang::SourceLocation where; // the first reference
  std::string what;            // "uses global variable 'counter'", ...
  std::string why = {};        // for a refused call: why it cannot run on the tiles, and the fix
  // thread_local: one copy per host thread, and which thread runs a warp or a tile differs
  // between backends and launches, so even calls on one warp do not keep it as the
  // sequential program does.
  bool per_thread = false;
};
std::vector<HiddenState> find_hidden_state(const clang::FunctionDecl& function);
// What a statement reaches, for a forall body (Refused) or a call's argument (Assumed). A forall
// body runs on every tile at once, in no order the sequential loop has, so a forall cannot take
// the assumption above: with Refused, a call of a user function whose body is not visible (not
// marked S2P_HARMLESS_STATE or S2P_INTRINSIC) is hidden state, and so is a call of a standard
// library function that keeps state between calls (rand, strtok) or writes a stream in call
// order (printf, puts).
enum class UnseenCalls { Assumed, Refused };
std::vector<HiddenState> find_hidden_state(const clang::Stmt& body,
                                           UnseenCalls unseen = UnseenCalls::Assumed);

} // namespace s2p::frontend
