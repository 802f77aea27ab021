#include "access/tile_step_relations.h"

#include <algorithm>
#include <stdexcept>
#include <optional>

namespace s2p::access {

namespace {

using ir::TileStep;

// The data a field names: its kernel parameter, else the variable itself.
std::string data_of(const ir::MultiTile& multi, const std::string& field) {
  const auto it = multi.distributed.find(field);
  return it == multi.distributed.end() ? field : it->second.parameter;
}

// The index domain of the steps: the output's extent when every call fixes it, else one
// parameter per coordinate ("n0", "n1", ...). A forall over tile blocks counts blocks, whose
// number the planner knows only with the map, so its domain is symbolic.
Domain index_domain(const ir::MultiTile& multi, const TileStep& head) {
  const auto extents = multi.parameter_extents.find(data_of(multi, head.output));
  if (!head.local_global && extents != multi.parameter_extents.end() &&
      static_cast<int>(extents->second.size()) == head.rank)
    return Domain::box(std::vector<std::int64_t>(static_cast<std::size_t>(head.rank), 0),
                       extents->second);
  std::vector<AffineExpr> lower, upper;
  std::vector<std::string> parameters;
  for (int d = 0; d < head.rank; ++d) {
    lower.push_back(AffineExpr::value(0));
    upper.push_back(AffineExpr::parameter(static_cast<std::size_t>(d)));
    parameters.push_back("n" + std::to_string(d));
  }
  Domain domain = Domain::box(lower, upper, parameters);
  for (int d = 0; d < head.rank; ++d)
    domain.parameter_labels["n" + std::to_string(d)] =
        "the forall's extent[" + std::to_string(d) + "]";
  return domain;
}

class Lowering {
public:
  Lowering(const ir::MultiTile& multi, StepRelations& out) : multi_(multi), out_(out) {}

  void add_step(const TileStep& step, std::size_t index) {
    if (step.kind != TileStep::Kind::Forall)
      throw std::invalid_argument("access relations: step " + std::to_string(index) +
                                  " is not a forall");
    TileStep::IndexMap own = TileStep::IndexMap::own(step.rank);
    if (step.output_write_guards.empty())
      add(Access::Kind::Write, step.output, own, index);
    for (const std::vector<TileStep::IndexBound>& guard : step.output_write_guards) {
      own.guard = guard; // one write access per write the body makes, under its `if`s
      add(Access::Kind::Write, step.output, own, index);
    }
    for (const TileStep::Read& read : step.reads)
      for (const TileStep::IndexMap& map : read.maps) {
        add(Access::Kind::Read, read.field, map, index);
        if (read.written) // a further output: read and written at the task's own index
          add(Access::Kind::Write, read.field, map, index);
      }
  }

private:
  // One coordinate per index map entry: i[axis] + offset, or a new body loop's variable over
  // [offset, offset + span) for a loop axis; over the field's whole axis d, [0, e_<field>_d),
  // for a loop whose bounds only the running kernel knows (its extent a parameter).
  // A loop whose bounds are kernel values runs over the whole axis in the domain, and
  // `range_constraints` receive lower <= k < upper for this access alone: the domain is the
  // statement's, and an empty range (k from row + 1 to m in the last row) must not take away
  // the body's other accesses.
  std::vector<AffineExpr> coordinates(const TileStep::IndexMap& map, const std::string& field,
                                      std::vector<Constraint>& range_constraints) {
    std::vector<AffineExpr> index;
    for (std::size_t d = 0; d < map.axis.size(); ++d) {
      if (d < map.symbol.size() && map.symbol[d]) { // a kernel value: a symbol, not a range
        index.push_back(
            AffineExpr::parameter(value_parameter(map.symbol[d]->name), map.symbol[d]->offset));
        continue;
      }
      const std::int64_t span = d < map.span.size() ? map.span[d] : 0;
      if (map.axis[d] != TileStep::kLoopAxis) {
        auto at = map.scale_of(d) * AffineExpr::variable(static_cast<std::size_t>(map.axis[d])) +
                  map.offset[d];
        if (d < map.shift.size() && map.shift[d]) { // plus or minus a kernel value: a parameter
          const auto& shift = *map.shift[d];
          const AffineExpr value =
              AffineExpr::parameter(value_parameter(shift.value.name), shift.value.offset);
          at = shift.subtracted ? at - value : at + value;
        }
        // A window of the index: i[axis] + offset + k, k a new body loop over [0, span).
        index.push_back(span > 0 ? at + AffineExpr::variable(add_body_loop(0, span)) : at);
        continue;
      }
      Domain& domain = out_.statement.domain;
      const std::size_t loop = domain.dimensions.size();
      const std::string name =
          "k" + std::to_string(loop - static_cast<std::size_t>(domain.index_rank));
      if (d < map.range.size() && map.range[d]) { // bounds the launch knows: lower <= k < upper
        const AffineExpr k = AffineExpr::variable(loop);
        if (const auto lower = range_bound(map.range[d]->lower))
          range_constraints.push_back(Constraint::non_negative(k - *lower));
        if (const auto upper = range_bound(map.range[d]->upper))
          range_constraints.push_back(Constraint::non_negative(*upper - 1 - k));
      }
      if (map.span.at(d) == TileStep::kWholeAxis)
        domain.add_loop(name, AffineExpr::value(0),
                        AffineExpr::parameter(extent_parameter(field, d)));
      else
        domain.add_loop(name, AffineExpr::value(map.offset[d]),
                        AffineExpr::value(map.offset[d] + map.span.at(d)));
      index.push_back(AffineExpr::variable(loop));
    }
    return index;
  }
  // A new loop of the body over [first, first + span): its dimension.
  std::size_t add_body_loop(std::int64_t first, std::int64_t span) {
    Domain& domain = out_.statement.domain;
    const std::size_t loop = domain.dimensions.size();
    domain.add_loop("k" + std::to_string(loop - static_cast<std::size_t>(domain.index_rank)),
                    AffineExpr::value(first), AffineExpr::value(first + span));
    return loop;
  }
  // The parameter standing for axis d of `field`'s extent, added once.
  std::size_t extent_parameter(const std::string& field, std::size_t d) {
    Domain& domain = out_.statement.domain;
    const std::string name = "e_" + field + "_" + std::to_string(d);
    const auto at = std::find(domain.parameters.begin(), domain.parameters.end(), name);
    if (at != domain.parameters.end())
      return static_cast<std::size_t>(at - domain.parameters.begin());
    domain.parameters.push_back(name);
    domain.parameter_labels[name] = field + ".extent()[" + std::to_string(d) + "]";
    return domain.parameters.size() - 1;
  }
  // The parameter standing for a kernel's value (any integer), added once.
  std::size_t value_parameter(const std::string& name) {
    Domain& domain = out_.statement.domain;
    const auto at = std::find(domain.parameters.begin(), domain.parameters.end(), name);
    if (at != domain.parameters.end())
      return static_cast<std::size_t>(at - domain.parameters.begin());
    domain.parameters.push_back(name);
    domain.value_parameters.push_back(name);
    return domain.parameters.size() - 1;
  }
  // A bound of a body loop's range as the relations read it: a constant, a kernel value, a
  // field's extent or a coordinate of the index; nothing for any other value (the bound is left
  // out, which only widens).
  std::optional<AffineExpr> range_bound(const TileStep::RangeBound& bound) {
    if (bound.constant)
      return AffineExpr::value(*bound.constant);
    if (bound.index) {
      AffineExpr at =
          AffineExpr::variable(static_cast<std::size_t>(bound.index->axis), bound.index->offset);
      const auto added = ir::launch_part(bound);
      if (!added)
        return at;
      const auto value = range_bound(*added);
      if (!value)
        return std::nullopt;
      return bound.subtracted ? at - *value : at + *value;
    }
    if (bound.symbol)
      return AffineExpr::parameter(value_parameter(bound.symbol->name), bound.symbol->offset);
    if (bound.extent)
      return AffineExpr::parameter(
          extent_parameter(data_of(multi_, bound.extent->field),
                           static_cast<std::size_t>(bound.extent->axis)),
          bound.extent->offset);
    return std::nullopt;
  }
  // The value a bound compares the index with, as the relations read it: a constant, a
  // kernel value (a symbol) or another coordinate; nothing for a value only the running kernel
  // computes, whose bound is left out (which only widens what the relation says it touches).
  std::optional<AffineExpr> bound_value(const TileStep::IndexBound& bound) {
    if (bound.constant)
      return AffineExpr::value(*bound.constant);
    if (bound.symbol)
      return AffineExpr::parameter(value_parameter(bound.symbol->name), bound.symbol->offset);
    if (bound.against)
      return AffineExpr::variable(static_cast<std::size_t>(bound.against->axis),
                                  bound.against->offset);
    return std::nullopt;
  }
  // The guard as alternatives, each a conjunction: one, or two per `!=` (below the value, or
  // above it), up to kMostAlternatives (a `!=` left out only widens the access).
  static constexpr std::size_t kMostAlternatives = 16;
  std::vector<std::vector<Constraint>> guard_alternatives(
      const std::vector<TileStep::IndexBound>& bounds) {
    std::vector<std::vector<Constraint>> alternatives{guard_constraints(bounds)};
    for (const TileStep::IndexBound& bound : bounds) {
      const std::optional<AffineExpr> value = bound.excluded ? bound_value(bound) : std::nullopt;
      if (!value || alternatives.size() >= kMostAlternatives)
        continue;
      const AffineExpr at = AffineExpr::variable(static_cast<std::size_t>(bound.axis));
      std::vector<std::vector<Constraint>> split;
      for (const std::vector<Constraint>& conjunction : alternatives)
        for (const Constraint& side :
             {Constraint::non_negative(*value - 1 - at), Constraint::non_negative(at - *value - 1)}) {
          split.push_back(conjunction);
          split.back().push_back(side);
        }
      alternatives = std::move(split);
    }
    return alternatives;
  }
  // The guard's bounds other than `!=`, as one conjunction.
  std::vector<Constraint> guard_constraints(const std::vector<TileStep::IndexBound>& bounds) {
    std::vector<Constraint> guard;
    for (const TileStep::IndexBound& bound : bounds) {
      const std::optional<AffineExpr> value = bound.excluded ? std::nullopt : bound_value(bound);
      if (!value)
        continue;
      const AffineExpr at = AffineExpr::variable(static_cast<std::size_t>(bound.axis));
      guard.push_back(Constraint::non_negative(bound.upper ? *value - 1 - at : at - *value));
    }
    return guard;
  }
  void add(Access::Kind kind, const std::string& view, const TileStep::IndexMap& map,
           std::size_t step) {
    const std::string where = std::to_string(out_.origins.size());
    out_.origins.push_back({step, view, index_text(map)});
    const std::string field = data_of(multi_, view);
    std::vector<Constraint> range_constraints;
    const std::vector<AffineExpr> index = coordinates(map, field, range_constraints);
    for (std::vector<Constraint> guard : guard_alternatives(map.guard)) {
      guard.insert(guard.end(), range_constraints.begin(), range_constraints.end());
      out_.statement.accesses.push_back(kind == Access::Kind::Read
                                            ? Access::read(field, index, guard, where)
                                            : Access::write(field, index, guard, where));
    }
  }

  const ir::MultiTile& multi_;
  StepRelations& out_;
};

} // namespace

const AccessOrigin& StepRelations::origin_of(const Access& access) const {
  return origins.at(static_cast<std::size_t>(std::stoul(access.where)));
}

StepRelations tile_step_relations(const ir::MultiTile& multi, std::size_t first,
                                  std::size_t count) {
  if (count == 0 || first + count > multi.steps.size())
    throw std::invalid_argument("access relations: steps " + std::to_string(first) + ".." +
                                std::to_string(first + count) + " of a kernel with " +
                                std::to_string(multi.steps.size()));
  const TileStep& head = multi.steps[first];
  StepRelations out;
  out.statement.name = "S" + std::to_string(first);
  out.statement.domain = index_domain(multi, head);
  Lowering lowering(multi, out);
  for (std::size_t k = first; k < first + count; ++k)
    lowering.add_step(multi.steps[k], k);
  return out;
}

std::string index_text(const TileStep::IndexMap& map) {
  const bool one = map.axis.size() == 1;
  std::string out = one ? "" : "(";
  for (std::size_t d = 0; d < map.axis.size(); ++d) {
    const int axis = map.axis[d];
    out += d ? ", " : "";
    if (d < map.symbol.size() && map.symbol[d]) { // a kernel value
      out += ir::to_string(*map.symbol[d]);
      continue;
    }
    if (axis == TileStep::kLoopAxis && map.span.at(d) == 1) { // a fixed coordinate
      out += std::to_string(map.offset[d]);
      continue;
    }
    if (axis != TileStep::kLoopAxis && map.scale_of(d) != 1)
      out += std::to_string(map.scale_of(d)) + "*";
    out += axis == TileStep::kLoopAxis ? "k"
           : (one && axis == 0)       ? "i"
                                        : "i" + std::to_string(axis);
    if (d < map.range.size() && map.range[d]) { // k over [lower, upper), kernel values
      out += " in [" + ir::to_string(map.range[d]->lower) + ", " +
             ir::to_string(map.range[d]->upper) + ")";
      continue;
    }
    const bool whole = axis == TileStep::kLoopAxis && map.span.at(d) == TileStep::kWholeAxis;
    if (d < map.shift.size() && map.shift[d]) // i + lag, i - lag
      out += (map.shift[d]->subtracted ? "-" : "+") + ir::to_string(map.shift[d]->value);
    if (map.offset[d] != 0 && !whole)
      out += (map.offset[d] > 0 ? "+" : "") + std::to_string(map.offset[d]);
    if (axis != TileStep::kLoopAxis && d < map.span.size() && map.span[d] > 0) // a window
      out += "+k";
  }
  return one ? out : out + ")";
}

} // namespace s2p::access
