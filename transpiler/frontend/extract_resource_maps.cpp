// Resource maps (s2p::resource_map protocol calls and refinements): checked as the
// runtime checks them, and recorded as an ir::MapSpec when their sizes are constants.
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

// A resource map whose sizes are constants is checked here, as the runtime would check it
// (resource_map::validate), so the mistake is a diagnostic instead of a run-time error:
// positive blocks, algorithmic blocks dividing memory blocks dividing segments, one weight
// per tile, no more tiles than the kernel spans.
void KernelExtractor::Impl::check_resource_map(const clang::VarDecl& var, ir::MultiTile& multi) {
  const int kernel_tiles = multi.tiles;
  if (!var.hasInit())
    return;
  std::vector<const clang::CXXMemberCallExpr*> chain; // outermost call first
  std::optional<std::vector<std::int64_t>> segment, memory, algorithmic;
  const clang::Expr *memory_arg = nullptr, *algorithmic_arg = nullptr;
  const clang::Expr* e = strip(var.getInit());
  // Walk the chain .weights(...).memory_blocks(...).algorithmic_blocks(...) down to the
  // protocol call.
  std::size_t weights = 0;
  const clang::Expr* weights_arg = nullptr;
  const clang::InitListExpr* weights_list = nullptr;
  while (const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    const std::string name =
        member->getMethodDecl() ? member->getMethodDecl()->getNameAsString() : "";
    chain.push_back(member);
    if (member->getNumArgs() == 1 && name == "memory_blocks" && !memory_arg)
      memory_arg = member->getArg(0), memory = constant_extent(memory_arg, ctx_);
    else if (member->getNumArgs() == 1 && name == "algorithmic_blocks" && !algorithmic_arg)
      algorithmic_arg = member->getArg(0), algorithmic = constant_extent(algorithmic_arg, ctx_);
    else if (member->getNumArgs() == 1 && name == "weights" && !weights_arg) {
      weights_arg = member->getArg(0);
      weights_list = braced_list(weights_arg);
      if (weights_list)
        weights = weights_list->getNumInits();
    }
    e = strip(member->getImplicitObjectArgument());
  }
  const auto* protocol = llvm::dyn_cast<clang::CallExpr>(e);
  const clang::FunctionDecl* callee = protocol ? protocol->getDirectCallee() : nullptr;
  if (!callee || !callee->getParent() ||
      s2p_template_name(ctx_.getRecordType(llvm::cast<clang::RecordDecl>(callee->getParent()))) !=
          "resource_map")
    return;
  const std::string name = callee->getNameAsString();
  const clang::Expr* tiles_arg = nullptr;
  if ((name == "block_cyclic" || name == "block_block") && protocol->getNumArgs() >= 3) {
    segment = constant_extent(protocol->getArg(1), ctx_);
    tiles_arg = protocol->getArg(2);
  } else if ((name == "block" || name == "cyclic") && protocol->getNumArgs() >= 2) {
    tiles_arg = protocol->getArg(1);
  } else if (name == "split_points" && protocol->getNumArgs() >= 3) {
    tiles_arg = protocol->getArg(2);
    if (const auto splits = constant_splits(protocol->getArg(1), ctx_))
      for (std::size_t d = 0; d < splits->size(); ++d)
        for (std::size_t k = 0; k < (*splits)[d].size(); ++k)
          if ((*splits)[d][k] <= (k ? (*splits)[d][k - 1] : 0)) {
            error(protocol->getArg(1)->getBeginLoc(),
                  "resource map '" + var.getNameAsString() + "', axis " + std::to_string(d) +
                      ": split points must be positive and strictly increasing (segments would "
                      "overlap or be empty); got " +
                      std::to_string((*splits)[d][k]) +
                      (k ? " after " + std::to_string((*splits)[d][k - 1]) : std::string()));
            return;
          }
  }
  clang::Expr::EvalResult tiles_value;
  std::optional<std::int64_t> tiles;
  if (tiles_arg && tiles_arg->EvaluateAsInt(tiles_value, ctx_))
    tiles = tiles_value.Val.getInt().getExtValue();
  const std::string map = "resource map '" + var.getNameAsString() + "'";
  if (tiles && (*tiles < 1 || *tiles > kernel_tiles)) {
    error(tiles_arg->getBeginLoc(), map + " deals its segments to " + std::to_string(*tiles) +
                                        " tiles; the kernel spans " + std::to_string(kernel_tiles) +
                                        " (S2P_TILES)");
    return;
  }
  if (tiles)
    map_tiles_[var.getNameAsString()] = static_cast<int>(*tiles);
  if (tiles && weights_arg && weights != 0 && static_cast<std::int64_t>(weights) != *tiles) {
    error(weights_arg->getBeginLoc(), map + " has " + std::to_string(weights) + " weights for " +
                                          std::to_string(*tiles) + " tiles");
    return;
  }
  if (weights_list)
    for (const clang::Expr* weight : weights_list->inits()) {
      // The list's elements are doubles (integers are converted), so a constant folds to one.
      llvm::APFloat value(0.0);
      if (weight->EvaluateAsFloat(value, ctx_) &&
          (value.isNegative() || value.isZero() || value.isNaN())) {
        error(weight->getBeginLoc(), map + ": tile weights must be positive");
        return;
      }
    }
  for (const auto& [sizes, arg] :
       {std::pair{segment, protocol && segment ? protocol->getArg(1) : nullptr},
        std::pair{memory, memory_arg}, std::pair{algorithmic, algorithmic_arg}})
    if (sizes && std::any_of(sizes->begin(), sizes->end(), [](std::int64_t v) { return v <= 0; })) {
      error(arg->getBeginLoc(), map + ": block extents must be positive");
      return;
    }
  // Memory blocks default to the segment, algorithmic blocks to the memory block.
  const auto& outer_memory = memory ? memory : segment;
  auto check_divides = [&](const std::optional<std::vector<std::int64_t>>& inner,
                           const std::optional<std::vector<std::int64_t>>& outer,
                           const clang::Expr* where, const char* inner_name,
                           const char* outer_name) {
    if (!inner || !outer || inner->size() != outer->size())
      return true;
    for (std::size_t d = 0; d < inner->size(); ++d)
      if ((*outer)[d] % (*inner)[d] != 0) {
        error(where->getBeginLoc(), map + ", axis " + std::to_string(d) + ": " + inner_name + " " +
                                        std::to_string((*inner)[d]) + " does not divide " +
                                        outer_name + " " + std::to_string((*outer)[d]));
        return false;
      }
    return true;
  };
  if (memory_arg && !check_divides(memory, segment, memory_arg, "memory block", "segment block"))
    return;
  if (algorithmic_arg &&
      !check_divides(algorithmic, outer_memory, algorithmic_arg, "algorithmic block",
                     memory ? "memory block" : "segment block"))
    return;
  if (auto spec = map_spec(*protocol, chain))
    multi.maps[var.getNameAsString()] = std::move(*spec);
}

// How a resource map is built, if every size but the parent extent is a constant and the
// parent is a constant or a field parameter's extent(): what a transpile-time plan needs.
std::optional<ir::MapSpec>
KernelExtractor::Impl::map_spec(const clang::CallExpr& protocol,
                                const std::vector<const clang::CXXMemberCallExpr*>& chain) const {
  ir::MapSpec spec;
  const auto known_protocol = ir::parse_map_protocol(protocol.getDirectCallee()->getName());
  if (!known_protocol)
    return std::nullopt;
  spec.protocol = *known_protocol;
  const bool segmented = spec.protocol == ir::MapProtocol::BlockBlock ||
                         spec.protocol == ir::MapProtocol::BlockCyclic;
  const bool split = spec.protocol == ir::MapProtocol::SplitPoints;
  const unsigned tiles_arg = segmented || split ? 2 : 1;
  if (protocol.getNumArgs() <= tiles_arg)
    return std::nullopt;
  auto integer = [&](const clang::Expr* e) -> std::optional<std::int64_t> {
    clang::Expr::EvalResult value;
    if (!e->EvaluateAsInt(value, ctx_))
      return std::nullopt;
    return value.Val.getInt().getExtValue();
  };
  // The parent: a constant extent, or X.extent() of a field parameter (or of its agile field).
  if (auto parent = constant_extent(protocol.getArg(0), ctx_)) {
    spec.parent = std::move(*parent);
  } else {
    const auto* call = llvm::dyn_cast<clang::CXXMemberCallExpr>(strip(protocol.getArg(0)));
    const clang::ValueDecl* object =
        call && call->getMethodDecl() && call->getMethodDecl()->getName() == "extent"
            ? referenced_decl(call->getImplicitObjectArgument())
            : nullptr;
    if (!object)
      return std::nullopt;
    const std::string name = object->getNameAsString();
    if (llvm::isa<clang::ParmVarDecl>(object) && s2p_template_name(object->getType()) == "field")
      spec.parent_parameter = name;
    else if (const auto known = source_parameter_.find(name); known != source_parameter_.end())
      spec.parent_parameter = known->second;
    else
      return std::nullopt;
  }
  if (segmented) {
    auto segment = constant_extent(protocol.getArg(1), ctx_);
    if (!segment)
      return std::nullopt;
    spec.segment = std::move(*segment);
  } else if (split) {
    auto splits = constant_splits(protocol.getArg(1), ctx_);
    if (!splits)
      return std::nullopt;
    spec.splits = std::move(*splits);
  }
  const auto tiles = integer(protocol.getArg(tiles_arg));
  if (!tiles)
    return std::nullopt;
  spec.tiles = static_cast<int>(*tiles);
  if (protocol.getNumArgs() > tiles_arg + 1) {
    const auto order = integer(protocol.getArg(tiles_arg + 1));
    if (!order)
      return std::nullopt;
    spec.columns = *order != 0;
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const clang::CXXMemberCallExpr& member = **it;
    ir::MapSpec::Refinement step;
    if (!member.getMethodDecl() || member.getNumArgs() != 1)
      return std::nullopt;
    using Method = ir::MapSpec::Refinement::Method;
    const std::string method = member.getMethodDecl()->getNameAsString();
    if (method == "weights") {
      step.method = Method::Weights;
      const clang::InitListExpr* list = braced_list(member.getArg(0));
      if (!list)
        return std::nullopt;
      for (const clang::Expr* weight : list->inits()) {
        llvm::APFloat value(0.0);
        if (!weight->EvaluateAsFloat(value, ctx_))
          return std::nullopt;
        step.weights.push_back(value.convertToDouble());
      }
    } else if (method == "memory_blocks" || method == "algorithmic_blocks") {
      step.method = method == "memory_blocks" ? Method::MemoryBlocks : Method::AlgorithmicBlocks;
      auto extent = constant_extent(member.getArg(0), ctx_);
      if (!extent)
        return std::nullopt;
      step.extent = std::move(*extent);
    } else {
      return std::nullopt;
    }
    spec.refinements.push_back(std::move(step));
  }
  return spec;
}

} // namespace s2p::frontend
