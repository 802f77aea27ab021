#include "ir/kernel.h"

#include <algorithm>

namespace s2p::ir {

const char* to_string(MapProtocol protocol) {
  switch (protocol) {
  case MapProtocol::Block:
    return "block";
  case MapProtocol::Cyclic:
    return "cyclic";
  case MapProtocol::BlockBlock:
    return "block_block";
  case MapProtocol::BlockCyclic:
    return "block_cyclic";
  case MapProtocol::SplitPoints:
    return "split_points";
  }
  return "?";
}

std::optional<MapProtocol> parse_map_protocol(std::string_view name) {
  for (const auto protocol : {MapProtocol::Block, MapProtocol::Cyclic, MapProtocol::BlockBlock,
                              MapProtocol::BlockCyclic, MapProtocol::SplitPoints})
    if (name == to_string(protocol))
      return protocol;
  return std::nullopt;
}

const char* to_string(WarpRole role) {
  switch (role) {
  case WarpRole::Load:
    return "load";
  case WarpRole::Compute:
    return "compute";
  case WarpRole::Store:
    return "store";
  }
  return "?";
}

const char* library_name(TileStep::Kind kind) {
  switch (kind) {
  case TileStep::Kind::AllReduce:
    return "all_reduce";
  case TileStep::Kind::ReduceScatter:
    return "reduce_scatter";
  case TileStep::Kind::AllGather:
    return "all_gather";
  case TileStep::Kind::Forall:
    return "forall";
  }
  return "?";
}

const char* to_string(CombineOp op) {
  switch (op) {
  case CombineOp::Sum:
    return "sum";
  case CombineOp::Product:
    return "prod";
  case CombineOp::Max:
    return "max";
  case CombineOp::Min:
    return "min";
  }
  return "?";
}

std::string to_string(const ScheduleElementType& type) {
  return type ? std::string(sim::to_string(*type)) : std::string();
}

const char* to_string(AccessMode mode) {
  switch (mode) {
  case AccessMode::Read:
    return "in";
  case AccessMode::Write:
    return "out";
  case AccessMode::ReadWrite:
    return "inout";
  }
  return "?";
}

std::string to_string(const TileStep::KernelSymbol& symbol) {
  const std::int64_t by = symbol.offset;
  return symbol.variable + (by > 0 ? "+" : "") + (by != 0 ? std::to_string(by) : "");
}

std::string to_string(const TileStep::RangeBound& bound) {
  if (bound.constant)
    return std::to_string(*bound.constant);
  if (bound.index) {
    const std::int64_t by = bound.index->offset;
    const auto added = launch_part(bound);
    std::string value = added ? to_string(*added) : "";
    // A subtracted sum keeps its parentheses: i0-(behind+1)+1.
    if (bound.subtracted && value.find_first_of("+-") != std::string::npos)
      value = "(" + value + ")";
    return "i" + std::to_string(bound.index->axis) +
           (added ? (bound.subtracted ? "-" : "+") + value : "") + (by > 0 ? "+" : "") +
           (by != 0 ? std::to_string(by) : "");
  }
  if (bound.symbol)
    return to_string(*bound.symbol);
  if (!bound.extent)
    return bound.value;
  const std::int64_t by = bound.extent->offset;
  return bound.extent->field + ".extent()[" + std::to_string(bound.extent->axis) + "]" +
         (by > 0 ? "+" : "") + (by != 0 ? std::to_string(by) : "");
}

std::optional<TileStep::RangeBound> launch_part(const TileStep::RangeBound& bound) {
  if (!bound.index || (!bound.symbol && !bound.extent && bound.value.empty()))
    return std::nullopt;
  TileStep::RangeBound added = bound; // its sign is the bound's `subtracted`
  added.index.reset();
  added.subtracted = false;
  return added;
}

void TileStep::add_read(const std::string& field, const IndexMap& map) {
  auto read =
      std::find_if(reads.begin(), reads.end(), [&](const Read& r) { return r.field == field; });
  if (read == reads.end())
    read = reads.insert(reads.end(), {field, {}});
  if (std::find(read->maps.begin(), read->maps.end(), map) == read->maps.end())
    read->maps.push_back(map);
}

void TileStep::set_body(const std::string& index_parameter, const std::string& statements) {
  std::string params = index_parameter + ", auto& " + output;
  // The output's reads at other indices come in a view of their own, which the body never
  // names: it reads them through the output's view, which finds them there.
  for (const auto& r : reads)
    params += r.field == output ? std::string(", auto&") : ", auto& " + r.field;
  for (const auto& s : shared_reads)
    params += ", auto& " + s;
  body_head = "[&](" + params + ") ";
  body = body_head + statements;
}

} // namespace s2p::ir
