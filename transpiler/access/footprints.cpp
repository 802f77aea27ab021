// Footprints: the elements of one field that a block of index points touches, body loop
// variables quantified existentially (the image of the block under the union of the field's
// index-level access relations), with the parameters fixed to given values.

#include <isl/ilp.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "access/access_relations.h"
#include "access/isl_objects.h"

namespace s2p::access {

using detail::copy;
using detail::IslContext;
using detail::IslNames;
using detail::Own;

namespace {

// The rank of `field` in the statement's accesses (all must agree); nullopt when unaccessed.
std::optional<std::size_t> field_rank(const Statement& s, const std::string& field) {
  std::optional<std::size_t> rank;
  for (const Access& a : s.accesses) {
    if (a.field != field)
      continue;
    if (rank && *rank != a.index.size())
      throw std::invalid_argument("statement " + s.name + " accesses " + field +
                                  " with different ranks");
    rank = a.index.size();
  }
  return rank;
}

// "x0 >= l0 and x0 <= u0 - 1 and ..." for a half-open box.
std::string box_conditions(const Box& box) {
  std::string text;
  for (std::size_t d = 0; d < box.lower.size(); ++d) {
    const std::string x = "x" + std::to_string(d);
    text += (d ? " and " : "") + x + " >= " + std::to_string(box.lower[d]) + " and " + x +
            " <= " + std::to_string(box.upper[d] - 1);
  }
  return text.empty() ? text : " : " + text;
}

Own<isl_set> fix_parameters(const IslContext& ctx, const IslNames& names, Own<isl_set> set,
                            const ParameterValues& values, const std::string& field) {
  std::string conditions;
  for (std::size_t p = 0; p < names.parameters().size(); ++p) {
    const auto it = values.find(names.parameters()[p]);
    if (it == values.end())
      throw std::invalid_argument("the footprint of " + field + " needs a value for parameter " +
                                  names.parameters()[p]);
    conditions += (p ? " and p" : " : p") + std::to_string(p) + " = " + std::to_string(it->second);
  }
  if (conditions.empty())
    return set;
  auto fixed = ctx.read_set(names.prefix() + "{ " + conditions + " }");
  set = ctx.own(isl_set_intersect_params(set.release(), fixed.release()));
  return ctx.own(isl_set_project_out_all_params(set.release()));
}

// The footprint as an isl set { F[...] } without parameters (rank 0 when `field` is never
// accessed, which gives an empty set).
Own<isl_set> footprint_set(const IslContext& ctx, const Statement& s, const std::string& field,
                           Access::Kind kind, const Box& block, const ParameterValues& values) {
  detail::validate(s);
  const auto index_rank = static_cast<std::size_t>(s.domain.index_rank);
  if (block.lower.size() != index_rank || block.upper.size() != index_rank)
    throw std::invalid_argument("the index block for " + s.name + " is not of rank " +
                                std::to_string(index_rank));
  const IslNames names = IslNames::of({&s});
  const std::size_t rank = field_rank(s, field).value_or(0);
  auto relation = ctx.read_map(names.prefix() + "{ S[" + detail::tuple_variables(index_rank) +
                               "] -> F[" + detail::tuple_variables(rank) + "] : 1 = 0 }");
  for (const Access& a : s.accesses)
    if (a.field == field && a.kind == kind)
      relation = ctx.own(
          isl_map_union(relation.release(), detail::index_access_map(ctx, names, s, a).release()));
  auto where = ctx.read_set(names.prefix() + "{ S[" + detail::tuple_variables(index_rank) + "]" +
                            box_conditions(block) + " }");
  auto image = ctx.own(isl_set_apply(where.release(), relation.release()));
  return fix_parameters(ctx, names, std::move(image), values, field);
}

Box bounding_box(const IslContext& ctx, const Own<isl_set>& set) {
  const int rank = isl_set_dim(set.get(), isl_dim_set);
  Box box;
  if (ctx.check(isl_set_is_empty(set.get()))) {
    box.lower.assign(static_cast<std::size_t>(rank), 0);
    box.upper = box.lower;
    return box;
  }
  for (int d = 0; d < rank; ++d) {
    box.lower.push_back(detail::to_int64(ctx, ctx.own(isl_set_dim_min_val(copy(set), d))));
    box.upper.push_back(detail::to_int64(ctx, ctx.own(isl_set_dim_max_val(copy(set), d))) + 1);
  }
  return box;
}

// The pieces of `set` as boxes, or nullopt when a piece is not a box.
std::optional<std::vector<Box>> as_boxes(const IslContext& ctx, const Own<isl_set>& set) {
  const auto list = ctx.own(isl_set_get_basic_set_list(set.get()));
  const isl_size n = isl_basic_set_list_size(list.get());
  if (n < 0)
    ctx.fail();
  std::vector<Box> boxes;
  for (int i = 0; i < n; ++i) {
    const auto piece = ctx.own(isl_set_from_basic_set(isl_basic_set_list_get_at(list.get(), i)));
    Box box = bounding_box(ctx, piece);
    const auto box_set = ctx.read_set("{ F[" + detail::tuple_variables(box.lower.size()) + "]" +
                                      box_conditions(box) + " }");
    if (!ctx.check(isl_set_is_equal(piece.get(), box_set.get())))
      return std::nullopt;
    boxes.push_back(std::move(box));
  }
  std::sort(boxes.begin(), boxes.end(), [](const Box& a, const Box& b) {
    return std::tie(a.lower, a.upper) < std::tie(b.lower, b.upper);
  });
  return boxes;
}

std::optional<std::vector<Box>> disjoint_boxes(const IslContext& ctx, Own<isl_set> set) {
  // Coalescing first merges pieces isl split apart; the disjoint pieces of a union of boxes
  // are boxes again (isl subtracts one axis-aligned constraint at a time).
  set = ctx.own(isl_set_coalesce(set.release()));
  set = ctx.own(isl_set_make_disjoint(set.release()));
  return as_boxes(ctx, set);
}

} // namespace

Box footprint(const Statement& statement, const std::string& field, Access::Kind kind,
              const Box& index_block, const ParameterValues& parameters) {
  const IslContext ctx;
  return bounding_box(ctx, footprint_set(ctx, statement, field, kind, index_block, parameters));
}

std::optional<std::vector<Box>> footprint_boxes(const Statement& statement,
                                                const std::string& field, Access::Kind kind,
                                                const Box& index_block,
                                                const ParameterValues& parameters) {
  const IslContext ctx;
  return disjoint_boxes(ctx, footprint_set(ctx, statement, field, kind, index_block, parameters));
}

std::int64_t footprint_size(const Statement& statement, const std::string& field, Access::Kind kind,
                            const Box& index_block, const ParameterValues& parameters) {
  const IslContext ctx;
  auto set = footprint_set(ctx, statement, field, kind, index_block, parameters);
  if (const auto boxes = disjoint_boxes(ctx, ctx.own(copy(set)))) {
    std::int64_t size = 0;
    for (const Box& box : *boxes)
      size += volume(box);
    return size;
  }
  // No union of boxes: isl counts the points (bounded, parameter-free sets only).
  return detail::to_int64(ctx, ctx.own(isl_set_count_val(set.get())));
}

} // namespace s2p::access
