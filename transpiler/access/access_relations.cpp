// The plain-struct half of access_relations.h: builders, arithmetic, formatting. No isl.

#include "access/access_relations.h"

#include <algorithm>
#include <stdexcept>

namespace s2p::access {

namespace {
std::vector<std::int64_t> combine(const std::vector<std::int64_t>& a,
                                  const std::vector<std::int64_t>& b, std::int64_t sign) {
  std::vector<std::int64_t> sum(std::max(a.size(), b.size()), 0);
  for (std::size_t i = 0; i < a.size(); ++i)
    sum[i] += a[i];
  for (std::size_t i = 0; i < b.size(); ++i)
    sum[i] += sign * b[i];
  return sum;
}

AffineExpr combine(const AffineExpr& a, const AffineExpr& b, std::int64_t sign) {
  return {combine(a.coefficients, b.coefficients, sign),
          combine(a.parameter_coefficients, b.parameter_coefficients, sign),
          a.constant + sign * b.constant};
}
} // namespace

AffineExpr AffineExpr::variable(std::size_t d, std::int64_t offset) {
  AffineExpr e;
  e.coefficients.assign(d + 1, 0);
  e.coefficients[d] = 1;
  e.constant = offset;
  return e;
}

AffineExpr AffineExpr::parameter(std::size_t p, std::int64_t offset) {
  AffineExpr e;
  e.parameter_coefficients.assign(p + 1, 0);
  e.parameter_coefficients[p] = 1;
  e.constant = offset;
  return e;
}

AffineExpr AffineExpr::value(std::int64_t constant) {
  AffineExpr e;
  e.constant = constant;
  return e;
}

AffineExpr operator+(const AffineExpr& a, const AffineExpr& b) {
  return combine(a, b, 1);
}
AffineExpr operator-(const AffineExpr& a, const AffineExpr& b) {
  return combine(a, b, -1);
}
AffineExpr operator+(const AffineExpr& a, std::int64_t c) {
  return a + AffineExpr::value(c);
}
AffineExpr operator-(const AffineExpr& a, std::int64_t c) {
  return a - AffineExpr::value(c);
}

AffineExpr operator*(std::int64_t factor, const AffineExpr& a) {
  AffineExpr e = a;
  for (std::int64_t& c : e.coefficients)
    c *= factor;
  for (std::int64_t& c : e.parameter_coefficients)
    c *= factor;
  e.constant *= factor;
  return e;
}

std::vector<Constraint> Constraint::in_range(const AffineExpr& e, const AffineExpr& lower,
                                             const AffineExpr& upper_exclusive) {
  return {non_negative(e - lower), non_negative(upper_exclusive - e - 1)};
}

Domain Domain::box(const std::vector<std::int64_t>& lower,
                   const std::vector<std::int64_t>& upper_exclusive) {
  std::vector<AffineExpr> lo, hi;
  for (const std::int64_t l : lower)
    lo.push_back(AffineExpr::value(l));
  for (const std::int64_t u : upper_exclusive)
    hi.push_back(AffineExpr::value(u));
  return box(lo, hi, {});
}

Domain Domain::box(const std::vector<AffineExpr>& lower,
                   const std::vector<AffineExpr>& upper_exclusive,
                   std::vector<std::string> parameters) {
  if (lower.size() != upper_exclusive.size())
    throw std::invalid_argument("Domain::box: lower and upper bounds of different ranks");
  Domain d;
  d.parameters = std::move(parameters);
  d.index_rank = static_cast<int>(lower.size());
  for (std::size_t i = 0; i < lower.size(); ++i) {
    d.dimensions.push_back("i" + std::to_string(i));
    for (Constraint& c :
         Constraint::in_range(AffineExpr::variable(i), lower[i], upper_exclusive[i]))
      d.constraints.push_back(std::move(c));
  }
  return d;
}

Domain& Domain::add_loop(std::string name, const AffineExpr& lower,
                         const AffineExpr& upper_exclusive) {
  const std::size_t d = dimensions.size();
  dimensions.push_back(std::move(name));
  for (Constraint& c : Constraint::in_range(AffineExpr::variable(d), lower, upper_exclusive))
    constraints.push_back(std::move(c));
  return *this;
}

Access Access::read(std::string field, std::vector<AffineExpr> index, std::vector<Constraint> guard,
                    std::string where) {
  return {std::move(field), Kind::Read, std::move(index), std::move(guard), std::move(where)};
}

Access Access::write(std::string field, std::vector<AffineExpr> index,
                     std::vector<Constraint> guard, std::string where) {
  return {std::move(field), Kind::Write, std::move(index), std::move(guard), std::move(where)};
}

std::int64_t volume(const Box& box) {
  std::int64_t v = 1;
  for (std::size_t d = 0; d < box.lower.size(); ++d)
    v *= std::max<std::int64_t>(0, box.upper[d] - box.lower[d]);
  return v;
}

std::string to_string(Access::Kind kind) {
  return kind == Access::Kind::Read ? "read" : "write";
}

std::string format_affine(const AffineExpr& expr, const Domain& domain) {
  std::string text;
  const auto term = [&text](std::int64_t c, const std::string& name) {
    if (c == 0)
      return;
    if (text.empty())
      text = c < 0 ? "-" : "";
    else
      text += c < 0 ? " - " : " + ";
    const std::int64_t magnitude = c < 0 ? -c : c;
    text += (magnitude == 1 ? "" : std::to_string(magnitude) + "*") + name;
  };
  for (std::size_t d = 0; d < expr.coefficients.size(); ++d)
    term(expr.coefficients[d], d < domain.dimensions.size() ? domain.dimensions[d] : "?");
  for (std::size_t p = 0; p < expr.parameter_coefficients.size(); ++p)
    term(expr.parameter_coefficients[p], p < domain.parameters.size() ? domain.parameters[p] : "?");
  if (text.empty())
    return std::to_string(expr.constant);
  if (expr.constant != 0) {
    text += expr.constant < 0 ? " - " : " + ";
    text += std::to_string(expr.constant < 0 ? -expr.constant : expr.constant);
  }
  return text;
}

} // namespace s2p::access
