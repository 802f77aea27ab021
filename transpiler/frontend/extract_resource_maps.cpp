// Resource maps (s2p::resource_map protocol calls and refinements): checked as the
// runtime checks them, and recorded as an ir::MapSpec when their sizes are constants.
#include "frontend/kernel_extractor_impl.h"
#include "frontend/s2p_types.h"

#include <clang/AST/RecursiveASTVisitor.h>

#include <seq2par/distribution.h>

#include <algorithm>
#include <functional>
#include <map>

// One-character prefixes of a temporary std::string are chars ('\'' + name, 'i' + bits), not
// string literals: GCC 12 reports a false -Wrestrict or -Wstringop-overflow for "'" + name
// (GCC bug 105651).

namespace s2p::frontend {

// A resource map's declaration: the protocol call under its refinement chain
// (.weights(...).memory_blocks(...).algorithmic_blocks(...)), with each size that is a
// constant and the argument it came from (where a broken rule is reported).
struct MapDeclaration {
  const clang::CallExpr* protocol = nullptr;
  std::vector<const clang::CXXMemberCallExpr*> chain; // outermost call first
  const clang::Expr* tiles_arg = nullptr;
  std::optional<std::int64_t> tiles; // when tiles_arg is a constant
  const clang::Expr* segment_arg = nullptr;
  std::optional<std::vector<std::int64_t>> segment;
  const clang::Expr* splits_arg = nullptr;
  std::optional<std::vector<std::vector<std::int64_t>>> splits;
  const clang::Expr* memory_arg = nullptr;
  std::optional<std::vector<std::int64_t>> memory;
  const clang::Expr* algorithmic_arg = nullptr;
  std::optional<std::vector<std::int64_t>> algorithmic;
  const clang::Expr* weights_arg = nullptr;
  const clang::InitListExpr* weights_list = nullptr; // a braced list: its count is known
};

std::optional<MapDeclaration>
KernelExtractor::Impl::read_map_declaration(const clang::VarDecl& var) const {
  if (!var.hasInit())
    return std::nullopt;
  MapDeclaration map;
  const clang::Expr* e = strip(var.getInit());
  while (const auto* member = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    const std::string name =
        member->getMethodDecl() ? member->getMethodDecl()->getNameAsString() : "";
    map.chain.push_back(member);
    const clang::Expr* arg = member->getNumArgs() == 1 ? member->getArg(0) : nullptr;
    if (arg && name == "memory_blocks" && !map.memory_arg)
      map.memory_arg = arg, map.memory = constant_extent(arg, ctx_);
    else if (arg && name == "algorithmic_blocks" && !map.algorithmic_arg)
      map.algorithmic_arg = arg, map.algorithmic = constant_extent(arg, ctx_);
    else if (arg && name == "weights" && !map.weights_arg)
      map.weights_arg = arg, map.weights_list = braced_list(arg);
    e = strip(member->getImplicitObjectArgument());
  }
  map.protocol = llvm::dyn_cast<clang::CallExpr>(e);
  const clang::FunctionDecl* callee = map.protocol ? map.protocol->getDirectCallee() : nullptr;
  if (!callee || !callee->getParent() ||
      s2p_template_name(ctx_.getRecordType(llvm::cast<clang::RecordDecl>(callee->getParent()))) !=
          "resource_map")
    return std::nullopt;
  const std::string name = callee->getNameAsString();
  const unsigned args = map.protocol->getNumArgs();
  if ((name == "block_cyclic" || name == "block_block") && args >= 3) {
    map.segment_arg = map.protocol->getArg(1);
    map.segment = constant_extent(map.segment_arg, ctx_);
    map.tiles_arg = map.protocol->getArg(2);
  } else if ((name == "block" || name == "cyclic") && args >= 2) {
    map.tiles_arg = map.protocol->getArg(1);
  } else if (name == "split_points" && args >= 3) {
    map.splits_arg = map.protocol->getArg(1);
    map.splits = constant_splits(map.splits_arg, ctx_);
    map.tiles_arg = map.protocol->getArg(2);
  }
  clang::Expr::EvalResult tiles_value;
  if (map.tiles_arg && map.tiles_arg->EvaluateAsInt(tiles_value, ctx_))
    map.tiles = tiles_value.Val.getInt().getExtValue();
  return map;
}

// A resource map whose sizes are constants is checked here with the rules the runtime
// enforces when it builds the map (s2p::map_rules), so the mistake is a diagnostic at the
// argument instead of a run-time error; plus one rule of the kernel's own: a map deals to no
// more tiles than the kernel spans.
void KernelExtractor::Impl::check_resource_map(const clang::VarDecl& var, ir::MultiTile& multi) {
  const std::optional<MapDeclaration> map = read_map_declaration(var);
  if (!map)
    return;
  if (!check_map_rules(*map, "resource map '" + var.getNameAsString() + "'", multi.tiles))
    return;
  if (map->tiles)
    map_tiles_[var.getNameAsString()] = static_cast<int>(*map->tiles);
  if (auto spec = map_spec(*map->protocol, map->chain))
    multi.maps[var.getNameAsString()] = std::move(*spec);
}

// Reports a broken rule (`what` not empty) at `where`, prefixed with the map's name.
bool KernelExtractor::Impl::broken_rule(const clang::Expr* where, const std::string& name,
                                        const std::string& what) {
  if (what.empty())
    return false;
  error(where->getBeginLoc(), name + ": " + what);
  return true;
}

bool KernelExtractor::Impl::check_map_rules(const MapDeclaration& map, const std::string& name,
                                            int kernel_tiles) {
  auto broken = [&](const clang::Expr* where, const std::string& what) {
    return broken_rule(where, name, what);
  };
  if (map.splits)
    for (std::size_t d = 0; d < map.splits->size(); ++d)
      for (std::size_t k = 0; k < (*map.splits)[d].size(); ++k)
        if (broken(map.splits_arg,
                   map_rules::split_point(static_cast<int>(d), (*map.splits)[d][k],
                                          k ? (*map.splits)[d][k - 1] : 0, 0)))
          return false;
  const std::optional<std::int64_t>& tiles = map.tiles;
  if (tiles && (*tiles < 1 || *tiles > kernel_tiles)) {
    error(map.tiles_arg->getBeginLoc(), name + " deals its segments to " +
                                            std::to_string(*tiles) + " tiles; the kernel spans " +
                                            std::to_string(kernel_tiles) + " (S2P_TILES)");
    return false;
  }
  if (tiles && map.weights_list && map.weights_list->getNumInits() != 0 &&
      broken(map.weights_arg,
             map_rules::weight_count(map.weights_list->getNumInits(), *tiles)))
    return false;
  if (map.weights_list)
    for (const clang::Expr* weight : map.weights_list->inits()) {
      // The list's elements are doubles (integers are converted), so a constant folds to one.
      llvm::APFloat value(0.0);
      if (weight->EvaluateAsFloat(value, ctx_) &&
          broken(weight, map_rules::weight(value.convertToDouble())))
        return false;
    }
  return check_map_blocks(map, name);
}

// Block sizes: positive, and each finer decomposition dividing the one it nests in (memory
// blocks default to the segment, algorithmic blocks to the memory block).
bool KernelExtractor::Impl::check_map_blocks(const MapDeclaration& map, const std::string& name) {
  using Sizes = std::optional<std::vector<std::int64_t>>;
  auto broken = [&](const clang::Expr* where, const std::string& what) {
    return broken_rule(where, name, what);
  };
  for (const auto& [sizes, arg] : {std::pair{&map.segment, map.segment_arg},
                                   std::pair{&map.memory, map.memory_arg},
                                   std::pair{&map.algorithmic, map.algorithmic_arg}})
    if (*sizes)
      for (const std::int64_t size : **sizes)
        if (broken(arg, map_rules::block_extent(size)))
          return false;
  auto nests = [&](const Sizes& inner, const Sizes& outer, const clang::Expr* where,
                   const char* inner_name, const char* outer_name) {
    if (!where || !inner || !outer || inner->size() != outer->size())
      return true;
    for (std::size_t d = 0; d < inner->size(); ++d)
      if (broken(where, map_rules::nesting(static_cast<int>(d), (*outer)[d] % (*inner)[d] == 0,
                                           inner_name + (' ' + std::to_string((*inner)[d])),
                                           outer_name + (' ' + std::to_string((*outer)[d])))))
        return false;
    return true;
  };
  return nests(map.memory, map.segment, map.memory_arg, "memory block", "segment block") &&
         nests(map.algorithmic, map.memory ? map.memory : map.segment, map.algorithmic_arg,
               "algorithmic block", map.memory ? "memory block" : "segment block");
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
    } else if (method == "exclude_tiles") {
      step.method = Method::ExcludeTiles;
      const clang::InitListExpr* list = braced_list(member.getArg(0));
      if (!list)
        return std::nullopt;
      for (const clang::Expr* tile : list->inits()) {
        const auto value = integer(tile);
        if (!value)
          return std::nullopt;
        step.tiles.push_back(static_cast<int>(*value));
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
