// A forall task split into cooperative warps: the body of a forall over tile blocks that
// declares an s2p::pool or calls intrinsics is a warp-split kernel of its own. Every task
// runs it on the tile that owns its output block, after owner-copy brought the blocks it
// reads there; inside, the single-tile rules apply (pools, pool tensors, loops with constant
// or kernel-parameter trip counts, intrinsics with warp numbers), and the task's tile blocks
// are tensors of the kernel: Ct(b) (the output block, the only one written), At({b[0], k}),
// or a variable holding one (`auto c = Ct(b);`), passed as s2p::in / out / inout<field<N, T>>.
// A tile block is one unit for dependencies: reads of input blocks never conflict (inputs are
// read-only on a tile), and the output block is the task's own, so ordering its accesses as a
// whole is exact.
#include "frontend/kernel_extractor_impl.h"
#include "frontend/s2p_types.h"

#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>

namespace s2p::frontend {

bool KernelExtractor::Impl::is_warp_task(const clang::Stmt& body) const {
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    bool found = false;
    bool VisitVarDecl(clang::VarDecl* var) {
      found = found || s2p_template_name(var->getType()) == "pool";
      return !found;
    }
    bool VisitCallExpr(clang::CallExpr* call) {
      found = found || is_intrinsic(call->getDirectCallee());
      return !found;
    }
  } finder;
  finder.TraverseStmt(const_cast<clang::Stmt*>(&body));
  return finder.found;
}

std::optional<ir::Kernel> KernelExtractor::Impl::extract_task(const clang::LambdaExpr& lambda,
                                                              std::size_t step,
                                                              const std::string& output) {
  Impl task(ctx_, pragmas_, calls_, display_file_, auto_warps_);
  task.task_output_ = output;
  return task.run_task(*kernel_decl_, lambda, tile_blocks_,
                       kernel_.name + "_task" + std::to_string(step));
}

std::optional<ir::Kernel>
KernelExtractor::Impl::run_task(const clang::FunctionDecl& kernel, const clang::LambdaExpr& lambda,
                                const std::map<const clang::ValueDecl*, int>& tile_views,
                                const std::string& name) {
  kernel_decl_ = &kernel;
  kernel_.name = name;
  kernel_.loc = loc(lambda.getBeginLoc());
  kernel_.root.kind = ir::ScheduleNode::Kind::Kernel;
  kernel_.root.name = name;
  kernel_.root.loc = kernel_.loc;
  const auto* body = llvm::dyn_cast<clang::CompoundStmt>(lambda.getBody());
  check_body_rules(*body);
  scopes_.emplace_back();
  // The kernel's parameters: integers are run-time symbols (loop trip counts), the rest is
  // used by name (the generated task runs where they are visible).
  for (const clang::ParmVarDecl* param : kernel.parameters()) {
    kernel_names_.insert(param->getNameAsString());
    auto type = param->getType()->isIntegralOrEnumerationType() ? int_type(param->getType())
                                                                 : std::nullopt;
    if (type) {
      kernel_.symbols.push_back(param->getNameAsString());
      bind(param, {Binding::Kind::Int, -1,
                   ir::Expr::variable(param->getNameAsString(), *type), "", true});
    } else {
      bind(param, {Binding::Kind::Opaque, -1, {}, "", true});
    }
  }
  // In declaration order: the map's order is the declarations' addresses, which would make
  // the generated tables depend on how Clang allocated them.
  std::vector<const clang::ValueDecl*> views;
  for (const auto& entry : tile_views)
    views.push_back(entry.first);
  std::sort(views.begin(), views.end(), [&](const clang::ValueDecl* a, const clang::ValueDecl* b) {
    return ctx_.getSourceManager().isBeforeInTranslationUnit(a->getLocation(), b->getLocation());
  });
  for (const clang::ValueDecl* view : views) {
    ir::Tensor tensor;
    tensor.name = view->getNameAsString();
    tensor.kind = ir::TensorKind::Ref;
    tensor.tile_block = true;
    tensor.element_type = element_type_of(view->getType(), ctx_);
    tensor.loc = loc(view->getLocation());
    kernel_.tensors.push_back(tensor);
    kernel_names_.insert(tensor.name);
    bind(view, {Binding::Kind::Tensor, static_cast<int>(kernel_.tensors.size()) - 1, {}, "", true});
  }
  const clang::ParmVarDecl* block_index = lambda.getCallOperator()->getParamDecl(0);
  kernel_names_.insert(block_index->getNameAsString());
  bind(block_index, {Binding::Kind::Opaque, -1, {}, "", true});
  visit_body(*body, kernel_.root, -1, true);
  scopes_.pop_back();
  if (failed_)
    return std::nullopt;
  return std::move(kernel_);
}

int KernelExtractor::Impl::tile_block_tensor(const clang::Expr* e) const {
  e = strip(e);
  // A section of a block (Ct(b).section(g)): the block, as one unit for dependencies (the
  // runtime checks that the section lies inside the block).
  if (const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    const auto* method = member->getMethodDecl();
    if (!method || method->getName() != "section" || member->getNumArgs() != 1)
      return -1;
    e = strip(member->getImplicitObjectArgument());
  }
  if (const auto* op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e);
      op && op->getOperator() == clang::OO_Call)
    e = strip(op->getArg(0));
  const clang::ValueDecl* decl = referenced_decl(e);
  const Binding* binding = decl ? lookup(decl) : nullptr;
  // Tile blocks are the task's first tensors; a helper's tensor may not be in the table yet.
  if (!binding || binding->kind != Binding::Kind::Tensor || binding->index < 0 ||
      static_cast<std::size_t>(binding->index) >= kernel_.tensors.size() ||
      !kernel_.tensors[static_cast<std::size_t>(binding->index)].tile_block)
    return -1;
  return binding->index;
}

} // namespace s2p::frontend
