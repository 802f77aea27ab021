// Private to the front end: the state and steps of one kernel's extraction, shared by
// kernel_extractor.cpp and the extract_*.cpp files (one construct each, both kinds of kernel).
#pragma once

#include "frontend/access_model.h"
#include "frontend/ast_queries.h"
#include "frontend/kernel_extractor.h"

#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace s2p::frontend {

struct MapDeclaration; // a resource map's protocol call and refinements (extract_resource_maps.cpp)

// What a name in the kernel (or an inlined helper) stands for.
struct Binding {
  enum class Kind {
    Pool,   // an s2p::pool: index into Kernel::pools
    Tensor, // a pool tensor or tensor_ref: index into Kernel::tensors
    Int,    // an integer: `value` in terms of loop variables and kernel symbols
    Text,   // a helper parameter: replaced by its argument's text
    Opaque, // a kernel-scope variable of another type, used verbatim
    Refused, // a declaration refused with an error: its uses report nothing more
  };
  Kind kind = Kind::Opaque;
  int index = -1;
  ir::Expr value;
  std::string text;
  bool kernel_scope = false; // visible, by its own name, where the generated code runs
};

// A visible helper a forall body calls with an agile field, read as if inlined: its
// parameters bound to the arguments of the call (in the caller's own bindings), so that an
// index the helper builds from a parameter (`f[{k - 1}]` with k = i[0]) is an index map of
// the forall. A parameter the helper assigns to is not bound: its value is no longer the
// argument. `fields` are the parameters that stand for an agile field.
struct HelperArguments {
  std::map<const clang::ParmVarDecl*, const clang::Expr*> arguments;
  std::map<const clang::ValueDecl*, const clang::ValueDecl*> fields;
  const HelperArguments* caller = nullptr;
  const clang::FunctionDecl* helper = nullptr;
  // A lambda the forall body defines, read at its call: it also reaches the kernel's agile
  // fields through its captures.
  bool body_lambda = false;
};

// Whether names read at `level` are a helper's own (its parameters and locals), not the
// kernel's: a lambda the body defines names the kernel's variables through its captures, as
// the body does.
inline bool helper_scope(const HelperArguments* level) {
  return level && !level->body_lambda;
}

// `e` with every helper parameter bound to an argument replaced by that argument, and the
// bindings the result is to be read in (the caller's, or nullptr for the forall body's).
std::pair<const clang::Expr*, const HelperArguments*> resolve(const clang::Expr* e,
                                                              const HelperArguments* through);

// How the body uses an element access (Xd[...], a block view's a(r, q)) beyond reading its value
// or assigning to it directly: bound to a reference it may write through (a `double&` local, a
// non-const reference parameter, a returned `double&`, a non-const member function, a member
// assigned, `++`), which writes it where the reference is used; or its address taken.
enum class ElementUse { Value, Reference, Address };
ElementUse element_use(const clang::Expr& access, clang::ASTContext& ctx);

// The terms of a sum or difference (a + b - c ..., unary minus too) that index coordinates,
// windows and guards are read from: each leaf with its sign and the level of helper it was
// reached at, and the constants summed. Leaves are read through helper parameters.
struct SumTerms {
  struct Term {
    const clang::Expr* leaf = nullptr;
    const HelperArguments* level = nullptr;
    int sign = 1;
  };
  std::vector<Term> terms;
  std::int64_t constant = 0;
};
void add_sum_terms(const clang::Expr* e, const HelperArguments* through, int sign,
                   const clang::ASTContext& ctx, SumTerms& out);

// Whether evaluating `e` calls anything but a view's extent() (and its subscript) or std::min
// and std::max: the launch evaluates a guard's or a loop bound's value once more, which must
// not do anything the body's did not.
bool calls_beyond_extent(const clang::Expr& e);
// `e` (parentheses and casts aside) as a call of std::min or std::max of two values: the call,
// or null.
const clang::CallExpr* min_max_call(const clang::Expr& e, bool max);

// `X.extent()[d]` plus a constant, for a field or an agile view X and a constant d: X's extent
// on axis d.
std::optional<ir::TileStep::FieldExtent> field_extent(const clang::Expr& e,
                                                      const clang::ASTContext& ctx);

// A counted loop of a forall body: its range [first, end) when its bounds are constants.
// Otherwise an access covers the whole axis for the stages that plan without the kernel's
// values; `first` and `end` are then the expressions of its bounds when the body leaves the
// variable to the header and one bound is all its condition has (`end` exclusive, or inclusive
// for `k <= end`), for the relations and the launch to read as kernel values if they are.
struct LoopRange {
  std::optional<std::pair<std::int64_t, std::int64_t>> constant{};
  const clang::Expr* first = nullptr;
  const clang::Expr* end = nullptr;
  bool inclusive = false;
  // A condition that is a conjunction (`k < i[0] && k < n`): every conjunct that ends the
  // range, each with whether it is inclusive (`end` is unset); the range lies inside each.
  std::vector<std::pair<const clang::Expr*, bool>> ends{};
};

class KernelExtractor::Impl {
public:
  Impl(clang::ASTContext& ctx, WarpPragmaTable& pragmas, KernelCalls& calls,
       const std::string& display_file, bool auto_warps)
      : ctx_(ctx), sm_(ctx.getSourceManager()), pragmas_(pragmas), calls_(calls),
        display_file_(display_file), auto_warps_(auto_warps) {}

  std::optional<ir::Kernel> run(const clang::FunctionDecl& kernel);

private:
  // S2P_TILES kernels (multi-tile): collectives and foralls over agile fields.
  void refuse_data_declaration_after_step(const clang::DeclStmt& decl,
                                          const ir::TileStep& first_step);
  std::optional<ir::Kernel> run_multi_tile(const clang::FunctionDecl& kernel,
                                           const clang::CompoundStmt& body);
  std::optional<ir::TileStep> multi_tile_call(const clang::CallExpr& call);
  void add_step_statement(const clang::Stmt& stmt, ir::MultiTile& multi);
  void add_step_loop(const clang::ForStmt& loop, ir::MultiTile& multi);
  std::optional<ir::TileStep> forall_step(const clang::CallExpr& call);
  // The global view (X[m(i)]) and the local-global view (Xt(m(b))), each with its accesses.
  struct ElementAccess;
  struct ElementAccessFinder;
  struct TileAccess;
  struct TileAccessFinder;
  std::optional<ir::TileStep> global_forall_step(const clang::CallExpr& call,
                                                 const clang::LambdaExpr& lambda);
  bool record_global_reads(ir::TileStep& step, const std::vector<ElementAccess>& accesses,
                           const clang::CallExpr& call);
  // A forall body that writes several agile fields: the one-output rules for each of them
  // (own index, one map and rank, not another's data) and its top-level statements.
  bool check_further_outputs(const ir::TileStep& step,
                             const std::vector<const clang::ValueDecl*>& outputs,
                             const std::vector<ElementAccess>& accesses);
  void record_statements(ir::TileStep& step, const clang::LambdaExpr& lambda);
  bool domain_is_output_extent(const ir::TileStep& step, const clang::Expr& extent);
  // A forall step `k` of `multi` that reads its output at other indices: a located error when
  // the access relations find an iteration reading what another one writes.
  void check_output_reads(const ir::MultiTile& multi, std::size_t k);
  bool record_tile_reads(ir::TileStep& step, const std::vector<TileAccess>& accesses,
                         const clang::ValueDecl& output, const clang::CallExpr& call);
  std::optional<ir::TileStep> tile_forall_step(const clang::CallExpr& call,
                                               const clang::LambdaExpr& lambda,
                                               const clang::ValueDecl& output);
  bool check_forall_body(const clang::LambdaExpr& lambda, bool local_global);
  // Each counted loop variable of a forall body (for (T k = a; k < b; ++k)): an access may use
  // one as a coordinate (Ad[{i[0], k}], At({b[0], k})).
  using LoopRanges = std::map<const clang::VarDecl*, LoopRange>;
  LoopRanges loop_ranges(const clang::Stmt& body) const;
  // An index of a rank-`field_rank` field in a forall of rank `forall_rank`: nullopt when a
  // coordinate is none of the forms index_coordinate reads.
  std::optional<ir::TileStep::IndexMap> index_map(const clang::Expr* index,
                                                  const clang::ParmVarDecl* i, int forall_rank,
                                                  int field_rank, const LoopRanges* loops = nullptr,
                                                  const HelperArguments* through = nullptr);
  // One coordinate of an index map, read through helpers: i[k] + c, a loop variable + c (the
  // loop's range), a constant, or a value of the kernel (the whole axis).
  bool index_coordinate(const clang::Expr* c, const HelperArguments* through,
                        const clang::ParmVarDecl* i, const LoopRanges* loops, int forall_rank,
                        int field_rank, std::int64_t offset, ir::TileStep::IndexMap& map);
  std::optional<int> index_axis(const clang::Expr* base, const HelperArguments* level,
                                const clang::ParmVarDecl* i, int forall_rank) const;
  // i[k] or an integer constant times it (`2 * i[0]`, `i[1] * 3`): k and the factor.
  std::optional<std::pair<int, std::int64_t>> scaled_index_axis(const clang::Expr* base,
                                                                const HelperArguments* level,
                                                                const clang::ParmVarDecl* i,
                                                                int forall_rank) const;
  // One coordinate of the index times a constant, with either sign, plus constants
  // (`28 - i[1]`: a reflection) and at most one value of the kernel (`i[0] + shift`).
  bool signed_index_coordinate(const clang::Expr* c, const HelperArguments* through,
                               const clang::ParmVarDecl* i, const LoopRanges* loops,
                               int forall_rank, int field_rank, std::int64_t offset,
                               ir::TileStep::IndexMap& map);
  // i[k] plus or minus a loop variable of the body, plus constants: a window of the index.
  bool window_coordinate(const clang::Expr* c, const HelperArguments* through,
                         const clang::ParmVarDecl* i, const LoopRanges* loops, int forall_rank,
                         int field_rank, std::int64_t offset, ir::TileStep::IndexMap& map) const;
  // The statement around `child` (through a declaration: its DeclStmt).
  const clang::Stmt* parent_statement(const clang::Stmt& child) const;
  // The bounds on the forall's index `i` that the `if`s around `access` (in the forall body
  // `body`, or in the body of a helper or lambda read `through` its call's arguments) put
  // (extract_guards.cpp).
  std::vector<ir::TileStep::IndexBound> guard_of(const clang::Stmt& access,
                                                 const clang::ParmVarDecl& i,
                                                 const clang::Stmt& body,
                                                 const HelperArguments* through = nullptr) const;
  void add_guard_terms(const clang::Expr& condition, bool negate, const clang::ParmVarDecl& i,
                       std::vector<ir::TileStep::IndexBound>& guard,
                       const HelperArguments* through = nullptr) const;
  // A body that is one `if` on an exact box of the index: TileStep::iteration_box.
  void record_iteration_box(ir::TileStep& step, const clang::Stmt& body,
                            const clang::ParmVarDecl& i) const;
  bool exact_box(const clang::Expr& condition, const clang::ParmVarDecl& i,
                 std::vector<ir::TileStep::IndexBound>& box) const;
  // Whether `e` is a value of the kernel: it names neither the forall's index nor a local of
  // the body (other than loop variables) or of a helper.
  bool kernel_value(const clang::Expr& e, const clang::ParmVarDecl& i,
                    const LoopRanges* loops) const;
  // `e` as a kernel value the relations can keep as a symbol: an integer variable of the
  // kernel (a parameter or local) that nothing but its own step loop's header changes, plus a
  // constant. Nothing for any other value.
  std::optional<ir::TileStep::KernelSymbol> kernel_symbol(const clang::Expr& e) const;
  // Where a body loop's bounds are read: the forall's index and rank, the body's loops.
  struct BoundScope {
    const clang::ParmVarDecl& i;
    int forall_rank = 0;
    const LoopRanges* loops = nullptr;
  };
  void add_kernel_range(const LoopRange& loop, std::int64_t offset, const BoundScope& scope,
                        int field_rank, ir::TileStep::IndexMap& map) const;
  // `upper`: the bound ends the range (an outer loop's variable gives its last value).
  std::optional<ir::TileStep::RangeBound> range_bound(const clang::Expr* e, std::int64_t add,
                                                      const BoundScope& scope, bool upper,
                                                      int depth = 0) const;
  // `e` + add as an outer body loop's variable plus a constant (`k < j`): the end of that
  // loop's range that bounds every value it takes.
  std::optional<ir::TileStep::RangeBound> outer_loop_bound(const clang::Expr* e, std::int64_t add,
                                                           const BoundScope& scope, bool upper,
                                                           int depth) const;
  void add_window_range(const LoopRange& loop, int axis, std::int64_t shift, bool subtracted,
                        const BoundScope& scope, int field_rank, std::size_t d,
                        ir::TileStep::IndexMap& map) const;
  // `e` + add as i[k] plus a constant and at most one value of the kernel, added or
  // subtracted (a triangle's bound, `k < i[0]`; a window's, `k <= i[0] + r`), if it is one.
  std::optional<ir::TileStep::RangeBound> index_bound(const clang::Expr* e, std::int64_t add,
                                                      const BoundScope& scope) const;
  // A clamped bound, std::max(a, b) starting a range or std::min(a, b) ending it: the bound of
  // one argument (the range lies inside it), the index's when one is; nothing for the others.
  std::optional<ir::TileStep::RangeBound> clamped_bound(const clang::Expr* e, std::int64_t add,
                                                        const BoundScope& scope, bool upper,
                                                        int depth) const;
  // The bound that ends `loop`'s range, plus `add`: its `end`, or for a conjunction the bound
  // of one conjunct (the index's when one is).
  std::optional<ir::TileStep::RangeBound> end_bound(const LoopRange& loop, std::int64_t add,
                                                    const BoundScope& scope, int depth = 0) const;
  // A const integer local of the body plus a constant (`const long lo = std::max(0L, i[0] - r);`
  // then `k = lo`): the bound its initializer gives, read as above.
  std::optional<ir::TileStep::RangeBound> body_constant_bound(const clang::Expr* e,
                                                              std::int64_t add,
                                                              const BoundScope& scope,
                                                              bool upper, int depth) const;
  // A forall task body split into warps: whether the body is one (it declares a pool or
  // calls an intrinsic), and its extraction as a warp-split kernel of its own.
  bool is_warp_task(const clang::Stmt& body) const;
  std::optional<ir::Kernel> extract_task(const clang::LambdaExpr& lambda, std::size_t step,
                                         const std::string& output);
  std::optional<ir::Kernel> run_task(const clang::FunctionDecl& kernel,
                                     const clang::LambdaExpr& lambda,
                                     const std::map<const clang::ValueDecl*, int>& tile_views,
                                     const std::string& name);
  // A task's tile block as an intrinsic argument: Ct(b), At({b[0], k}) or a variable holding
  // one; the tensor it is a block of, or -1.
  int tile_block_tensor(const clang::Expr* e) const;
  // Ct(b).section(g) passed to an intrinsic or held by a variable (`user`): g reads no data.
  bool section_grid_is_plain(const clang::Expr* e, const clang::NamedDecl& user);
  std::map<const clang::ValueDecl*, int>
      agile_fields_; // agile variables of a multi-tile kernel -> rank
  std::map<const clang::ValueDecl*, int>
      tile_blocks_; // `auto Xt = s2p::tiles(Xd)` variables -> rank
  // Agile and tile-view variables -> the kernel parameter whose data they distribute.
  std::map<std::string, std::string> source_parameter_;
  // Agile variables -> the resource map variable they are dealt by (note_distribution).
  std::map<std::string, std::string> agile_map_;
  // The kernel parameter a view distributes (the view itself if none), and its map ("" if
  // unknown).
  std::string source_of(const std::string& view) const;
  std::string map_of(const std::string& view) const;
  void note_source_parameter(const clang::VarDecl& var);
  // Refuses (and returns false) when `input` distributes the same field as `output`.
  bool same_source(const clang::ValueDecl& input, const clang::ValueDecl& output,
                   clang::SourceLocation where);
  void check_resource_map(const clang::VarDecl& var, ir::MultiTile& multi);
  std::optional<MapDeclaration> read_map_declaration(const clang::VarDecl& var) const;
  // The resource-map rules on the sizes that are constants; reports the first broken one.
  bool check_map_rules(const MapDeclaration& map, const std::string& name, int kernel_tiles);
  bool check_map_blocks(const MapDeclaration& map, const std::string& name);
  bool broken_rule(const clang::Expr* where, const std::string& name, const std::string& what);
  std::optional<ir::MapSpec>
  map_spec(const clang::CallExpr& protocol,
           const std::vector<const clang::CXXMemberCallExpr*>& chain) const;
  // An agile field's or tile view's elements must be of an arithmetic type the runtime moves.
  void check_element_type(const clang::VarDecl& var);
  // `auto Xd = s2p::agile(X, map)` / `auto Xt = s2p::tiles(Xd)`: which field and map.
  void note_distribution(const clang::VarDecl& var, ir::MultiTile& multi);
  bool output_spans_kernel(const ir::TileStep& step, const ir::MultiTile& multi,
                           const clang::CallExpr& call);
  // The extents every call of `kernel` in the translation unit passes (see MultiTile).
  void find_call_extents(const clang::FunctionDecl& kernel, ir::MultiTile& multi);
  std::map<std::string, int> map_tiles_; // resource maps with a constant tile count
  // S2P_SHARED parameters of a multi-tile kernel, and those the forall body being checked
  // reads (check_forall_body sets it; the step takes it).
  std::set<const clang::ValueDecl*> shared_params_;
  std::vector<std::string> body_shared_reads_;
  void note_shared_parameters(const clang::FunctionDecl& kernel, ir::MultiTile& multi);
  void check_shared_uses(const clang::FunctionDecl& kernel, const ir::MultiTile& multi);
  std::size_t next_step_ = 1;            // the number of the step being extracted
  std::string task_output_;              // a task split into warps: its output's tile view
  void apply_move_memory(const clang::FunctionDecl& kernel, ir::MultiTile& multi);
  // --- locations and text ---
  ir::SourceLocation loc(clang::SourceLocation where) const {
    ir::SourceLocation out;
    const clang::SourceLocation file_loc = sm_.getFileLoc(where);
    const clang::PresumedLoc presumed = sm_.getPresumedLoc(file_loc);
    out.file = display_file_;
    if (presumed.isValid()) {
      out.line = presumed.getLine();
      out.column = presumed.getColumn();
    }
    out.opaque = file_loc.getRawEncoding();
    return out;
  }
  // [begin, end) file offsets of a statement's tokens.
  std::optional<std::pair<unsigned, unsigned>> span(clang::SourceRange range) const {
    const clang::SourceLocation begin = sm_.getFileLoc(range.getBegin());
    const clang::SourceLocation last = sm_.getFileLoc(range.getEnd());
    const clang::SourceLocation end =
        clang::Lexer::getLocForEndOfToken(last, 0, sm_, ctx_.getLangOpts());
    if (begin.isInvalid() || end.isInvalid() || sm_.getFileID(begin) != sm_.getFileID(end))
      return std::nullopt;
    const unsigned b = sm_.getFileOffset(begin), e = sm_.getFileOffset(end);
    if (e < b)
      return std::nullopt;
    return std::make_pair(b, e);
  }
  // Whether the token after statement `s` is a `;` its source range leaves out
  // (`for (...) s += x[k]`, `return x`).
  bool followed_by_semicolon(const clang::Stmt& s) const {
    const clang::SourceLocation last = s.getEndLoc();
    if (last.isInvalid() || last.isMacroID())
      return false;
    const auto next = clang::Lexer::findNextToken(last, sm_, ctx_.getLangOpts());
    return next && next->is(clang::tok::semi) && !next->getLocation().isMacroID();
  }
  std::string text(clang::SourceRange range) const {
    auto s = span(range);
    if (!s)
      return "";
    const clang::FileID file = sm_.getFileID(sm_.getFileLoc(range.getBegin()));
    return sm_.getBufferData(file).substr(s->first, s->second - s->first).str();
  }

  void error(clang::SourceLocation where, const std::string& message) {
    // Every diagnostic has a location: one the construct lacks (an implicit expression's) is
    // reported at the kernel.
    if (where.isInvalid() && kernel_decl_)
      where = kernel_decl_->getLocation();
    report_error(ctx_, where, message);
    failed_ = true;
    ++errors_;
  }
  bool refused(const clang::ValueDecl* decl) const {
    const Binding* binding = decl ? lookup(decl) : nullptr;
    return binding && binding->kind == Binding::Kind::Refused;
  }

  // --- scopes ---
  const Binding* lookup(const clang::ValueDecl* decl) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(decl);
      if (found != it->end())
        return &found->second;
    }
    return nullptr;
  }
  void bind(const clang::ValueDecl* decl, Binding binding) {
    scopes_.back()[decl] = std::move(binding);
  }
  bool at_kernel_top() const { return helpers_.empty() && loop_depth_ == 0 && block_depth_ == 0; }
  std::string unique_name(const std::string& wanted) {
    std::string name = wanted;
    for (int n = 2; kernel_names_.contains(name); ++n)
      name = wanted + "_" + std::to_string(n);
    kernel_names_.insert(name);
    return name;
  }
  std::string loop_variable_name(const std::string& wanted) {
    std::string name = wanted;
    for (int n = 2; live_loop_names_.contains(name) || kernel_names_.contains(name); ++n)
      name = wanted + "_" + std::to_string(n);
    return name;
  }

  // --- the walk ---
  void visit_body(const clang::CompoundStmt& body, ir::ScheduleNode& parent, int warp,
                  bool function_body = false);
  void visit_statement(const clang::Stmt* stmt, ir::ScheduleNode& parent, int warp,
                       bool last_in_function);
  void visit_declaration(const clang::DeclStmt& stmt, ir::ScheduleNode& parent);
  void visit_variable(const clang::VarDecl& var, const clang::DeclStmt& stmt, bool& preamble_added);
  void visit_pool(const clang::VarDecl& var, const clang::DeclStmt& stmt, bool& preamble_added);
  void visit_tensor_ref(const clang::VarDecl& var, const clang::DeclStmt& stmt, bool& preamble_added);
  void visit_integer(const clang::VarDecl& var, const clang::DeclStmt& stmt, bool& preamble_added);
  void add_to_preamble(const clang::VarDecl& var, const clang::DeclStmt& stmt, bool& preamble_added);
  std::optional<ir::Tunable> tunable_slot_count(const clang::CXXMemberCallExpr& call);
  void visit_pool_tensor(const clang::VarDecl& var, const clang::DeclStmt& stmt,
                         bool& preamble_added);
  void visit_for(const clang::ForStmt& loop, ir::ScheduleNode& parent, int warp);
  // `if` with a static condition (extract_conditions.cpp).
  void visit_if(const clang::IfStmt& branch, ir::ScheduleNode& parent, int warp);
  ir::ScheduleNode branch_node(const clang::Stmt& body, clang::SourceLocation after, int warp);
  void keep_condition_symbols(const ir::Condition& condition, const ir::SourceLocation& where);
  struct DataReadFinder;
  std::optional<ir::Condition> static_condition(const clang::Expr& cond);
  std::optional<ir::Condition> to_condition(const clang::Expr* e);
  std::optional<ir::Condition> to_comparison(const clang::BinaryOperator& bin,
                                             ir::Condition::Op op);
  struct LoopHeader;
  struct LoopCondition;
  std::optional<LoopHeader> loop_header(const clang::ForStmt& loop);
  std::optional<LoopCondition> loop_condition(const clang::ForStmt& loop, const clang::VarDecl& var,
                                              const ir::IntType& var_type);
  std::optional<std::int64_t> loop_step(const clang::ForStmt& loop, const clang::VarDecl& var);
  void visit_call(const clang::CallExpr& call, ir::ScheduleNode& parent, int warp);
  void visit_intrinsic_call(const clang::CallExpr& call, const clang::FunctionDecl& callee,
                            ir::ScheduleNode& parent, int warp);
  void inline_helper(const clang::CallExpr& call, const clang::FunctionDecl& helper,
                     ir::ScheduleNode& parent, int warp);
  const clang::CompoundStmt* inlinable_body(const clang::CallExpr& call,
                                            const clang::FunctionDecl& helper);
  std::optional<Binding> bind_helper_parameter(const clang::ParmVarDecl& param,
                                               const clang::Expr& arg, const std::string& name);
  int take_pragma(clang::SourceLocation after, clang::SourceLocation before);
  bool is_constant(const clang::Expr& e) const;
  bool intrinsic_state_is_visible(const clang::CallExpr& call, const clang::FunctionDecl& callee,
                                  int warp);
  std::vector<HiddenState> reached_state(const clang::CallExpr& call,
                                         const clang::FunctionDecl& callee);
  void record_shared_state(const clang::CallExpr& call, const clang::FunctionDecl& callee,
                           ir::CallSite& site);
  std::map<const clang::FunctionDecl*, std::vector<HiddenState>> hidden_state_;
  struct StateUser {
    const clang::CallExpr* call;
    const clang::FunctionDecl* callee;
    int warp;
  };
  std::map<const clang::VarDecl*, StateUser> state_users_; // hidden state -> first call reaching it
  void check_body_rules(const clang::Stmt& body);

  // --- expressions ---
  std::optional<ir::Expr> to_ir(const clang::Expr* e, const char* what);
  std::optional<ir::Expr> cast_to_ir(const clang::CastExpr& cast, const char* what);
  // The arithmetic type of a C++ integer type; nullopt for bool and types over 64 bits.
  std::optional<ir::IntType> int_type(clang::QualType type) const;
  std::optional<ir::IntType> int_type_of(const clang::Expr* e, const char* what);
  std::optional<ir::Access> to_access(const clang::Expr* arg, ir::AccessMode mode,
                                      const clang::FunctionDecl& callee, unsigned index);
  void collect_holes(const clang::Expr* e, unsigned call_begin, ir::CallSite& call);
  bool mentions_local_binding(const clang::Expr* e) const;
  // Does unqualified lookup from the kernel's namespace find this namespace-scope name?
  bool visible_from_kernel(const clang::Decl* decl) const {
    const clang::DeclContext* ctx = decl->getDeclContext();
    while (const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(ctx)) {
      if (!ns->isAnonymousNamespace() && !ns->isInline())
        break;
      ctx = ctx->getParent();
    }
    return ctx->Encloses(kernel_decl_->getDeclContext());
  }
  void refuse_reference_parameter(const clang::ParmVarDecl& param);
  bool mentions(const clang::Expr* e, Binding::Kind kind) const;

  clang::ASTContext& ctx_;
  const clang::SourceManager& sm_;
  WarpPragmaTable& pragmas_;
  KernelCalls& calls_;
  const std::string& display_file_;
  const bool auto_warps_; // calls without a warp are left to --auto-warps

  ir::Kernel kernel_;
  const clang::FunctionDecl* kernel_decl_ = nullptr;
  // The relations' name of each variable kernel_symbol gave one (distinct variables that share
  // a name get distinct names).
  mutable std::map<const clang::VarDecl*, std::string> symbol_names_;
  // The last global-view forall's reads of its output at other indices, where each is written
  // (check_output_reads names the one a dependence goes through).
  std::vector<std::pair<ir::TileStep::IndexMap, clang::SourceLocation>> output_read_sites_;
  std::vector<std::unordered_map<const clang::ValueDecl*, Binding>> scopes_;
  std::vector<const clang::FunctionDecl*> helpers_; // inlining stack
  std::set<const clang::FunctionDecl*> checked_helpers_;
  std::set<std::string> kernel_names_;
  std::multiset<std::string> live_loop_names_;
  int loop_depth_ = 0;
  int block_depth_ = 0;
  bool failed_ = false;
  int errors_ = 0; // reported so far: a declaration that added one is refused
};

} // namespace s2p::frontend
