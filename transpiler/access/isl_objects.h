#pragma once

// Private to s2p_access: isl's C objects owned by unique_ptr, and the statements of
// access_relations.h turned into isl sets and maps. Every function that uses isl creates one
// IslContext first, so every isl object it makes (declared after it) is freed before the
// context.

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "access/access_relations.h"

namespace s2p::access::detail {

template <typename T> struct IslFree;
template <> struct IslFree<isl_ctx> {
  void operator()(isl_ctx* p) const noexcept { isl_ctx_free(p); }
};
template <> struct IslFree<isl_set> {
  void operator()(isl_set* p) const noexcept { isl_set_free(p); }
};
template <> struct IslFree<isl_basic_set> {
  void operator()(isl_basic_set* p) const noexcept { isl_basic_set_free(p); }
};
template <> struct IslFree<isl_basic_set_list> {
  void operator()(isl_basic_set_list* p) const noexcept { isl_basic_set_list_free(p); }
};
template <> struct IslFree<isl_map> {
  void operator()(isl_map* p) const noexcept { isl_map_free(p); }
};
template <> struct IslFree<isl_val> {
  void operator()(isl_val* p) const noexcept { isl_val_free(p); }
};
template <> struct IslFree<isl_point> {
  void operator()(isl_point* p) const noexcept { isl_point_free(p); }
};

template <typename T> using Own = std::unique_ptr<T, IslFree<T>>;

// Owns one isl_ctx. isl reports errors by returning null (never by aborting or printing:
// on_error is "continue"); `own` turns a null into std::runtime_error with isl's message.
class IslContext {
public:
  IslContext();
  isl_ctx* get() const { return ctx_.get(); }

  template <typename T> Own<T> own(T* object) const {
    if (object == nullptr)
      fail();
    return Own<T>(object);
  }
  bool check(isl_bool value) const;
  [[noreturn]] void fail() const;

  Own<isl_set> read_set(const std::string& text) const;
  Own<isl_map> read_map(const std::string& text) const;

private:
  Own<isl_ctx> ctx_;
};

inline isl_set* copy(const Own<isl_set>& s) {
  return isl_set_copy(s.get());
}
inline isl_map* copy(const Own<isl_map>& m) {
  return isl_map_copy(m.get());
}

std::int64_t to_int64(const IslContext& ctx, Own<isl_val> value);
std::string to_text(const IslContext& ctx, const Own<isl_set>& set);
std::string to_text(const IslContext& ctx, const Own<isl_map>& map);
// The coordinates of a point of `set` (the lexicographic minimum when it has one).
std::vector<std::int64_t> witness_point(const IslContext& ctx, Own<isl_set> set);

// isl text is built with internal names (tuple S for every statement, F for every field,
// dimensions x0.., parameters p0.. in the order of `parameters`), so that no user name can
// clash with isl's syntax and two statements' index spaces line up; dumps rename afterwards.
class IslNames {
public:
  explicit IslNames(std::vector<std::string> parameters) : parameters_(std::move(parameters)) {}
  // The parameters of the statements, each name once, in order of first appearance.
  static IslNames of(const std::vector<const Statement*>& statements);

  const std::vector<std::string>& parameters() const { return parameters_; }
  // "[p0, p1] -> " (empty without parameters).
  std::string prefix() const;
  std::string affine(const AffineExpr& expr, const Domain& domain) const;
  std::string constraint(const Constraint& constraint, const Domain& domain) const;
  // "p0 >= 1 and ... and <domain constraints> and <extra>" (or "" when there are none).
  std::string conditions(const Domain& domain, const std::vector<Constraint>& extra) const;

private:
  std::size_t parameter_index(const std::string& name) const;
  std::vector<std::string> parameters_;
};

// "x0, x1, ..., x(n-1)".
std::string tuple_variables(std::size_t n);

// The statement's domain { S[x..] : ... } over all its dimensions.
Own<isl_set> domain_set(const IslContext& ctx, const IslNames& names, const Statement& s);
// { S[x..] -> F[index] : domain and guard } over all dimensions.
Own<isl_map> access_map(const IslContext& ctx, const IslNames& names, const Statement& s,
                        const Access& access);
// The same per index point: { S[i..] -> F[index] }, body loop variables projected out.
Own<isl_map> index_access_map(const IslContext& ctx, const IslNames& names, const Statement& s,
                              const Access& access);

// Throws std::invalid_argument when the statement's expressions do not fit its domain.
void validate(const Statement& statement);

} // namespace s2p::access::detail
