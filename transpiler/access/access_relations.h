#pragma once

// Exact access relations of a forall's body, and the questions the compiler asks of them:
// which elements a block of iterations touches (owner-copy plans, work stealing, mpi
// dealing), whether two distinct index points of one forall conflict (a carried dependence,
// which makes running all points in parallel wrong), and whether fusing two foralls keeps
// every dependence at the same index point (fusion legality).
//
// A statement is a polyhedral one: an integer domain (the forall's index coordinates, then
// the variables of loops inside the body, bounded by affine constraints that may use named
// parameters) and affine accesses under affine guards. The answers are exact (computed with
// isl, the Integer Set Library), not read off a syntactic list of index maps. isl stays behind
// this header: callers see plain structs only.
//
// Errors: a malformed statement (a coefficient for a dimension that does not exist, an index
// block of the wrong rank, accesses of one field with different ranks) is a misuse and throws
// std::invalid_argument; an answer that cannot be given exactly (an unbounded footprint, a
// footprint that needs values for its parameters) throws std::invalid_argument too, naming
// what is missing. A footprint that is exact but no union of boxes is a value (std::nullopt).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace s2p::access {

// sum(coefficients[d] * dimension d) + sum(parameter_coefficients[p] * parameter p) + constant.
// Missing trailing coefficients are zero.
struct AffineExpr {
  std::vector<std::int64_t> coefficients;
  std::vector<std::int64_t> parameter_coefficients;
  std::int64_t constant = 0;

  // dimension d (+ offset), parameter p (+ offset), a constant.
  static AffineExpr variable(std::size_t d, std::int64_t offset = 0);
  static AffineExpr parameter(std::size_t p, std::int64_t offset = 0);
  static AffineExpr value(std::int64_t constant);

  friend bool operator==(const AffineExpr&, const AffineExpr&) = default;
};

AffineExpr operator+(const AffineExpr& a, const AffineExpr& b);
AffineExpr operator-(const AffineExpr& a, const AffineExpr& b);
AffineExpr operator+(const AffineExpr& a, std::int64_t c);
AffineExpr operator-(const AffineExpr& a, std::int64_t c);
AffineExpr operator*(std::int64_t factor, const AffineExpr& a);

// expr >= 0 or expr == 0: a loop bound, the guard of an `if`.
struct Constraint {
  enum class Kind { NonNegative, Zero };
  AffineExpr expr;
  Kind kind = Kind::NonNegative;

  static Constraint non_negative(AffineExpr e) { return {std::move(e), Kind::NonNegative}; }
  static Constraint zero(AffineExpr e) { return {std::move(e), Kind::Zero}; }
  // lower <= e < upper_exclusive, as two constraints.
  static std::vector<Constraint> in_range(const AffineExpr& e, const AffineExpr& lower,
                                          const AffineExpr& upper_exclusive);
};

// The iterations of a statement: dimensions[0, index_rank) are the forall's index
// coordinates, the rest the variables of loops inside the body (sequential within one index
// point, so they are projected out whenever a question is asked per index point). Parameters
// are symbolic integers; every answer holds for all parameter values >= 1 (extents), and for
// every integer value of those also named in `value_parameters` (a kernel's loop variable,
// which may be 0 or below).
struct Domain {
  std::vector<std::string> dimensions;
  std::vector<std::string> parameters;
  std::vector<std::string> value_parameters;
  // How messages name a parameter the user never wrote ("n0": "the forall's extent[0]");
  // a parameter without a label is named as it is.
  std::map<std::string, std::string> parameter_labels;
  std::vector<Constraint> constraints;
  int index_rank = 0;

  // A forall over lower[d] <= i_d < upper_exclusive[d], dimensions named i0, i1, ...
  static Domain box(const std::vector<std::int64_t>& lower,
                    const std::vector<std::int64_t>& upper_exclusive);
  // The same with symbolic bounds over `parameters`.
  static Domain box(const std::vector<AffineExpr>& lower,
                    const std::vector<AffineExpr>& upper_exclusive,
                    std::vector<std::string> parameters);
  // Appends a body loop's variable with lower <= name < upper_exclusive (bounds over the
  // dimensions before it and the parameters).
  Domain& add_loop(std::string name, const AffineExpr& lower, const AffineExpr& upper_exclusive);
};

struct Access {
  enum class Kind { Read, Write };
  std::string field;
  Kind kind = Kind::Read;
  std::vector<AffineExpr> index; // one expression per coordinate of the field
  std::vector<Constraint> guard; // the access happens only where these hold
  std::string where;             // "file:line:col", carried for messages, opaque here

  static Access read(std::string field, std::vector<AffineExpr> index,
                     std::vector<Constraint> guard = {}, std::string where = {});
  static Access write(std::string field, std::vector<AffineExpr> index,
                      std::vector<Constraint> guard = {}, std::string where = {});
};

struct Statement {
  std::string name; // "S0"
  Domain domain;
  std::vector<Access> accesses;
};

// A dependence between two distinct index points. `sink` is the access the message is about
// (at sink_iteration), `source` the access it conflicts with (at source_iteration, a different
// index point); at least one of them writes. In carried_dependence both belong to the same
// statement and source writes; in fusion_conflict sink belongs to the later statement and
// source to the earlier one. The iterations, element and parameter values are one witness,
// the lexicographically smallest (parameters, sink iteration, source iteration).
struct Dependence {
  std::string sink_statement;
  std::string source_statement;
  Access sink;
  Access source;
  std::vector<std::int64_t> sink_iteration; // index coordinates only
  std::vector<std::int64_t> source_iteration;
  std::vector<std::int64_t> element; // an element of the field both touch
  std::map<std::string, std::int64_t> parameters;
  // source_iteration - sink_iteration of the witness; `uniform` when every conflicting pair of
  // these two accesses has this distance, for every parameter value.
  std::vector<std::int64_t> distance;
  bool uniform = false;
  std::string relation; // isl text of all conflicting pairs { sink[...] -> source[...] }
  // "iteration (i0, i1) reads A(i0, i1 - 1), which iteration (i0, i1 - 1) writes" (symbolic
  // when uniform, the witness's values otherwise).
  std::string message;
};

// Iterations running in parallel conflict: is there a pair of distinct index points p != q
// such that p writes an element q reads or writes? The first pair of accesses in statement
// order (sink, then source) that conflicts, or nothing when the forall is parallel.
std::optional<Dependence> carried_dependence(const Statement& statement);

// Fusing `earlier` and `later` (same index rank) into one forall, each index point running
// earlier's body then later's, all points in parallel: does a point of `later` touch an
// element a different point of `earlier` touches, one of them writing? Fusion is legal iff
// nothing is returned (every dependence stays at the same index point). Dependences inside
// one statement are not fusion's concern (see carried_dependence).
std::optional<Dependence> fusion_conflict(const Statement& earlier, const Statement& later);

// A half-open box: lower[d] <= x_d < upper[d]. Empty when some lower[d] >= upper[d].
struct Box {
  std::vector<std::int64_t> lower;
  std::vector<std::int64_t> upper;
  friend bool operator==(const Box&, const Box&) = default;
};
std::int64_t volume(const Box& box);

// Values of the statement's parameters; footprints need one for each parameter.
using ParameterValues = std::map<std::string, std::int64_t>;

// The elements of `field` that the iterations whose index coordinates lie in `index_block`
// read (or write), body loop variables projected out.
// - footprint: their bounding box (lower == upper == 0s when there are none);
// - footprint_boxes: the same set exactly, as disjoint boxes sorted by lower corner, or
//   std::nullopt when it is no union of boxes (a diagonal, a stride);
// - footprint_size: how many elements (exact, also for sets that are no union of boxes).
Box footprint(const Statement& statement, const std::string& field, Access::Kind kind,
              const Box& index_block, const ParameterValues& parameters = {});
std::optional<std::vector<Box>> footprint_boxes(const Statement& statement,
                                                const std::string& field, Access::Kind kind,
                                                const Box& index_block,
                                                const ParameterValues& parameters = {});
std::int64_t footprint_size(const Statement& statement, const std::string& field, Access::Kind kind,
                            const Box& index_block, const ParameterValues& parameters = {});

// Dumps. isl's own text, deterministic for a given statement:
// domain "[N] -> { S0[i0, i1] : 0 <= i0 < N and ... }", one relation per access
// "[N] -> { S0[i0, i1] -> A[i0, -1 + i1] : ... }" (domain and guard included).
struct IslText {
  std::string domain;
  std::vector<std::string> accesses;
};
IslText to_isl_text(const Statement& statement);
std::string to_isl_string(const Statement& statement); // domain, then accesses, one a line
// {"statement", "domain", "accesses": [{"field", "kind": "read"|"write", "relation", "where"}]}
nlohmann::json to_json(const Statement& statement);
// Graphviz: a node per statement and per field; read edges field -> statement, write edges
// statement -> field, labelled with the relation.
std::string to_dot(const std::vector<Statement>& statements);

std::string to_string(Access::Kind kind); // "read", "write"
// "2*i0 - k + N - 1" with the domain's names, for messages.
std::string format_affine(const AffineExpr& expr, const Domain& domain);

} // namespace s2p::access
