// Carried dependences and fusion conflicts: pairs of distinct index points touching one
// element, at least one writing. With q the sink's index point and p the source's, the
// conflicting pairs of two accesses are
//   { q -> p : sink(q) and source(p) share an element, q != p }
// = sink ; source^-1 minus the identity, computed exactly by isl for all parameter values.

#include <algorithm>
#include <stdexcept>

#include "access/access_relations.h"
#include "access/isl_objects.h"

namespace s2p::access {

using detail::copy;
using detail::IslContext;
using detail::IslNames;
using detail::Own;

namespace {

// One pair of accesses whose conflicts are asked about.
struct Pair {
  const Statement& sink_statement;
  const Access& sink;
  const Statement& source_statement;
  const Access& source;
};

// "[p0, p1] -> { : p0 = 3 and p1 = 5 }" (there is at least one parameter).
Own<isl_set> parameter_values(const IslContext& ctx, const IslNames& names,
                              const std::vector<std::int64_t>& values) {
  std::string conditions;
  for (std::size_t p = 0; p < values.size(); ++p)
    conditions += (p ? " and p" : " : p") + std::to_string(p) + " = " + std::to_string(values[p]);
  return ctx.read_set(names.prefix() + "{ " + conditions + " }");
}

std::string tuple_of(const std::vector<std::int64_t>& values) {
  std::string text;
  for (const std::int64_t v : values)
    text += (text.empty() ? "" : ", ") + std::to_string(v);
  return text;
}

// The elements that the sink touches at q and the source at p, parameters fixed; the least.
std::vector<std::int64_t> shared_element(const IslContext& ctx, const IslNames& names,
                                         const Own<isl_map>& sink, const Own<isl_map>& source,
                                         const Dependence& d,
                                         const std::vector<std::int64_t>& parameters) {
  const auto at = [&](const Own<isl_map>& map, const std::vector<std::int64_t>& point) {
    auto where = ctx.read_set(names.prefix() + "{ S[" + tuple_of(point) + "] }");
    return ctx.own(isl_map_range(isl_map_intersect_domain(copy(map), where.release())));
  };
  auto elements = ctx.own(isl_set_intersect(at(sink, d.sink_iteration).release(),
                                            at(source, d.source_iteration).release()));
  if (!parameters.empty())
    elements = ctx.own(isl_set_intersect_params(
        elements.release(), parameter_values(ctx, names, parameters).release()));
  return detail::witness_point(ctx, ctx.own(isl_set_project_out_all_params(elements.release())));
}

// Fills the witness: the least (parameters, sink iteration, source iteration) of `pairs`.
std::vector<std::int64_t> fill_witness(const IslContext& ctx, const IslNames& names,
                                       const Own<isl_map>& pairs, std::size_t rank, Dependence& d) {
  auto flat = ctx.own(isl_set_flatten(isl_map_wrap(copy(pairs))));
  const auto np = static_cast<unsigned>(names.parameters().size());
  // Parameters first, so the smallest parameter values that conflict are the witness's.
  flat = ctx.own(isl_set_move_dims(flat.release(), isl_dim_set, 0, isl_dim_param, 0, np));
  const std::vector<std::int64_t> point = detail::witness_point(ctx, std::move(flat));
  const std::vector<std::int64_t> parameters(point.begin(), point.begin() + np);
  for (std::size_t p = 0; p < np; ++p)
    d.parameters[names.parameters()[p]] = parameters[p];
  const auto first = point.begin() + static_cast<std::ptrdiff_t>(np);
  d.sink_iteration.assign(first, first + static_cast<std::ptrdiff_t>(rank));
  d.source_iteration.assign(first + static_cast<std::ptrdiff_t>(rank), point.end());
  for (std::size_t k = 0; k < rank; ++k)
    d.distance.push_back(d.source_iteration[k] - d.sink_iteration[k]);
  return parameters;
}

// Whether every conflicting pair, for every parameter value, is at the witness's distance.
bool uniform_distance(const IslContext& ctx, const IslNames& names, const Own<isl_map>& pairs,
                      const std::vector<std::int64_t>& distance) {
  const auto deltas = ctx.own(isl_map_deltas(copy(pairs)));
  const auto only = ctx.read_set(names.prefix() + "{ S[" + tuple_of(distance) + "] }");
  return ctx.check(isl_set_is_subset(deltas.get(), only.get()));
}

// The conflicting pairs in the user's names, for dumps and messages.
std::string relation_text(const IslContext& ctx, const IslNames& names, const Own<isl_map>& pairs,
                          const Pair& pair) {
  isl_map* m = isl_map_set_tuple_name(copy(pairs), isl_dim_in, pair.sink_statement.name.c_str());
  m = isl_map_set_tuple_name(m, isl_dim_out, pair.source_statement.name.c_str());
  const auto rank = static_cast<std::size_t>(pair.sink_statement.domain.index_rank);
  for (std::size_t k = 0; k < rank; ++k) {
    const auto pos = static_cast<unsigned>(k);
    m = isl_map_set_dim_name(m, isl_dim_in, pos, pair.sink_statement.domain.dimensions[k].c_str());
    m = isl_map_set_dim_name(m, isl_dim_out, pos,
                             pair.source_statement.domain.dimensions[k].c_str());
  }
  for (std::size_t p = 0; p < names.parameters().size(); ++p)
    m = isl_map_set_dim_name(m, isl_dim_param, static_cast<unsigned>(p),
                             names.parameters()[p].c_str());
  return detail::to_text(ctx, ctx.own(m));
}

std::string iteration_text(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts)
    text += (text.empty() ? "" : ", ") + part;
  return "(" + text + ")";
}

std::vector<std::string> numbers(const std::vector<std::int64_t>& values) {
  std::vector<std::string> parts;
  for (const std::int64_t v : values)
    parts.push_back(std::to_string(v));
  return parts;
}

// "iteration (i0, i1) reads A(i0, i1 - 1), which iteration (i0, i1 - 1) writes": symbolic
// when the distance is uniform, the witness's values otherwise.
std::string message(const Pair& pair, const Dependence& d) {
  const Domain& domain = pair.sink_statement.domain;
  std::vector<std::string> sink_at, source_at, element;
  if (d.uniform) {
    for (std::size_t k = 0; k < d.distance.size(); ++k) {
      sink_at.push_back(domain.dimensions[k]);
      source_at.push_back(format_affine(AffineExpr::variable(k, d.distance[k]), domain));
    }
    for (const AffineExpr& e : pair.sink.index)
      element.push_back(format_affine(e, domain));
  } else {
    sink_at = numbers(d.sink_iteration);
    source_at = numbers(d.source_iteration);
    element = numbers(d.element);
  }
  const bool fused = &pair.sink_statement != &pair.source_statement;
  const auto of = [fused](const Statement& s) {
    return fused ? " of " + s.name : std::string();
  };
  const bool both_write =
      pair.sink.kind == Access::Kind::Write && pair.source.kind == Access::Kind::Write;
  std::string text = "iteration " + iteration_text(sink_at) + of(pair.sink_statement) + " " +
                     (pair.sink.kind == Access::Kind::Read ? "reads " : "writes ") +
                     pair.sink.field + iteration_text(element) + ", which iteration " +
                     iteration_text(source_at) + of(pair.source_statement) +
                     (both_write                               ? " also writes"
                      : pair.source.kind == Access::Kind::Read ? " reads"
                                                               : " writes");
  if (!d.uniform && !d.parameters.empty()) {
    std::string values;
    for (const auto& [name, value] : d.parameters) {
      // A kernel's value keeps its name; an extent ("n0") is named as the user would write it.
      const auto label = domain.parameter_labels.find(name);
      values += (values.empty() ? "" : ", ") +
                (label != domain.parameter_labels.end() ? label->second : name) + " = " +
                std::to_string(value);
    }
    text += " (with " + values + ")";
  }
  return text;
}

std::optional<Dependence> conflict(const IslContext& ctx, const IslNames& names, const Pair& pair) {
  const auto sink = detail::index_access_map(ctx, names, pair.sink_statement, pair.sink);
  const auto source = detail::index_access_map(ctx, names, pair.source_statement, pair.source);
  auto pairs = ctx.own(isl_map_apply_range(copy(sink), isl_map_reverse(copy(source))));
  // Both statements' index points live in one space (tuple S), so the identity is "same point".
  auto same_point = ctx.own(isl_map_identity(isl_map_get_space(pairs.get())));
  pairs = ctx.own(isl_map_subtract(pairs.release(), same_point.release()));
  if (ctx.check(isl_map_is_empty(pairs.get())))
    return std::nullopt;

  Dependence d;
  d.sink_statement = pair.sink_statement.name;
  d.source_statement = pair.source_statement.name;
  d.sink = pair.sink;
  d.source = pair.source;
  const auto rank = static_cast<std::size_t>(pair.sink_statement.domain.index_rank);
  const std::vector<std::int64_t> parameters = fill_witness(ctx, names, pairs, rank, d);
  d.element = shared_element(ctx, names, sink, source, d, parameters);
  d.uniform = uniform_distance(ctx, names, pairs, d.distance);
  d.relation = relation_text(ctx, names, pairs, pair);
  d.message = message(pair, d);
  return d;
}

} // namespace

std::optional<Dependence> carried_dependence(const Statement& statement) {
  detail::validate(statement);
  const IslContext ctx;
  const IslNames names = IslNames::of({&statement});
  for (const Access& sink : statement.accesses)
    for (const Access& source : statement.accesses) {
      if (source.kind != Access::Kind::Write || source.field != sink.field)
        continue;
      if (auto d = conflict(ctx, names, {statement, sink, statement, source}))
        return d;
    }
  return std::nullopt;
}

std::optional<Dependence> fusion_conflict(const Statement& earlier, const Statement& later) {
  detail::validate(earlier);
  detail::validate(later);
  if (earlier.domain.index_rank != later.domain.index_rank)
    throw std::invalid_argument("fusion of " + earlier.name + " and " + later.name +
                                ": index ranks differ");
  const IslContext ctx;
  const IslNames names = IslNames::of({&earlier, &later});
  for (const Access& sink : later.accesses)
    for (const Access& source : earlier.accesses) {
      if (source.field != sink.field)
        continue;
      if (source.kind == Access::Kind::Read && sink.kind == Access::Kind::Read)
        continue;
      if (auto d = conflict(ctx, names, {later, sink, earlier, source}))
        return d;
    }
  return std::nullopt;
}

} // namespace s2p::access
