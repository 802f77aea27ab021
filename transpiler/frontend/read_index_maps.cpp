// The index maps of a forall's reads (TileStep::IndexMap): each coordinate of an index
// `Xd[{...}]` read as the forall's index plus a constant, a window of it (plus a loop variable
// of the body), a loop's range, a constant or a value of the kernel, through the parameters
// of the helpers the body calls.
#include "frontend/ast_queries.h"
#include "frontend/kernel_extractor_impl.h"

#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace s2p::frontend {

// `e` with every helper parameter bound to an argument replaced by that argument, and the
// bindings the result is to be read in (the caller's, or nullptr for the forall body's).
std::pair<const clang::Expr*, const HelperArguments*> resolve(const clang::Expr* e,
                                                              const HelperArguments* through) {
  e = strip(e);
  while (through) {
    const auto* parm = llvm::dyn_cast_or_null<clang::ParmVarDecl>(referenced_decl(e));
    const auto bound = parm ? through->arguments.find(parm) : through->arguments.end();
    if (bound == through->arguments.end())
      break;
    e = strip(bound->second);
    through = through->caller;
  }
  return {e, through};
}

namespace {


// The coordinates of an index written as a braced list or an s2p::index construction.
std::vector<const clang::Expr*> index_coordinates(const clang::Expr* e) {
  std::vector<const clang::Expr*> coords;
  if (const auto* std_list = llvm::dyn_cast<clang::CXXStdInitializerListExpr>(e))
    e = strip(std_list->getSubExpr());
  if (const auto* list = llvm::dyn_cast<clang::InitListExpr>(e))
    coords.assign(list->inits().begin(), list->inits().end());
  else if (const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(e)) {
    for (const clang::Expr* arg : construct->arguments()) {
      const clang::Expr* inner = strip(arg);
      if (const auto* list = llvm::dyn_cast<clang::InitListExpr>(inner))
        coords.assign(list->inits().begin(), list->inits().end());
      else if (const auto* std_list = llvm::dyn_cast<clang::CXXStdInitializerListExpr>(inner)) {
        if (const auto* l = llvm::dyn_cast<clang::InitListExpr>(strip(std_list->getSubExpr())))
          coords.assign(l->inits().begin(), l->inits().end());
      }
    }
  }
  return coords;
}

} // namespace

// `i`, or an s2p::index built from one coordinate per axis of the field (index_coordinate's
// forms: {i[1], i[0]}, {i[0] + 1, i[1]}, {i[0], k}, {0, i[1]}); inside a helper, `i` and its
// coordinates may arrive through the helper's parameters.
std::optional<ir::TileStep::IndexMap>
KernelExtractor::Impl::index_map(const clang::Expr* index, const clang::ParmVarDecl* i,
                                 int forall_rank, int field_rank, const LoopRanges* loops,
                                 const HelperArguments* through) {
  ir::TileStep::IndexMap map;
  const auto [e, level] = resolve(index, through);
  if (referenced_decl(e) == i) {
    if (forall_rank != field_rank)
      return std::nullopt;
    return ir::TileStep::IndexMap::own(forall_rank);
  }
  const std::vector<const clang::Expr*> coords = index_coordinates(e);
  if (static_cast<int>(coords.size()) != field_rank)
    return std::nullopt;
  for (const clang::Expr* c : coords)
    if (!index_coordinate(c, level, i, loops, forall_rank, field_rank, 0, map))
      return std::nullopt;
  return map;
}

namespace {

// Coordinate map.axis.size() (the next one) as a range: [first, first + span), or the whole
// axis (span kWholeAxis).
void add_range(ir::TileStep::IndexMap& map, int field_rank, std::int64_t first, std::int64_t span) {
  map.span.resize(static_cast<std::size_t>(field_rank), 0);
  map.span[map.axis.size()] = span;
  map.axis.push_back(ir::TileStep::kLoopAxis);
  map.offset.push_back(first);
}

// Of several bounds a range lies inside (a clamp's arguments, a conjunction's conjuncts), the
// one to read it by: the first the relations and the launch can read, or the index's, which
// follows each iteration.
void keep_preferred(std::optional<ir::TileStep::RangeBound>& chosen,
                    std::optional<ir::TileStep::RangeBound> bound) {
  if (bound && (!chosen || (bound->index && !chosen->index)))
    chosen = std::move(bound);
}

} // namespace

void add_sum_terms(const clang::Expr* e, const HelperArguments* through, int sign,
                   const clang::ASTContext& ctx, SumTerms& out) {
  const auto [base, level] = resolve(e, through);
  clang::Expr::EvalResult value;
  if (!base->isValueDependent() && base->EvaluateAsInt(value, ctx)) {
    out.constant += sign * value.Val.getInt().getExtValue();
    return;
  }
  if (const auto* sum = llvm::dyn_cast<clang::BinaryOperator>(base);
      sum && (sum->getOpcode() == clang::BO_Add || sum->getOpcode() == clang::BO_Sub)) {
    add_sum_terms(sum->getLHS(), level, sign, ctx, out);
    add_sum_terms(sum->getRHS(), level, sum->getOpcode() == clang::BO_Add ? sign : -sign, ctx, out);
    return;
  }
  if (const auto* unary = llvm::dyn_cast<clang::UnaryOperator>(base);
      unary && (unary->getOpcode() == clang::UO_Minus || unary->getOpcode() == clang::UO_Plus)) {
    add_sum_terms(unary->getSubExpr(), level, unary->getOpcode() == clang::UO_Minus ? -sign : sign,
                  ctx, out);
    return;
  }
  out.terms.push_back({base, level, sign});
}

// i[k] for the forall's index `i` (read through helpers): k, else nothing.
std::optional<int> KernelExtractor::Impl::index_axis(const clang::Expr* base,
                                                     const HelperArguments* level,
                                                     const clang::ParmVarDecl* i,
                                                     int forall_rank) const {
  const auto* subscript = llvm::dyn_cast<clang::CXXOperatorCallExpr>(base);
  clang::Expr::EvalResult axis;
  if (!subscript || subscript->getOperator() != clang::OO_Subscript ||
      referenced_decl(resolve(subscript->getArg(0), level).first) != i ||
      !resolve(subscript->getArg(1), level).first->EvaluateAsInt(axis, ctx_))
    return std::nullopt;
  const std::int64_t k = axis.Val.getInt().getExtValue();
  if (k < 0 || k >= forall_rank)
    return std::nullopt;
  return static_cast<int>(k);
}

std::optional<std::pair<int, std::int64_t>>
KernelExtractor::Impl::scaled_index_axis(const clang::Expr* base, const HelperArguments* level,
                                         const clang::ParmVarDecl* i, int forall_rank) const {
  if (const auto k = index_axis(base, level, i, forall_rank))
    return std::make_pair(*k, std::int64_t{1});
  const auto* product = llvm::dyn_cast<clang::BinaryOperator>(base);
  if (!product || product->getOpcode() != clang::BO_Mul)
    return std::nullopt;
  for (const auto& [factor, operand] : {std::pair{product->getLHS(), product->getRHS()},
                                        std::pair{product->getRHS(), product->getLHS()}}) {
    // A factor beyond 32 bits would overflow the planner's coordinates (scale * index).
    const auto scale = integer_constant(resolve(factor, level).first, ctx_, 32);
    if (!scale || *scale == 0)
      continue;
    const auto [index, index_level] = resolve(operand, level);
    if (const auto k = index_axis(index, index_level, i, forall_rank))
      return std::make_pair(*k, *scale);
  }
  return std::nullopt;
}

namespace {

// Coordinate d of `map` scales the index by `factor` (nothing is recorded for 1).
void set_scale(ir::TileStep::IndexMap& map, int field_rank, std::size_t d, std::int64_t factor) {
  if (factor == 1)
    return;
  map.scale.resize(static_cast<std::size_t>(field_rank), 1);
  map.scale[d] = factor;
}

} // namespace

// c = a sum of one coordinate of the index, times a constant, with either sign, and constants:
// `28 - i[1]`, `-i[0] + 5`, `1 - 2 * i[0]` (a reflection, with a negative scale), as well as
// the forms scaled_index_axis and constant_term read one at a time; plus, at most once, a value
// of the kernel, added or subtracted (`i[0] + lag`, `i[0] - lag`, `n - 1 - i[0]`), which the
// launch adds (IndexMap::shift).
bool KernelExtractor::Impl::signed_index_coordinate(const clang::Expr* c,
                                                    const HelperArguments* through,
                                                    const clang::ParmVarDecl* i,
                                                    const LoopRanges* loops, int forall_rank,
                                                    int field_rank, std::int64_t offset,
                                                    ir::TileStep::IndexMap& map) {
  SumTerms sum;
  add_sum_terms(c, through, 1, ctx_, sum);
  std::optional<std::pair<int, std::int64_t>> axis; // the index's axis and its factor
  std::optional<ir::TileStep::IndexMap::Shift> shift;
  for (const SumTerms::Term& term : sum.terms) {
    if (const auto k = scaled_index_axis(term.leaf, term.level, i, forall_rank); k && !axis) {
      axis = std::make_pair(k->first, term.sign * k->second);
      continue;
    }
    // A value of the kernel, added or subtracted, at most once.
    if (shift || helper_scope(term.level) || !kernel_value(*term.leaf, *i, loops))
      return false;
    auto value = kernel_symbol(*term.leaf);
    if (!value)
      return false;
    shift = ir::TileStep::IndexMap::Shift{std::move(*value), term.sign < 0};
  }
  if (!axis)
    return false;
  const std::size_t d = map.axis.size();
  set_scale(map, field_rank, d, axis->second);
  map.axis.push_back(axis->first);
  map.offset.push_back(offset + sum.constant);
  if (shift) {
    map.shift.resize(static_cast<std::size_t>(field_rank));
    map.shift[d] = std::move(shift);
  }
  return true;
}

// c = i[k] + v + constants or i[k] - v + constants, v a counted loop variable of the body
// over [a, b): the window i[k] + [offset, offset + b - a) of the index (TileStep::IndexMap's
// span on an index axis), a convolution's or a stencil's loop over its offsets. A loop whose
// bounds only the running kernel knows reads the whole axis.
bool KernelExtractor::Impl::window_coordinate(const clang::Expr* c, const HelperArguments* through,
                                              const clang::ParmVarDecl* i, const LoopRanges* loops,
                                              int forall_rank, int field_rank, std::int64_t offset,
                                              ir::TileStep::IndexMap& map) const {
  SumTerms sum;
  add_sum_terms(c, through, 1, ctx_, sum);
  std::optional<int> axis;
  const LoopRange* range = nullptr;
  int loop_sign = 1;
  std::int64_t factor = 1;
  for (const SumTerms::Term& term : sum.terms) {
    if (const auto k = scaled_index_axis(term.leaf, term.level, i, forall_rank);
        k && !axis && term.sign > 0) {
      axis = k->first;
      factor = k->second;
      continue;
    }
    const auto* var = llvm::dyn_cast_or_null<clang::VarDecl>(referenced_decl(term.leaf));
    if (range || !loops || !var || !loops->count(var))
      return false;
    range = &loops->at(var);
    loop_sign = term.sign;
  }
  if (!axis || !range)
    return false;
  if (!range->constant) {
    if (factor != 1) // a strided window over kernel values' range: not modelled
      return false;
    const std::size_t d = map.axis.size();
    add_range(map, field_rank, 0, ir::TileStep::kWholeAxis);
    if (!helper_scope(through))
      add_window_range(*range, *axis, offset + sum.constant, loop_sign < 0,
                       {*i, forall_rank, loops}, field_rank, d, map);
    return true;
  }
  const auto [first, last] = *range->constant; // [first, last)
  map.span.resize(static_cast<std::size_t>(field_rank), 0);
  map.span[map.axis.size()] = last - first; // loop_range keeps only loops that run
  set_scale(map, field_rank, map.axis.size(), factor);
  map.axis.push_back(*axis);
  map.offset.push_back(offset + sum.constant + (loop_sign > 0 ? first : 1 - last));
  return true;
}

// c = i[k] + constant; a loop variable of the body + constant (every element of its range is
// read: the whole axis when the loop's bounds are not constants); a constant (a fixed
// coordinate); or any other value of the kernel (the whole axis). Each term may be reached
// through a helper's parameters.
bool KernelExtractor::Impl::index_coordinate(const clang::Expr* c, const HelperArguments* through,
                                             const clang::ParmVarDecl* i, const LoopRanges* loops,
                                             int forall_rank, int field_rank, std::int64_t offset,
                                             ir::TileStep::IndexMap& map) {
  const auto [base, level] = resolve(c, through);
  clang::Expr::EvalResult value;
  if (!base->isValueDependent() && base->EvaluateAsInt(value, ctx_)) {
    add_range(map, field_rank, value.Val.getInt().getExtValue() + offset, 1);
    return true;
  }
  if (const auto term = constant_term(*base, ctx_, [&, level = level](const clang::Expr* x) {
        return resolve(x, level).first;
      }))
    return index_coordinate(term->base, level, i, loops, forall_rank, field_rank,
                            offset + term->constant, map);
  if (const auto* var = llvm::dyn_cast_or_null<clang::VarDecl>(referenced_decl(base));
      loops && var && loops->count(var)) {
    const LoopRange& range = loops->at(var);
    if (const auto& constant = range.constant)
      add_range(map, field_rank, constant->first + offset, constant->second - constant->first);
    else if (helper_scope(level)) // a helper's loop: its bounds may name the helper's parameters
      add_range(map, field_rank, 0, ir::TileStep::kWholeAxis);
    else
      add_kernel_range(range, offset, {*i, forall_rank, loops}, field_rank, map);
    return true;
  }
  if (const auto k = scaled_index_axis(base, level, i, forall_rank)) {
    set_scale(map, field_rank, map.axis.size(), k->second);
    map.axis.push_back(k->first);
    map.offset.push_back(offset);
    return true;
  }
  if (signed_index_coordinate(base, level, i, loops, forall_rank, field_rank, offset, map) ||
      window_coordinate(base, level, i, loops, forall_rank, field_rank, offset, map))
    return true;
  if (helper_scope(level) || !kernel_value(*base, *i, loops))
    return false;
  // The whole axis for the stages that plan footprints without the kernel's values; the
  // relations and the launch take the value itself when it is a symbol.
  const std::size_t d = map.axis.size();
  add_range(map, field_rank, 0, ir::TileStep::kWholeAxis);
  if (auto symbol = kernel_symbol(*base)) {
    symbol->offset += offset;
    map.symbol.resize(static_cast<std::size_t>(field_rank));
    map.symbol[d] = std::move(symbol);
  }
  return true;
}

// A loop coordinate (plus `offset`) whose bounds the launch knows: the whole axis for the stages
// that plan without the kernel's values, and the range itself for the relations and the launch
// when each bound is a constant, a value of the kernel (C++ the launch can evaluate: no local
// of the body, no call but a view's extent()) or a coordinate of the index plus a constant (a
// triangle). A loop of a helper keeps the whole axis: its bounds may name the helper's
// parameters.
void KernelExtractor::Impl::add_kernel_range(const LoopRange& loop, std::int64_t offset,
                                             const BoundScope& scope, int field_rank,
                                             ir::TileStep::IndexMap& map) const {
  const std::size_t d = map.axis.size();
  add_range(map, field_rank, 0, ir::TileStep::kWholeAxis);
  const auto lower = range_bound(loop.first, offset, scope, false);
  const auto upper = end_bound(loop, offset, scope);
  if (!lower || !upper)
    return;
  map.range.resize(static_cast<std::size_t>(field_rank));
  map.range[d] = ir::TileStep::KernelRange{*lower, *upper};
}

// A window i[axis] + shift + k over a body loop k in [lower, upper) whose bounds the launch knows
// (k < taps): coordinate d as the range [i[axis] + shift + lower, i[axis] + shift + upper), or,
// `subtracted` (i[axis] + shift - k), [i[axis] + shift + 1 - upper, i[axis] + shift + 1 - lower);
// the whole axis for the stages that plan without the kernel's values (add_range has put it).
// A bound that is itself the index's keeps the whole axis.
void KernelExtractor::Impl::add_window_range(const LoopRange& loop, int axis, std::int64_t shift,
                                             bool subtracted, const BoundScope& scope,
                                             int field_rank, std::size_t d,
                                             ir::TileStep::IndexMap& map) const {
  auto lower = range_bound(loop.first, 0, scope, false);
  auto upper = end_bound(loop, 0, scope);
  if (!lower || !upper || lower->index || upper->index)
    return;
  if (subtracted) // the loop's last value gives the window's first element
    std::swap(lower, upper);
  const std::int64_t base = subtracted ? shift + 1 : shift;
  for (ir::TileStep::RangeBound* bound : {&*lower, &*upper}) {
    const std::int64_t constant = bound->constant.value_or(0);
    bound->index = ir::TileStep::IndexBound::IndexTerm{axis, base + (subtracted ? -constant : constant)};
    bound->subtracted = subtracted && !bound->constant;
    if (bound->constant) { // folded into the index's offset
      bound->constant.reset();
      bound->value.clear();
    }
  }
  map.range.resize(static_cast<std::size_t>(field_rank));
  map.range[d] = ir::TileStep::KernelRange{*lower, *upper};
}

// `e` + add as a bound of a body loop's range (KernelRange), if the launch can evaluate it or
// it is a coordinate of the index plus a constant.
std::optional<ir::TileStep::RangeBound>
KernelExtractor::Impl::range_bound(const clang::Expr* e, std::int64_t add, const BoundScope& scope,
                                   bool upper, int depth) const {
  std::optional<ir::TileStep::RangeBound> out;
  if (!e)
    return out;
  clang::Expr::EvalResult value;
  if (!e->isValueDependent() && e->EvaluateAsInt(value, ctx_)) {
    const std::int64_t constant = value.Val.getInt().getExtValue() + add;
    out = ir::TileStep::RangeBound{std::to_string(constant), constant};
    return out;
  }
  if (!kernel_value(*strip(e), scope.i, nullptr) || calls_beyond_extent(*e)) {
    if (auto index = index_bound(e, add, scope))
      return index;
    if (auto clamped = clamped_bound(e, add, scope, upper, depth))
      return clamped;
    if (auto local = body_constant_bound(e, add, scope, upper, depth))
      return local;
    return outer_loop_bound(e, add, scope, upper, depth);
  }
  const std::string written = "(" + text(e->getSourceRange()) + ")";
  out = ir::TileStep::RangeBound{add == 0 ? written : written + " + " + std::to_string(add)};
  if (auto symbol = kernel_symbol(*e)) {
    symbol->offset += add;
    out->symbol = std::move(symbol);
  } else if (auto extent = field_extent(*e, ctx_)) {
    extent->offset += add;
    out->extent = std::move(extent);
  }
  return out;
}

// An outer loop's variable j over [first, end) bounds `k < j + c` by its last value
// (k < end - 1 + c) and `k = j + c` by its first (k >= first + c): every range the inner loop
// runs lies inside, a triangle's union. Its own bounds are read the same way (a few levels).
std::optional<ir::TileStep::RangeBound>
KernelExtractor::Impl::outer_loop_bound(const clang::Expr* e, std::int64_t add,
                                        const BoundScope& scope, bool upper, int depth) const {
  constexpr int kDeepestLoop = 3;
  const ConstantTerm term = constant_terms(*e, ctx_);
  const std::int64_t offset = add + term.constant;
  const auto* var = llvm::dyn_cast_or_null<clang::VarDecl>(referenced_decl(term.base));
  if (!scope.loops || depth >= kDeepestLoop || !var || !scope.loops->count(var))
    return std::nullopt;
  const LoopRange& outer = scope.loops->at(var);
  if (const auto& constant = outer.constant) {
    const std::int64_t end = (upper ? constant->second - 1 : constant->first) + offset;
    return ir::TileStep::RangeBound{std::to_string(end), end};
  }
  return upper ? end_bound(outer, offset - 1, scope, depth + 1)
               : range_bound(outer.first, offset, scope, false, depth + 1);
}

std::optional<ir::TileStep::RangeBound>
KernelExtractor::Impl::index_bound(const clang::Expr* e, std::int64_t add,
                                   const BoundScope& scope) const {
  SumTerms sum;
  add_sum_terms(e, nullptr, 1, ctx_, sum);
  std::optional<int> axis;
  const SumTerms::Term* value = nullptr;
  for (const SumTerms::Term& term : sum.terms) {
    if (const auto k = index_axis(term.leaf, nullptr, &scope.i, scope.forall_rank);
        k && !axis && term.sign > 0) {
      axis = k;
      continue;
    }
    if (value || !kernel_value(*strip(term.leaf), scope.i, nullptr) ||
        calls_beyond_extent(*term.leaf))
      return std::nullopt;
    value = &term;
  }
  if (!axis)
    return std::nullopt;
  ir::TileStep::RangeBound out;
  out.index = ir::TileStep::IndexBound::IndexTerm{*axis, sum.constant + add};
  if (!value)
    return out;
  // The kernel's value the launch adds to (or subtracts from) the index's coordinate.
  out.value = "(" + text(value->leaf->getSourceRange()) + ")";
  out.subtracted = value->sign < 0;
  if (auto symbol = kernel_symbol(*value->leaf))
    out.symbol = std::move(symbol);
  else if (auto extent = field_extent(*value->leaf, ctx_))
    out.extent = std::move(extent);
  return out;
}

std::optional<ir::TileStep::RangeBound>
KernelExtractor::Impl::end_bound(const LoopRange& loop, std::int64_t add, const BoundScope& scope,
                                 int depth) const {
  if (loop.ends.empty())
    return range_bound(loop.end, add + (loop.inclusive ? 1 : 0), scope, true, depth);
  std::optional<ir::TileStep::RangeBound> chosen;
  for (const auto& [end, inclusive] : loop.ends)
    keep_preferred(chosen, range_bound(end, add + (inclusive ? 1 : 0), scope, true, depth));
  return chosen;
}

std::optional<ir::TileStep::RangeBound>
KernelExtractor::Impl::body_constant_bound(const clang::Expr* e, std::int64_t add,
                                           const BoundScope& scope, bool upper, int depth) const {
  constexpr int kDeepestLocal = 4;
  const ConstantTerm term = constant_terms(*e, ctx_);
  const auto* var = llvm::dyn_cast_or_null<clang::VarDecl>(referenced_decl(term.base));
  if (depth >= kDeepestLocal || !var || !var->isLocalVarDecl() ||
      !var->getType().isConstQualified() || !var->getType()->isIntegerType() || !var->getInit())
    return std::nullopt;
  return range_bound(var->getInit(), add + term.constant, scope, upper, depth + 1);
}

std::optional<ir::TileStep::RangeBound>
KernelExtractor::Impl::clamped_bound(const clang::Expr* e, std::int64_t add,
                                     const BoundScope& scope, bool upper, int depth) const {
  const clang::CallExpr* call = min_max_call(*e, !upper);
  if (!call)
    return std::nullopt;
  std::optional<ir::TileStep::RangeBound> chosen;
  for (const clang::Expr* arm : call->arguments())
    keep_preferred(chosen, range_bound(arm, add, scope, upper, depth + 1));
  return chosen;
}

bool KernelExtractor::Impl::kernel_value(const clang::Expr& e, const clang::ParmVarDecl& i,
                                         const LoopRanges* loops) const {
  if (!e.getType()->isIntegerType())
    return false;
  struct Names : clang::RecursiveASTVisitor<Names> {
    const clang::DeclContext* body = nullptr;
    const clang::ParmVarDecl* index = nullptr;
    const LoopRanges* loops = nullptr;
    bool ok = true;
    bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
      const auto* var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      if (!var)
        return true; // functions, enumerators
      // A local of the body, or of a lambda inside it (whose parameter may share a kernel
      // variable's name: the launch would read that variable instead).
      if (var == index || (body->Encloses(var->getDeclContext()) && !(loops && loops->count(var))))
        ok = false;
      return ok;
    }
  } names{{}, i.getDeclContext(), &i, loops};
  names.TraverseStmt(const_cast<clang::Expr*>(&e));
  return names.ok;
}

} // namespace s2p::frontend
