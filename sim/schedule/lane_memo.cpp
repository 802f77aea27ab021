// Per-thread tables of expression values keyed by one column's value (see lane_memo.h).
#include "schedule/lane_memo.h"

#include <algorithm>
#include <string>
#include <vector>

namespace s2p::sim::detail {

namespace {

/// Keys are column values in [0, kMaxKeys): tile indices and ring fragment numbers.
constexpr std::int64_t kMaxKeys = std::int64_t{1} << 17;
/// Tables kept per thread; beyond it the least recently created one is replaced.
constexpr std::size_t kMaxTables = 32;
/// Fillings without a hit after which an expression is evaluated directly from then on.
constexpr int kMaxIdleFillings = 2;

struct Table {
  const Expr* expr = nullptr;
  std::string text;
  std::vector<int> slots;
  int key_slot = -1;
  std::vector<std::int64_t> others; ///< values of `slots` other than key_slot, in order
  std::vector<std::int64_t> values;
  std::vector<std::uint32_t> filled; ///< == generation where values[key] is known
  std::uint32_t generation = 1;
  bool hit = false;
  int idle_fillings = 0;
  bool disabled = false;
  bool filled_before = false;

  [[nodiscard]] bool describes(const Expr& e, int key) const {
    return expr == &e && key_slot == key && text == e.text() && slots == e.used_slots();
  }
  void reset(const Expr& e, int key) {
    *this = Table{};
    expr = &e;
    text = e.text();
    slots = e.used_slots();
    key_slot = key;
  }
  /// Starts a new generation when another slot's value changed since the last filling.
  void follow(std::span<const std::int64_t> env) {
    if (filled_before && unchanged(env)) {
      return;
    }
    others.clear();
    for (const int slot : slots) {
      if (slot != key_slot) {
        others.push_back(env[static_cast<std::size_t>(slot)]);
      }
    }
    if (filled_before) {
      idle_fillings = hit ? 0 : idle_fillings + 1;
      disabled = idle_fillings >= kMaxIdleFillings;
      ++generation;
    }
    filled_before = true;
    hit = false;
  }
  [[nodiscard]] bool unchanged(std::span<const std::int64_t> env) const {
    std::size_t i = 0;
    for (const int slot : slots) {
      if (slot != key_slot && others[i++] != env[static_cast<std::size_t>(slot)]) {
        return false;
      }
    }
    return true;
  }
};

thread_local std::vector<Table> tables;

/// The one used slot bound to a column, or -1 (none, or several).
int key_slot_of(const Expr& expr, std::span<const std::int64_t* const> columns) {
  int key = -1;
  for (const int slot : expr.used_slots()) {
    const auto s = static_cast<std::size_t>(slot);
    if (s < columns.size() && columns[s] != nullptr) {
      if (key >= 0) {
        return -1;
      }
      key = slot;
    }
  }
  return key;
}

Table& table_for(const Expr& expr, int key) {
  for (Table& t : tables) {
    if (t.expr == &expr) {
      if (!t.describes(expr, key)) {
        t.reset(expr, key);
      }
      return t;
    }
  }
  if (tables.size() == kMaxTables) {
    tables.erase(tables.begin());
  }
  tables.emplace_back().reset(expr, key);
  return tables.back();
}

} // namespace

bool memo_eval_lanes(const Expr& expr, std::span<const std::int64_t> env,
                     std::span<const std::int64_t* const> columns, std::size_t lanes,
                     std::int64_t* out) {
  const int key = key_slot_of(expr, columns);
  if (key < 0 || lanes == 0 || lanes > Expr::kMaxLanes) {
    return expr.eval_lanes(env, columns, lanes, out);
  }
  for (const int slot : expr.used_slots()) {
    if (static_cast<std::size_t>(slot) >= env.size()) {
      return expr.eval_lanes(env, columns, lanes, out); // declines; eval() reports it
    }
  }
  Table& t = table_for(expr, key);
  t.follow(env);
  const std::int64_t* column = columns[static_cast<std::size_t>(key)];
  if (t.disabled ||
      !std::all_of(column, column + lanes, [](std::int64_t v) { return v >= 0 && v < kMaxKeys; })) {
    return expr.eval_lanes(env, columns, lanes, out);
  }
  const auto known = [&](std::int64_t v) {
    const auto i = static_cast<std::size_t>(v);
    return i < t.filled.size() && t.filled[i] == t.generation;
  };
  if (std::all_of(column, column + lanes, known)) {
    for (std::size_t i = 0; i < lanes; ++i) {
      out[i] = t.values[static_cast<std::size_t>(column[i])];
    }
    t.hit = true;
    return true;
  }
  if (!expr.eval_lanes(env, columns, lanes, out)) {
    return false;
  }
  const std::int64_t top = *std::max_element(column, column + lanes);
  if (static_cast<std::size_t>(top) >= t.filled.size()) {
    t.filled.resize(static_cast<std::size_t>(top) + 1, 0);
    t.values.resize(static_cast<std::size_t>(top) + 1, 0);
  }
  for (std::size_t i = 0; i < lanes; ++i) {
    const auto k = static_cast<std::size_t>(column[i]);
    t.values[k] = out[i];
    t.filled[k] = t.generation;
  }
  return true;
}

} // namespace s2p::sim::detail
