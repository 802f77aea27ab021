#include "frontend/kernel_extractor_impl.h"

#include "frontend/access_model.h"

#include "frontend/s2p_types.h"
#include "frontend/unsupported_constructs.h"

#include <clang/AST/DeclTemplate.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>

// A message opening with a quoted name starts with the char '\'' rather than "'": GCC 12 reports
// a false -Wstringop-overflow for a one-character string literal plus a temporary std::string
// (GCC bug 105651).

namespace s2p::frontend {

namespace {

void report(clang::ASTContext& ctx, clang::SourceLocation loc,
            clang::DiagnosticsEngine::Level level, const std::string& message) {
  auto& diags = ctx.getDiagnostics();
  diags.Report(loc, diags.getCustomDiagID(level, "%0")) << message;
}

} // namespace

void report_error(clang::ASTContext& ctx, clang::SourceLocation loc, const std::string& message) {
  report(ctx, loc, clang::DiagnosticsEngine::Error, message);
}
void report_note(clang::ASTContext& ctx, clang::SourceLocation loc, const std::string& message) {
  report(ctx, loc, clang::DiagnosticsEngine::Note, message);
}
void report_warning(clang::ASTContext& ctx, clang::SourceLocation loc, const std::string& message) {
  report(ctx, loc, clang::DiagnosticsEngine::Warning, message);
}

std::optional<ir::Kernel> KernelExtractor::Impl::run(const clang::FunctionDecl& kernel) {
  kernel_decl_ = &kernel;
  kernel_.name = kernel.getNameAsString();
  kernel_.loc = loc(kernel.getLocation());
  kernel_.root.kind = ir::ScheduleNode::Kind::Kernel;
  kernel_.root.name = kernel_.name;
  kernel_.root.loc = kernel_.loc;
  if (llvm::isa<clang::CXXMethodDecl>(kernel)) {
    error(kernel.getLocation(),
          "kernel '" + kernel_.name + "' must be a free function, not a member function");
    return std::nullopt;
  }
  if (kernel.isTemplated()) {
    error(kernel.getLocation(),
          "kernel templates are not supported; declare the kernel for concrete types");
    return std::nullopt;
  }
  const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(kernel.getBody());
  if (!body)
    return std::nullopt;
  if (has_annotation(&kernel, "s2p.tiles"))
    return run_multi_tile(kernel, *body);
  if (has_annotation(&kernel, "s2p.move_memory")) {
    error(kernel.getLocation(), "S2P_MOVE_MEMORY applies to multi-tile kernels (S2P_TILES(n)), "
                                "whose foralls move blocks between tiles");
    return std::nullopt;
  }
  for (const clang::ParmVarDecl* param : kernel.parameters())
    if (has_annotation(param, "s2p.shared"))
      error(param->getLocation(), "S2P_SHARED applies to parameters of multi-tile kernels "
                                  "(S2P_TILES(n)), whose tiles each read the structure");
  check_body_rules(*body);

  scopes_.emplace_back();
  for (const clang::ParmVarDecl* param : kernel.parameters()) {
    const std::string name = param->getNameAsString();
    kernel_names_.insert(name);
    const std::string kind = s2p_template_name(param->getType());
    if (kind == "tensor_ref") {
      ir::Tensor tensor;
      tensor.name = name;
      tensor.kind = ir::TensorKind::Ref;
      tensor.element_type = element_type_of(param->getType(), ctx_);
      tensor.loc = loc(param->getLocation());
      kernel_.tensors.push_back(tensor);
      bind(param,
           {Binding::Kind::Tensor, static_cast<int>(kernel_.tensors.size()) - 1, {}, "", true});
    } else if (kind == "pool" || kind == "pool_tensor") {
      error(param->getLocation(),
            "pools and pool tensors must be declared inside the kernel, not passed in");
    } else if (param->getType()->isIntegralOrEnumerationType()) {
      kernel_.symbols.push_back(name);
      auto type = int_type(param->getType());
      if (!type) {
        error(param->getLocation(), "integer parameter '" + name +
                                        "' must have an integer type of at most 64 bits");
        continue;
      }
      bind(param, {Binding::Kind::Int, -1, ir::Expr::variable(name, *type), "", true});
    } else {
      refuse_reference_parameter(*param);
      bind(param, {Binding::Kind::Opaque, -1, {}, "", true});
    }
  }
  visit_body(*body, kernel_.root, -1, true);
  scopes_.pop_back();
  if (failed_)
    return std::nullopt;
  return std::move(kernel_);
}

// Warps run ahead of one another, out of the sequential order: a parameter that reaches memory
// outside its own bytes would be read (as an intrinsic argument, in a condition or a trip
// count) while another warp may be writing that memory through a tensor it aliases, at a point
// the sequential program has not reached or has passed.
void KernelExtractor::Impl::refuse_reference_parameter(const clang::ParmVarDecl& param) {
  if (const auto reach = host_memory_reach(param.getType()))
    error(param.getLocation(),
          "parameter '" + param.getNameAsString() + "' of a warp-split kernel is " + *reach +
              ": warps run out of the sequential order, so they would read the memory behind "
              "it while another warp may be writing it; take it by value (a scalar or a "
              "struct of scalars), or pass data as an s2p::tensor_ref");
}

KernelExtractor::KernelExtractor(clang::ASTContext& ctx, WarpPragmaTable& pragmas,
                                 std::string display_file, bool auto_warps)
    : ctx_(ctx), pragmas_(pragmas), display_file_(std::move(display_file)),
      auto_warps_(auto_warps), calls_(ctx) {}

std::optional<ir::Kernel> KernelExtractor::extract(const clang::FunctionDecl& kernel) {
  Impl impl(ctx_, pragmas_, calls_, display_file_, auto_warps_);
  return impl.run(kernel);
}

} // namespace s2p::frontend
