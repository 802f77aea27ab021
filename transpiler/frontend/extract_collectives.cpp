// S2P_TILES kernels: their statements (ring collectives over per-tile rows, foralls),
// the field parameters' element types and extents as the calls pass them, S2P_MOVE_MEMORY.
#include "frontend/kernel_extractor_impl.h"
#include "frontend/s2p_types.h"

#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>
#include <functional>
#include <map>

// One-character prefixes of a temporary std::string are chars ('\'' + name, 'i' + bits), not
// string literals: GCC 12 reports a false -Wrestrict or -Wstringop-overflow for "'" + name
// (GCC bug 105651).

namespace s2p::frontend {

namespace {

// The element type T of an s2p::field<N, T> (its first type argument), without qualifiers.
std::optional<clang::QualType> field_element_type(clang::QualType type) {
  type = type.getNonReferenceType().getCanonicalType();
  const auto* spec =
      llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(type->getAsCXXRecordDecl());
  if (!spec)
    return std::nullopt;
  for (const auto& arg : spec->getTemplateArgs().asArray())
    if (arg.getKind() == clang::TemplateArgument::Type)
      return arg.getAsType().getCanonicalType().getUnqualifiedType();
  return std::nullopt;
}

// The element type T of an s2p::field<N, T> as schedules name it (f32, i64, ...; none for a
// type they do not name: bool, a struct, long double).
ir::ScheduleElementType schedule_element_type(clang::QualType type, const clang::ASTContext& ctx) {
  using sim::ElementType;
  const std::optional<clang::QualType> element = field_element_type(type);
  if (!element)
    return std::nullopt;
  const clang::QualType t = *element;
  const auto bits = ctx.getTypeSize(t);
  if (t->isFloatingType())
    return bits == 32 ? ir::ScheduleElementType(ElementType::kF32)
           : bits == 64 ? ir::ScheduleElementType(ElementType::kF64)
                        : std::nullopt;
  if (!t->isIntegerType() || t->isBooleanType())
    return std::nullopt;
  const bool is_signed = t->isSignedIntegerType(); // char: as the target makes it
  switch (bits) {
  case 8:
    return is_signed ? ElementType::kI8 : ElementType::kU8;
  case 16:
    return is_signed ? ElementType::kI16 : ElementType::kU16;
  case 32:
    return is_signed ? ElementType::kI32 : ElementType::kU32;
  case 64:
    return is_signed ? ElementType::kI64 : ElementType::kU64;
  default:
    return std::nullopt;
  }
}

} // namespace

std::optional<ir::TileStep> KernelExtractor::Impl::multi_tile_call(const clang::CallExpr& call) {
  const clang::FunctionDecl* callee = call.getDirectCallee();
  const std::string name = callee ? callee->getQualifiedNameAsString() : "";
  ir::TileStep step;
  step.loc = loc(call.getBeginLoc());
  step.text = text(call.getSourceRange());
  if (name == "s2p::forall")
    return forall_step(call);
  if (name == "s2p::all_reduce" || name == "s2p::reduce_scatter" || name == "s2p::all_gather") {
    step.kind = name == "s2p::all_reduce"       ? ir::TileStep::Kind::AllReduce
                : name == "s2p::reduce_scatter" ? ir::TileStep::Kind::ReduceScatter
                                                : ir::TileStep::Kind::AllGather;
    step.field = text(call.getArg(0)->getSourceRange());
    step.op = call.getNumArgs() > 1 ? text(call.getArg(1)->getSourceRange()) : "s2p::sum{}";
    // The library's combine objects, as the schedule spells them (their name()).
    static const std::map<std::string, ir::CombineOp> combines{{"sum", ir::CombineOp::Sum},
                                                               {"product", ir::CombineOp::Product},
                                                               {"maximum", ir::CombineOp::Max},
                                                               {"minimum", ir::CombineOp::Min}};
    const clang::CXXRecordDecl* combine =
        call.getNumArgs() > 1 ? call.getArg(1)->getType()->getAsCXXRecordDecl() : nullptr;
    if (combine && qualified_name(combine).rfind("::s2p::", 0) == 0)
      if (const auto known = combines.find(combine->getNameAsString()); known != combines.end())
        step.combine = known->second;
    if (step.kind != ir::TileStep::Kind::AllGather && !step.combine) {
      error(call.getArg(1)->getBeginLoc(),
            "the combine of a collective must be one of the library's: s2p::sum{}, "
            "s2p::product{}, s2p::maximum{} or s2p::minimum{} (a ring collective combines "
            "in the fabric's order with an operation every backend knows)");
      return std::nullopt;
    }
    if (const clang::ValueDecl* rows = referenced_decl(call.getArg(0));
        rows && llvm::isa<clang::ParmVarDecl>(rows))
      step.rows_parameter = rows->getNameAsString();
    step.element_type = schedule_element_type(call.getArg(0)->getType(), ctx_);
    if (!step.element_type) {
      error(call.getArg(0)->getBeginLoc(),
            "the rows of a collective must be an s2p::field<2, T> of an arithmetic type");
      return std::nullopt;
    }
    return step;
  }
  error(call.getBeginLoc(), "a multi-tile kernel may call s2p::forall, s2p::all_reduce, "
                            "s2p::reduce_scatter and s2p::all_gather; '" +
                                (name.empty() ? text(call.getSourceRange()) : name) +
                                "' is not supported here");
  return std::nullopt;
}

// `auto Xd = s2p::agile(X, map)` and `auto Xt = s2p::tiles(Xd)` both distribute X.
// A forall that reads the field it writes (an in-place transpose through two agile
// views of one parameter) would read elements other tiles are overwriting.
bool KernelExtractor::Impl::same_source(const clang::ValueDecl& input,
                                        const clang::ValueDecl& output,
                                        clang::SourceLocation where) {
  const auto in = source_parameter_.find(input.getNameAsString());
  const auto out = source_parameter_.find(output.getNameAsString());
  if (in == source_parameter_.end() || out == source_parameter_.end() || in->second != out->second)
    return true;
  error(where, "the forall reads '" + input.getNameAsString() + "' and writes '" +
                   output.getNameAsString() + "', which both distribute field '" + in->second +
                   "'; a forall cannot update a field in place: write the result to another "
                   "field");
  return false;
}

void KernelExtractor::Impl::note_source_parameter(const clang::VarDecl& var) {
  const auto* call =
      var.hasInit() ? llvm::dyn_cast<clang::CallExpr>(strip(var.getInit())) : nullptr;
  if (!call || call->getNumArgs() == 0)
    return;
  const clang::ValueDecl* source = referenced_decl(call->getArg(0));
  if (!source)
    return;
  const std::string name = source->getNameAsString();
  const auto known = source_parameter_.find(name);
  if (llvm::isa<clang::ParmVarDecl>(source))
    source_parameter_[var.getNameAsString()] = name;
  else if (known != source_parameter_.end())
    source_parameter_[var.getNameAsString()] = known->second;
}

// A forall's output is computed where it is owned, so its map deals it to every tile of the
// kernel: the runtime refuses any other count when the forall runs, so a constant one is
// refused here.
bool KernelExtractor::Impl::output_spans_kernel(const ir::TileStep& step,
                                                const ir::MultiTile& multi,
                                                const clang::CallExpr& call) {
  if (step.kind != ir::TileStep::Kind::Forall)
    return true;
  const auto distributed = multi.distributed.find(step.output);
  if (distributed == multi.distributed.end())
    return true;
  const auto tiles = map_tiles_.find(distributed->second.map);
  if (tiles == map_tiles_.end() || tiles->second == multi.tiles)
    return true;
  error(call.getBeginLoc(), "the forall writes '" + step.output + "', which resource map '" +
                                distributed->second.map + "' deals to " +
                                std::to_string(tiles->second) + " tiles, but the kernel spans " +
                                std::to_string(multi.tiles) +
                                " (S2P_TILES): a forall's output is dealt to every tile of its "
                                "kernel (exclude tiles with .exclude_tiles(...))");
  return false;
}

// The runtime moves and accounts elements by their arithmetic type (f32, f64, i8 ... u64); a
// distributed field of structs would give generated code that does not compile.
void KernelExtractor::Impl::check_element_type(const clang::VarDecl& var) {
  const auto element = type_template_arg(var.getType());
  const clang::QualType type = element ? element->getCanonicalType().getUnqualifiedType()
                                       : clang::QualType();
  const auto* builtin = type.isNull() ? nullptr : type->getAs<clang::BuiltinType>();
  if (builtin && (builtin->isInteger() || builtin->getKind() == clang::BuiltinType::Float ||
                  builtin->getKind() == clang::BuiltinType::Double))
    return;
  error(var.getLocation(),
        '\'' + var.getNameAsString() + "' distributes elements of type '" +
            (element ? element->getAsString(ctx_.getPrintingPolicy()) : std::string("?")) +
            "'; a multi-tile kernel moves elements of an integer, float or double type: keep "
            "each member of a struct in a field of its own");
}

void KernelExtractor::Impl::note_distribution(const clang::VarDecl& var, ir::MultiTile& multi) {
  const auto* call =
      var.hasInit() ? llvm::dyn_cast<clang::CallExpr>(strip(var.getInit())) : nullptr;
  const clang::ValueDecl* source =
      call && call->getNumArgs() > 0 ? referenced_decl(call->getArg(0)) : nullptr;
  if (!source)
    return;
  const std::string name = var.getNameAsString();
  if (call->getNumArgs() >= 2) { // s2p::agile(X, map)
    const clang::ValueDecl* map = referenced_decl(call->getArg(1));
    if (map)
      agile_map_[name] = map->getNameAsString();
    const auto parameter = source_parameter_.find(name);
    if (map && parameter != source_parameter_.end())
      multi.distributed[name] = {parameter->second, map->getNameAsString(),
                                 schedule_element_type(var.getType(), ctx_)};
  } else if (const auto known = multi.distributed.find(source->getNameAsString());
             known != multi.distributed.end()) { // s2p::tiles(Xd)
    multi.distributed[name] = known->second;
  }
}

namespace {

// The extent a field argument was built with: `s2p::field<2, T>(p, {96, 96})`, or a variable
// declared that way (its declaration; later assignments are not followed, which is safe:
// the template is then not the schedule that runs, and the runtime plans anew).
std::optional<std::vector<std::int64_t>> field_argument_extent(const clang::Expr* arg,
                                                               const clang::ASTContext& ctx) {
  const clang::Expr* e = strip(arg);
  if (const clang::ValueDecl* decl = referenced_decl(e)) {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(decl);
    if (!var || llvm::isa<clang::ParmVarDecl>(var) || !var->hasInit())
      return std::nullopt;
    e = strip(var->getInit());
  }
  const auto* construct = llvm::dyn_cast<clang::CXXConstructExpr>(e);
  if (!construct || construct->getNumArgs() != 2)
    return std::nullopt;
  return constant_extent(construct->getArg(1), ctx);
}

std::string extent_text(const std::vector<std::int64_t>& extent) {
  std::string text;
  for (std::size_t d = 0; d < extent.size(); ++d) {
    if (d) // not ("x" + std::to_string(...)): GCC 12 misreads it (-Wrestrict, GCC bug 105651)
      text += 'x';
    text += std::to_string(extent[d]);
  }
  return text;
}

} // namespace

// A schedule template is written beside the code, which needs the fields' extents; a kernel
// only learns them from its arguments. When every call in this file passes fields of the
// same constant extents, those are the extents the template is planned for.
void KernelExtractor::Impl::find_call_extents(const clang::FunctionDecl& kernel,
                                              ir::MultiTile& multi) {
  const std::vector<const clang::CallExpr*>& calls = calls_.of(kernel);
  const std::string kernel_name = '\'' + kernel.getNameAsString() + "'";
  if (calls.empty()) {
    multi.no_extents_reason = kernel_name + " is not called in this file";
    return;
  }
  std::map<std::string, std::vector<std::int64_t>> extents;
  std::map<std::string, unsigned> first_line;
  for (const clang::CallExpr* call : calls) {
    const unsigned line = loc(call->getBeginLoc()).line;
    for (unsigned k = 0; k < kernel.getNumParams() && k < call->getNumArgs(); ++k) {
      const clang::ParmVarDecl* parameter = kernel.getParamDecl(k);
      if (s2p_template_name(parameter->getType()) != "field")
        continue;
      const std::string name = parameter->getNameAsString();
      const auto extent = field_argument_extent(call->getArg(k), ctx_);
      if (!extent) {
        multi.no_extents_reason = "the extent of '" + name + "' in the call at line " +
                                  std::to_string(line) + " is not a constant";
        return;
      }
      const auto [known, inserted] = extents.emplace(name, *extent);
      if (!inserted && known->second != *extent) {
        multi.no_extents_reason = "the calls at lines " + std::to_string(first_line[name]) +
                                  " and " + std::to_string(line) + " pass '" + name +
                                  "' with different extents (" + extent_text(known->second) + ", " +
                                  extent_text(*extent) + ")";
        return;
      }
      first_line.emplace(name, line);
    }
  }
  multi.parameter_extents = std::move(extents);
  multi.extents_from =
      calls.size() == 1
          ? "the call at " + display_file_ + ":" + std::to_string(loc(calls[0]->getBeginLoc()).line)
          : "the " + std::to_string(calls.size()) + " calls in " + display_file_;
}

// S2P_MOVE_MEMORY(C, B): some forall writes (a distribution of) parameter C and reads B.
// The owner-copy plan already moves every block a task needs once, before the tasks run;
// the annotation records that the author relies on it, and seq2par holds them to it.
void KernelExtractor::Impl::apply_move_memory(const clang::FunctionDecl& kernel,
                                              ir::MultiTile& multi) {
  for (const clang::Decl* redecl : kernel.redecls())
    for (const auto* attr : redecl->specific_attrs<clang::AnnotateAttr>()) {
      if (attr->getAnnotation() != "s2p.move_memory")
        continue;
      const auto* text =
          attr->args_size() == 1
              ? llvm::dyn_cast<clang::StringLiteral>((*attr->args_begin())->IgnoreParenImpCasts())
              : nullptr;
      std::vector<std::string> names;
      if (text) {
        llvm::SmallVector<llvm::StringRef, 2> parts;
        text->getString().split(parts, ',');
        for (const auto part : parts)
          names.push_back(part.trim().str());
      }
      auto is_field_parameter = [&](const std::string& name) {
        return std::any_of(
            kernel.param_begin(), kernel.param_end(), [&](const clang::ParmVarDecl* p) {
              return p->getNameAsString() == name && s2p_template_name(p->getType()) == "field";
            });
      };
      if (names.size() != 2) {
        error(attr->getLocation(), "S2P_MOVE_MEMORY(C, B) names two s2p::field parameters of the "
                                   "kernel: the field a forall writes and one it reads");
        continue;
      }
      const auto unknown = std::find_if_not(names.begin(), names.end(), is_field_parameter);
      if (unknown != names.end()) {
        error(attr->getLocation(), "S2P_MOVE_MEMORY(" + names[0] + ", " + names[1] + "): '" +
                                       *unknown + "' is not an s2p::field parameter of the kernel");
        continue;
      }
      auto source = [&](const std::string& variable) {
        const auto found = source_parameter_.find(variable);
        return found == source_parameter_.end() ? std::string() : found->second;
      };
      bool applied = false;
      for (auto& step : multi.steps) {
        if (step.kind != ir::TileStep::Kind::Forall || source(step.output) != names[0])
          continue;
        for (const auto& read : step.reads)
          if (source(read.field) == names[1]) {
            step.moved_at_start.push_back(read.field);
            applied = true;
          }
      }
      if (!applied)
        error(attr->getLocation(), "S2P_MOVE_MEMORY(" + names[0] + ", " + names[1] +
                                       "): no forall in this kernel writes '" + names[0] +
                                       "' and reads '" + names[1] + "'");
    }
}

namespace {

// const s2p::field<N, T>& or s2p::field<N, const T> (by value or reference): a field whose
// elements the kernel cannot write.
bool read_only_field(clang::QualType type) {
  const clang::QualType value = type.getNonReferenceType();
  if (s2p_template_name(value) != "field")
    return false;
  if (type->isReferenceType() && value.isConstQualified())
    return true;
  const auto* spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
      value.getCanonicalType()->getAsCXXRecordDecl());
  if (!spec)
    return false;
  for (const auto& arg : spec->getTemplateArgs().asArray())
    if (arg.getKind() == clang::TemplateArgument::Type)
      return arg.getAsType().isConstQualified();
  return false;
}

} // namespace

// S2P_SHARED parameters: read-only fields, recorded in declaration order.
void KernelExtractor::Impl::note_shared_parameters(const clang::FunctionDecl& kernel,
                                                   ir::MultiTile& multi) {
  for (const clang::ParmVarDecl* param : kernel.parameters()) {
    if (!has_annotation(param, "s2p.shared"))
      continue;
    if (!read_only_field(param->getType())) {
      error(param->getLocation(),
            "S2P_SHARED applies to a read-only s2p::field parameter (const s2p::field<N, T>& or "
            "s2p::field<N, const T>): a structure every tile reads and nothing writes; '" +
                param->getNameAsString() + "' is " + param->getType().getAsString());
      shared_params_.insert(param); // read as shared, not as a plain field, in the bodies
      continue;
    }
    if (const auto element = field_element_type(param->getType());
        element && !(*element)->isArithmeticType()) {
      // The tiles' copies are multicast by the library's collectives, which move numbers.
      error(param->getLocation(),
            "S2P_SHARED '" + param->getNameAsString() + "' holds elements of type '" +
                element->getAsString() +
                "'; a shared structure is multicast to the tiles by the collectives, which move "
                "arithmetic elements: share one s2p::field of numbers per member instead");
      shared_params_.insert(param); // read as shared, not as a plain field, in the bodies
      continue;
    }
    shared_params_.insert(param);
    multi.shared.push_back({param->getNameAsString(), loc(param->getLocation()),
                            schedule_element_type(param->getType(), ctx_)});
  }
}

// Every S2P_SHARED parameter is read by some forall (else the annotation would do nothing).
void KernelExtractor::Impl::check_shared_uses(const clang::FunctionDecl& kernel,
                                              const ir::MultiTile& multi) {
  for (const clang::ParmVarDecl* param : kernel.parameters()) {
    if (!shared_params_.contains(param))
      continue;
    const std::string name = param->getNameAsString();
    const bool read = std::any_of(multi.steps.begin(), multi.steps.end(), [&](const auto& step) {
      return std::find(step.shared_reads.begin(), step.shared_reads.end(), name) !=
             step.shared_reads.end();
    });
    if (!read)
      error(param->getLocation(), "S2P_SHARED parameter '" + name +
                                      "' is read by no forall of the kernel; only what a forall "
                                      "body reads is shared between tiles");
  }
}

// The generated kernel runs every declaration (its preamble) before its first step. A
// declaration written after a step is hoisted, so it must not observe what a step writes:
// after the first step only views (resource maps, agile fields, tile blocks, field views)
// and constexpr constants may be declared; anything else could read a field the step has
// not yet written in the generated program and is refused.

void KernelExtractor::Impl::refuse_data_declaration_after_step(const clang::DeclStmt& decl,
                                                              const ir::TileStep& first_step) {
  for (const clang::Decl* d : decl.decls()) {
    const auto* var = llvm::dyn_cast<clang::VarDecl>(d);
    if (!var)
      continue;
    const std::string kind = s2p_template_name(var->getType());
    if (var->isConstexpr())
      continue;
    if (kind == "resource_map" || kind == "agile_field" || kind == "tile_blocks" || kind == "field") {
      if (const clang::Expr* call = first_foreign_call(var->getInit()))
        error(call->getBeginLoc(),
              "'" + var->getNameAsString() + "' is declared after the kernel's first step (line " +
                  std::to_string(first_step.loc.line) +
                  ") and built by a call seq2par cannot see into; seq2par runs a multi-tile "
                  "kernel's declarations before its steps, so a view declared after a step may "
                  "only be built by s2p calls from parameters, earlier views and constants (this "
                  "call could read what a step writes); declare it before the first step");
      continue;
    }
    error(var->getBeginLoc(),
          "'" + var->getNameAsString() + "' is declared after the kernel's first step (line " +
              std::to_string(first_step.loc.line) +
              "); seq2par runs a multi-tile kernel's declarations before its steps, so after a "
              "step only resource maps, agile views, field views and constexpr constants may be "
              "declared (this one could read what a step writes); declare it before the first "
              "step");
  }
}

// A step (s2p::forall, a collective) or a counted loop around steps, in the kernel body or a
// loop's body.
void KernelExtractor::Impl::add_step_statement(const clang::Stmt& stmt, ir::MultiTile& multi) {
  if (const auto* loop = llvm::dyn_cast<clang::ForStmt>(&stmt))
    return add_step_loop(*loop, multi);
  const auto* e = llvm::dyn_cast<clang::Expr>(&stmt);
  const auto* call = e ? llvm::dyn_cast<clang::CallExpr>(strip(e)) : nullptr;
  if (!call) {
    error(stmt.getBeginLoc(),
          "a multi-tile kernel is a sequence of declarations, steps (s2p::forall, "
          "s2p::all_reduce, s2p::reduce_scatter, s2p::all_gather) and counted 'for' loops around "
          "steps; this statement is not supported here");
    return;
  }
  next_step_ = multi.steps.size() + 1;
  if (auto step = multi_tile_call(*call); step && output_spans_kernel(*step, multi, *call)) {
    multi.steps.push_back(std::move(*step));
    check_output_reads(multi, multi.steps.size() - 1);
  }
}

// for (...) { steps and loops }: a time loop or a solver's outer loop, run as written; each
// step in it launches once per iteration. Its header runs on the host between launches, so it
// may read the kernel's values and s2p views' shapes, not elements (a step writes them).
void KernelExtractor::Impl::add_step_loop(const clang::ForStmt& loop, ir::MultiTile& multi) {
  for (const clang::Stmt* part : {loop.getInit(), static_cast<const clang::Stmt*>(loop.getCond()),
                                  static_cast<const clang::Stmt*>(loop.getInc())})
    if (const clang::Expr* call = first_foreign_call(part)) {
      error(call->getBeginLoc(),
            "the header of a loop around steps may call only s2p's view functions (extent(), "
            "blocks()); this call could read what a step writes");
      return;
    }
  ir::MultiTile::StepLoop step_loop;
  step_loop.loc = loc(loop.getBeginLoc());
  step_loop.header = text(clang::SourceRange(loop.getBeginLoc(), loop.getRParenLoc()));
  step_loop.first = multi.steps.size();
  const std::size_t at = multi.loops.size();
  multi.loops.push_back(step_loop); // before the loops inside it
  const clang::Stmt* body = loop.getBody();
  const auto* block = llvm::dyn_cast<clang::CompoundStmt>(body);
  bool has_statement = false;
  for (const clang::Stmt* child :
       block ? std::vector<const clang::Stmt*>(block->body_begin(), block->body_end())
             : std::vector<const clang::Stmt*>{body}) {
    if (llvm::isa<clang::NullStmt>(child))
      continue;
    if (llvm::isa<clang::DeclStmt>(child)) {
      error(child->getBeginLoc(), "declare this before the loop: seq2par runs a multi-tile "
                                  "kernel's declarations once, before its steps");
      continue;
    }
    has_statement = true;
    add_step_statement(*child, multi);
  }
  multi.loops[at].count = multi.steps.size() - step_loop.first;
  if (!has_statement)
    error(loop.getBeginLoc(), "this loop has no step (s2p::forall or a collective) inside");
}

std::optional<ir::Kernel> KernelExtractor::Impl::run_multi_tile(const clang::FunctionDecl& kernel,
                                                                const clang::CompoundStmt& body) {
  ir::MultiTile multi;
  const clang::AnnotateAttr* tiles_attr = nullptr;
  for (const clang::Decl* redecl : kernel.redecls())
    for (const auto* attr : redecl->specific_attrs<clang::AnnotateAttr>())
      if (attr->getAnnotation() == "s2p.tiles")
        tiles_attr = attr;
  clang::Expr::EvalResult value;
  if (!tiles_attr || tiles_attr->args_size() != 1 ||
      !(*tiles_attr->args_begin())->EvaluateAsInt(value, ctx_) ||
      value.Val.getInt().getSExtValue() < 1 || value.Val.getInt().getSExtValue() > (1 << 20)) {
    error(kernel.getLocation(), "S2P_TILES(n) needs a positive integer constant tile count");
    return std::nullopt;
  }
  multi.tiles = static_cast<int>(value.Val.getInt().getSExtValue());
  note_shared_parameters(kernel, multi);
  for (const clang::Stmt* stmt : body.body()) {
    if (llvm::isa<clang::NullStmt>(stmt))
      continue;
    if (const auto* decl = llvm::dyn_cast<clang::DeclStmt>(stmt)) {
      // Runs once, as in the sequential program: resource maps, agile fields, sizes.
      if (!multi.steps.empty())
        refuse_data_declaration_after_step(*decl, multi.steps.front());
      kernel_.preamble.push_back(text(decl->getSourceRange()));
      for (const clang::Decl* d : decl->decls()) {
        const auto* var = llvm::dyn_cast<clang::VarDecl>(d);
        const std::string kind = var ? s2p_template_name(var->getType()) : "";
        if (kind == "agile_field")
          agile_fields_[var] = static_cast<int>(integer_template_args(var->getType()).front());
        else if (kind == "tile_blocks")
          tile_blocks_[var] = static_cast<int>(integer_template_args(var->getType()).front());
        if (kind == "agile_field" || kind == "tile_blocks") {
          check_element_type(*var);
          note_source_parameter(*var);
        }
        if (kind == "resource_map")
          check_resource_map(*var, multi);
        if (kind == "agile_field" || kind == "tile_blocks")
          note_distribution(*var, multi);
      }
      continue;
    }
    add_step_statement(*stmt, multi);
  }
  if (multi.steps.empty() && !failed_)
    error(kernel.getLocation(), "multi-tile kernel '" + kernel_.name + "' has no collective");
  if (!failed_)
    check_shared_uses(kernel, multi);
  if (!failed_)
    apply_move_memory(kernel, multi);
  if (!failed_)
    find_call_extents(kernel, multi);
  if (failed_)
    return std::nullopt;
  kernel_.multi_tile = std::move(multi);
  return std::move(kernel_);
}

} // namespace s2p::frontend
