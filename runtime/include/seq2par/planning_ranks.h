// <seq2par/planning_ranks.h> — the planning templates that depend on the rank alone (resource
// maps, owner-copy, work stealing, plan_forall and the compute model), declared as explicit
// instantiations for ranks 1 to 4: the runtime library compiles them once
// (runtime/planning/src/planning_ranks.cpp) instead of every generated program compiling them
// again; they were most of a generated program's back-end time. A rank above 4 is instantiated
// where it is used, as any template is. Included at the end of <seq2par/runtime.h>, what
// generated code includes (code that includes <seq2par/tile_program.h> alone instantiates
// them itself, as before). C++17, like the rest of what generated code includes.
#pragma once

#include <seq2par/tile_program.h>

// One rank's explicit instantiations; PREFIX is `extern` for the declarations every user of the
// headers sees, empty for the definitions in the runtime library.
// An explicit instantiation list has no other form than a macro, and its arguments (`extern`, a
// rank in template arguments) cannot take parentheses.
// NOLINTBEGIN(cppcoreguidelines-macro-usage,bugprone-macro-parentheses)
#define S2P_PLANNING_RANK_INSTANTIATIONS(PREFIX, N)                                              \
  PREFIX template class s2p::resource_map<N>;                                                    \
  PREFIX template std::vector<s2p::forall_task> s2p::owner_copy_detail::output_tasks<N>(         \
      const s2p::resource_map<N>&);                                                              \
  PREFIX template std::string s2p::owner_copy_detail::describe<N>(const s2p::index<N>&);         \
  PREFIX template std::string s2p::owner_copy_detail::outside_message<N>(                       \
      const s2p::input_access<N>&, const s2p::index<N>&);                                        \
  PREFIX template bool s2p::owner_copy_detail::needed_region<N>(                                 \
      const s2p::input_access<N>&, const s2p::index<N>&, const s2p::grid<N>&, s2p::grid<N>&);    \
  PREFIX template std::string s2p::footprint_error<N>(const s2p::resource_map<N>&,               \
                                                      const std::vector<s2p::input_access<N>>&); \
  PREFIX template s2p::owner_copy_plan s2p::plan_owner_copy<N>(                                  \
      const s2p::resource_map<N>&, const std::vector<s2p::input_access<N>>&);                    \
  PREFIX template std::int64_t s2p::minimum_block_bytes<N>(                                      \
      const s2p::resource_map<N>&, const std::vector<s2p::input_access<N>>&);                    \
  PREFIX template class s2p::work_stealing_detail::stealer<N>;                                   \
  PREFIX template s2p::steal_result s2p::plan_work_stealing<N>(                                  \
      const s2p::owner_copy_plan&, const s2p::resource_map<N>&,                                  \
      const std::vector<s2p::input_access<N>>&, std::int64_t, const s2p::steal_costs&);          \
  PREFIX template class s2p::rt::block_layout<N>;                                                \
  PREFIX template std::vector<s2p::input_access<N>> s2p::rt::accesses_of<N>(                     \
      const std::vector<s2p::rt::forall_field_spec<N>>&);                                        \
  PREFIX template void s2p::rt::add_steal_returns<N>(s2p::rt::tile_program&,                     \
                                                     const s2p::rt::block_layout<N>&,            \
                                                     const s2p::steal_result&, std::int64_t,     \
                                                     const s2p::steal_costs&);                   \
  PREFIX template void s2p::rt::add_compute_estimate<N>(                                         \
      s2p::rt::tile_program&, const std::vector<std::vector<s2p::forall_task>>&,                 \
      const s2p::rt::forall_field_spec<N>&, const std::vector<s2p::rt::forall_field_spec<N>>&);  \
  PREFIX template s2p::rt::forall_layout<N> s2p::rt::plan_forall<N>(                             \
      int, const s2p::rt::forall_field_spec<N>&,                                                 \
      const std::vector<s2p::rt::forall_field_spec<N>>&,                                         \
      const std::optional<s2p::steal_costs>&, bool);

#define S2P_PLANNING_RANKS(PREFIX)                                                               \
  S2P_PLANNING_RANK_INSTANTIATIONS(PREFIX, 1)                                                    \
  S2P_PLANNING_RANK_INSTANTIATIONS(PREFIX, 2)                                                    \
  S2P_PLANNING_RANK_INSTANTIATIONS(PREFIX, 3)                                                    \
  S2P_PLANNING_RANK_INSTANTIATIONS(PREFIX, 4)
// NOLINTEND(cppcoreguidelines-macro-usage,bugprone-macro-parentheses)

S2P_PLANNING_RANKS(extern)
