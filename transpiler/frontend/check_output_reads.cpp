// The dependence check of a forall that reads its own output at other indices (lu's pivot
// row and column, a mirror of a triangle): its iterations run in parallel, each reading the
// output as it was before the forall, so no iteration may read what another one writes. The
// access relations (access/tile_step_relations.h) decide it exactly, guards and the kernel's
// loop variables included; what they cannot prove independent is refused at the read, with
// the pair of iterations and the distance.
#include "access/tile_step_relations.h"
#include "frontend/kernel_extractor_impl.h"

#include <algorithm>

namespace s2p::frontend {

void KernelExtractor::Impl::check_output_reads(const ir::MultiTile& multi, std::size_t k) {
  const ir::TileStep& step = multi.steps.at(k);
  const bool reads_output =
      std::any_of(step.reads.begin(), step.reads.end(),
                  [&](const ir::TileStep::Read& r) { return r.field == step.output && !r.written; });
  if (step.kind != ir::TileStep::Kind::Forall || step.local_global || !reads_output ||
      output_read_sites_.empty())
    return;
  const clang::SourceLocation first_read = output_read_sites_.front().second;
  std::optional<access::Dependence> dependence;
  std::string sink_index;
  try {
    const access::StepRelations relations = access::tile_step_relations(multi, k);
    dependence = access::carried_dependence(relations.statement);
    if (dependence)
      sink_index = relations.origin_of(dependence->sink).index;
  } catch (const std::exception& e) {
    error(first_read, "the forall reads '" + step.output +
                          "', the field it writes, at another index, and seq2par cannot compute "
                          "its accesses to prove its iterations independent: " + e.what());
    return;
  }
  if (!dependence)
    return;
  // The read the dependence goes through (the first one with its index, else the first).
  const auto site = std::find_if(output_read_sites_.begin(), output_read_sites_.end(),
                                 [&](const auto& s) { return access::index_text(s.first) == sink_index; });
  const clang::SourceLocation where = site == output_read_sites_.end() ? first_read : site->second;
  error(where, "the forall reads '" + step.output + "', the field it writes, where another "
                   "iteration writes it: " + dependence->message +
                   "; its iterations run in parallel, each seeing '" + step.output +
                   "' as it was before the forall");
  report_note(ctx_, where,
              "a loop whose iterations need each other's results is a sequential 'for' (in "
              "the kernel around the forall, or inside its body); or write the result to "
              "another field");
}

} // namespace s2p::frontend
