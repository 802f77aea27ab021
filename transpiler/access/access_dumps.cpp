// Dumps of statements: isl's text in the user's names, JSON, Graphviz.

#include <nlohmann/json.hpp>

#include <algorithm>

#include "access/access_relations.h"
#include "ir/quoted.h"
#include "access/isl_objects.h"

namespace s2p::access {

using detail::IslContext;
using detail::IslNames;
using detail::Own;

namespace {

// isl objects are built with internal names (see IslNames); dumps show the user's.
Own<isl_set> user_names(const IslContext& ctx, const IslNames& names, const Statement& s,
                        Own<isl_set> set) {
  isl_set* raw = isl_set_set_tuple_name(set.release(), s.name.c_str());
  for (std::size_t d = 0; d < s.domain.dimensions.size(); ++d)
    raw = isl_set_set_dim_name(raw, isl_dim_set, static_cast<unsigned>(d),
                               s.domain.dimensions[d].c_str());
  for (std::size_t p = 0; p < names.parameters().size(); ++p)
    raw = isl_set_set_dim_name(raw, isl_dim_param, static_cast<unsigned>(p),
                               names.parameters()[p].c_str());
  return ctx.own(raw);
}

Own<isl_map> user_names(const IslContext& ctx, const IslNames& names, const Statement& s,
                        const Access& access, Own<isl_map> map) {
  isl_map* raw = isl_map_set_tuple_name(map.release(), isl_dim_in, s.name.c_str());
  raw = isl_map_set_tuple_name(raw, isl_dim_out, access.field.c_str());
  for (std::size_t d = 0; d < s.domain.dimensions.size(); ++d)
    raw = isl_map_set_dim_name(raw, isl_dim_in, static_cast<unsigned>(d),
                               s.domain.dimensions[d].c_str());
  for (std::size_t p = 0; p < names.parameters().size(); ++p)
    raw = isl_map_set_dim_name(raw, isl_dim_param, static_cast<unsigned>(p),
                               names.parameters()[p].c_str());
  return ctx.own(raw);
}

using ir::quoted; // Graphviz's double-quoted strings

} // namespace

IslText to_isl_text(const Statement& statement) {
  detail::validate(statement);
  const IslContext ctx;
  const IslNames names = IslNames::of({&statement});
  IslText text;
  text.domain = detail::to_text(
      ctx, user_names(ctx, names, statement, detail::domain_set(ctx, names, statement)));
  for (const Access& a : statement.accesses)
    text.accesses.push_back(detail::to_text(
        ctx, user_names(ctx, names, statement, a, detail::access_map(ctx, names, statement, a))));
  return text;
}

std::string to_isl_string(const Statement& statement) {
  const IslText text = to_isl_text(statement);
  std::string out = text.domain + "\n";
  for (const std::string& a : text.accesses)
    out += a + "\n";
  return out;
}

nlohmann::json to_json(const Statement& statement) {
  const IslText text = to_isl_text(statement);
  nlohmann::json accesses = nlohmann::json::array();
  for (std::size_t i = 0; i < statement.accesses.size(); ++i) {
    const Access& a = statement.accesses[i];
    accesses.push_back({{"field", a.field},
                        {"kind", to_string(a.kind)},
                        {"relation", text.accesses[i]},
                        {"where", a.where}});
  }
  return {{"statement", statement.name}, {"domain", text.domain}, {"accesses", accesses}};
}

std::string to_dot(const std::vector<Statement>& statements) {
  std::string out = "digraph access_relations {\n";
  std::vector<std::string> fields;
  std::string edges;
  for (const Statement& s : statements) {
    out += "  " + quoted("statement:" + s.name) + " [label=" + quoted(s.name) + ", shape=box];\n";
    const IslText text = to_isl_text(s);
    for (std::size_t i = 0; i < s.accesses.size(); ++i) {
      const Access& a = s.accesses[i];
      if (std::find(fields.begin(), fields.end(), a.field) == fields.end())
        fields.push_back(a.field);
      const std::string statement_node = quoted("statement:" + s.name);
      const std::string field_node = quoted("field:" + a.field);
      const bool read = a.kind == Access::Kind::Read;
      edges += "  " + (read ? field_node : statement_node) + " -> " +
               (read ? statement_node : field_node) + " [label=" + quoted(text.accesses[i]) +
               "];\n";
    }
  }
  for (const std::string& f : fields)
    out += "  " + quoted("field:" + f) + " [label=" + quoted(f) + ", shape=ellipse];\n";
  return out + edges + "}\n";
}

} // namespace s2p::access
