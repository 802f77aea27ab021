#include "access/isl_objects.h"

#include <isl/options.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace s2p::access::detail {

IslContext::IslContext() : ctx_(isl_ctx_alloc()) {
  if (!ctx_)
    throw std::runtime_error("isl: cannot allocate a context");
  // Errors come back as null results, which `own` turns into exceptions; isl must neither
  // abort the compiler nor print to stderr.
  isl_options_set_on_error(ctx_.get(), ISL_ON_ERROR_CONTINUE);
}

void IslContext::fail() const {
  const char* message = isl_ctx_last_error_msg(ctx_.get());
  throw std::runtime_error(std::string("isl: ") + (message ? message : "unknown error"));
}

bool IslContext::check(isl_bool value) const {
  if (value == isl_bool_error)
    fail();
  return value == isl_bool_true;
}

Own<isl_set> IslContext::read_set(const std::string& text) const {
  return own(isl_set_read_from_str(get(), text.c_str()));
}

Own<isl_map> IslContext::read_map(const std::string& text) const {
  return own(isl_map_read_from_str(get(), text.c_str()));
}

std::int64_t to_int64(const IslContext& ctx, Own<isl_val> value) {
  if (!value)
    ctx.fail();
  if (!ctx.check(isl_val_is_int(value.get())))
    throw std::invalid_argument("the set is unbounded (a loop or the forall has no bound)");
  return isl_val_get_num_si(value.get());
}

namespace {
std::string take_text(const IslContext& ctx, char* text) {
  if (text == nullptr)
    ctx.fail();
  std::string result(text);
  std::free(text); // isl allocates printed text with malloc
  return result;
}
} // namespace

std::string to_text(const IslContext& ctx, const Own<isl_set>& set) {
  return take_text(ctx, isl_set_to_str(set.get()));
}

std::string to_text(const IslContext& ctx, const Own<isl_map>& map) {
  return take_text(ctx, isl_map_to_str(map.get()));
}

std::vector<std::int64_t> witness_point(const IslContext& ctx, Own<isl_set> set) {
  // The lexicographic minimum is the witness users expect ("the first"); a set unbounded
  // below has none (isl fails with "unbounded optimum": a window over a loop whose bound is a
  // parameter of any sign), and then any point will do.
  if (isl_set* lexmin = isl_set_lexmin(copy(set)); lexmin == nullptr) {
    isl_ctx_reset_error(ctx.get());
  } else if (Own<isl_set> least(lexmin); !ctx.check(isl_set_is_empty(least.get()))) {
    set = std::move(least);
  }
  const int n = isl_set_dim(set.get(), isl_dim_set);
  const auto point = ctx.own(isl_set_sample_point(set.release()));
  if (ctx.check(isl_point_is_void(point.get())))
    throw std::logic_error("witness of an empty set");
  std::vector<std::int64_t> coordinates;
  for (int d = 0; d < n; ++d)
    coordinates.push_back(
        to_int64(ctx, ctx.own(isl_point_get_coordinate_val(point.get(), isl_dim_set, d))));
  return coordinates;
}

IslNames IslNames::of(const std::vector<const Statement*>& statements) {
  std::vector<std::string> parameters;
  for (const Statement* s : statements)
    for (const std::string& p : s->domain.parameters)
      if (std::find(parameters.begin(), parameters.end(), p) == parameters.end())
        parameters.push_back(p);
  return IslNames(std::move(parameters));
}

std::string IslNames::prefix() const {
  if (parameters_.empty())
    return {};
  std::string text = "[";
  for (std::size_t p = 0; p < parameters_.size(); ++p)
    text += (p ? ", p" : "p") + std::to_string(p);
  return text + "] -> ";
}

std::size_t IslNames::parameter_index(const std::string& name) const {
  const auto it = std::find(parameters_.begin(), parameters_.end(), name);
  if (it == parameters_.end())
    throw std::logic_error("parameter " + name + " not named");
  return static_cast<std::size_t>(it - parameters_.begin());
}

std::string IslNames::affine(const AffineExpr& expr, const Domain& domain) const {
  // Terms as "c*name" joined by + and -, so isl's parser sees plain integer arithmetic.
  std::string text = std::to_string(expr.constant);
  const auto term = [&text](std::int64_t c, const std::string& name) {
    if (c == 0)
      return;
    text += c < 0 ? " - " : " + ";
    // The magnitude as text: negating INT64_MIN would overflow.
    std::string magnitude = std::to_string(c);
    if (c < 0)
      magnitude.erase(0, 1);
    text += magnitude + "*" + name;
  };
  for (std::size_t d = 0; d < expr.coefficients.size(); ++d)
    term(expr.coefficients[d], "x" + std::to_string(d));
  for (std::size_t p = 0; p < expr.parameter_coefficients.size(); ++p)
    term(expr.parameter_coefficients[p],
         "p" + std::to_string(parameter_index(domain.parameters[p])));
  return text;
}

std::string IslNames::constraint(const Constraint& c, const Domain& domain) const {
  return affine(c.expr, domain) + (c.kind == Constraint::Kind::Zero ? " = 0" : " >= 0");
}

std::string IslNames::conditions(const Domain& domain, const std::vector<Constraint>& extra) const {
  std::vector<std::string> parts;
  // Every answer is for parameter values >= 1 (extents), as the interface promises, and for
  // any value of a kernel's value.
  for (const std::string& p : domain.parameters)
    if (std::find(domain.value_parameters.begin(), domain.value_parameters.end(), p) ==
        domain.value_parameters.end())
      parts.push_back("p" + std::to_string(parameter_index(p)) + " >= 1");
  for (const Constraint& c : domain.constraints)
    parts.push_back(constraint(c, domain));
  for (const Constraint& c : extra)
    parts.push_back(constraint(c, domain));
  std::string text;
  for (const std::string& part : parts)
    text += (text.empty() ? "" : " and ") + part;
  return text;
}

std::string tuple_variables(std::size_t n) {
  std::string text;
  for (std::size_t d = 0; d < n; ++d)
    text += (d ? ", x" : "x") + std::to_string(d);
  return text;
}

namespace {
std::string such_that(const std::string& conditions) {
  return conditions.empty() ? std::string(" }") : " : " + conditions + " }";
}
} // namespace

Own<isl_set> domain_set(const IslContext& ctx, const IslNames& names, const Statement& s) {
  const std::string text = names.prefix() + "{ S[" + tuple_variables(s.domain.dimensions.size()) +
                           "]" + such_that(names.conditions(s.domain, {}));
  return ctx.read_set(text);
}

Own<isl_map> access_map(const IslContext& ctx, const IslNames& names, const Statement& s,
                        const Access& access) {
  std::string index;
  for (const AffineExpr& e : access.index)
    index += (index.empty() ? "" : ", ") + names.affine(e, s.domain);
  const std::string text = names.prefix() + "{ S[" + tuple_variables(s.domain.dimensions.size()) +
                           "] -> F[" + index + "]" +
                           such_that(names.conditions(s.domain, access.guard));
  return ctx.read_map(text);
}

Own<isl_map> index_access_map(const IslContext& ctx, const IslNames& names, const Statement& s,
                              const Access& access) {
  auto map = access_map(ctx, names, s, access);
  const auto rank = static_cast<std::size_t>(s.domain.index_rank);
  if (rank == s.domain.dimensions.size())
    return map;
  // Applying the projection on the domain quantifies the body loop variables existentially:
  // the index point touches the element in some iteration of its loops.
  const auto projection = ctx.read_map("{ S[" + tuple_variables(s.domain.dimensions.size()) +
                                       "] -> S[" + tuple_variables(rank) + "] }");
  return ctx.own(isl_map_apply_domain(map.release(), copy(projection)));
}

namespace {
void validate_expr(const AffineExpr& e, const Domain& domain, const std::string& what) {
  if (e.coefficients.size() > domain.dimensions.size())
    throw std::invalid_argument(what + " has " + std::to_string(e.coefficients.size()) +
                                " coefficients for " + std::to_string(domain.dimensions.size()) +
                                " dimensions");
  if (e.parameter_coefficients.size() > domain.parameters.size())
    throw std::invalid_argument(
        what + " has coefficients for " + std::to_string(e.parameter_coefficients.size()) +
        " parameters, the domain has " + std::to_string(domain.parameters.size()));
}
} // namespace

void validate(const Statement& s) {
  const Domain& d = s.domain;
  const std::string prefix = "statement " + s.name + ": ";
  if (d.index_rank < 0 || static_cast<std::size_t>(d.index_rank) > d.dimensions.size())
    throw std::invalid_argument(prefix + "index rank " + std::to_string(d.index_rank) +
                                " out of range");
  for (const Constraint& c : d.constraints)
    validate_expr(c.expr, d, prefix + "a domain constraint");
  for (const Access& a : s.accesses) {
    if (a.field.empty())
      throw std::invalid_argument(prefix + "an access without a field");
    const std::string what = prefix + "an access to " + a.field;
    for (const AffineExpr& e : a.index)
      validate_expr(e, d, what);
    for (const Constraint& c : a.guard)
      validate_expr(c.expr, d, what + "'s guard");
  }
}

} // namespace s2p::access::detail
