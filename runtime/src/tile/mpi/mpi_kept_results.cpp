#include "tile/mpi/mpi_kept_results.h"

#include "tile/mpi/kept_regions.h"

#include <memory>
#include <optional>
#include <utility>

namespace s2p::rt::mpi {

namespace {

// Apart from the tile program's owner-copy moves (1) and work-stealing returns (2).
constexpr int kReadsTag = 3;
constexpr int kGatherTag = 4;

std::vector<memory_box> parts_of(const kept_launch& launch, std::int64_t count, int ranks) {
  std::vector<memory_box> parts;
  for (int q = 0; q < ranks; ++q) {
    const auto [first, last] = share_of(count, q, ranks);
    parts.push_back(launch.part(first, last));
  }
  return parts;
}

void add(superstep_traffic& total, const superstep_traffic& more) {
  total.bytes_sent += more.bytes_sent;
  total.messages += more.messages;
}

// A rectangle of a kept field that one rank reads and another holds.
struct wanted_box {
  std::size_t kept = 0;
  memory_box box;
};
using wanted_list = std::vector<wanted_box>;

// An MPI datatype for a box of a field's elements where they lie, freed with it.
class box_type {
public:
  box_type(const field_memory& f, const std::vector<std::int64_t>& array, const memory_box& b) {
    MPI_Datatype element = MPI_DATATYPE_NULL;
    check(MPI_Type_contiguous(message_count(f.element_bytes), MPI_BYTE, &element),
          "MPI_Type_contiguous");
    std::vector<int> sizes, sub, starts;
    for (std::size_t d = 0; d < array.size(); ++d) {
      sizes.push_back(message_count(array[d]));
      sub.push_back(message_count(b.size[d]));
      starts.push_back(message_count(b.offset[d]));
    }
    const int made = MPI_Type_create_subarray(static_cast<int>(sizes.size()), sizes.data(),
                                              sub.data(), starts.data(), MPI_ORDER_C, element,
                                              &type_);
    MPI_Type_free(&element);
    check(made, "MPI_Type_create_subarray");
    check(MPI_Type_commit(&type_), "MPI_Type_commit");
  }
  ~box_type() { MPI_Type_free(&type_); }
  box_type(const box_type&) = delete;
  box_type& operator=(const box_type&) = delete;
  MPI_Datatype get() const { return type_; }

private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

// Every rank's part of a kept field to every other rank, straight from and into the field
// (subarray datatypes: no packing, no buffers): a message per pair of ranks with a part.
superstep_traffic gather_in_place(const field_memory& f, const std::vector<std::int64_t>& array,
                                  const std::vector<memory_box>& parts, const session& s) {
  std::vector<std::unique_ptr<box_type>> types;
  for (const memory_box& part : parts)
    types.push_back(is_empty(part) ? nullptr : std::make_unique<box_type>(f, array, part));
  std::vector<MPI_Request> requests;
  superstep_traffic traffic;
  const auto mine = static_cast<std::size_t>(s.rank);
  for (int q = 0; q < s.size; ++q) {
    const auto k = static_cast<std::size_t>(q);
    if (q == s.rank)
      continue;
    if (types[k])
      check(MPI_Irecv(f.base, 1, types[k]->get(), q, kGatherTag, s.comm, &requests.emplace_back()),
            "MPI_Irecv");
    if (types[mine]) {
      check(MPI_Isend(f.base, 1, types[mine]->get(), q, kGatherTag, s.comm,
                      &requests.emplace_back()),
            "MPI_Isend");
      traffic.bytes_sent += box_bytes(f, parts[mine]);
      ++traffic.messages;
    }
  }
  check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
        "MPI_Waitall");
  return traffic;
}

} // namespace

std::pair<std::int64_t, std::int64_t> share_of(std::int64_t count, int rank, int ranks) {
  return {count * rank / ranks, count * (rank + 1) / ranks};
}

kept_results& kept() {
  static kept_results results;
  return results;
}

superstep_traffic kept_results::gather_all(const session& s) {
  return kept_.empty() ? superstep_traffic{} : gather(std::vector<bool>(kept_.size(), true), s);
}

superstep_traffic kept_results::gather(std::vector<bool> which, const session& s) {
  // Where the field's layout has an MPI datatype, its parts go straight between the ranks;
  // otherwise packed, one blocking MPI_Allgatherv per field (a non-blocking one progresses
  // only while polled, and wait_all's back-off would stretch a large gather's many rounds).
  superstep_traffic traffic;
  // Kept between gathers: fresh megabytes each time would cost page faults, and MPI the
  // registration of new memory.
  std::vector<std::byte>& mine = send_buffer_;
  std::vector<std::byte>& all = receive_buffer_;
  for (std::size_t k = 0; k < kept_.size(); ++k) {
    if (!which[k])
      continue;
    const kept_field& f = kept_[k];
    if (const auto array = enclosing_array(f.field)) {
      add(traffic, gather_in_place(f.field, *array, f.part_of_rank, s));
      continue;
    }
    std::vector<int> counts, displacements;
    std::int64_t total = 0;
    for (int q = 0; q < s.size; ++q) {
      const std::int64_t bytes = box_bytes(f.field, f.part_of_rank[static_cast<std::size_t>(q)]);
      displacements.push_back(message_count(total));
      counts.push_back(message_count(bytes));
      total += bytes;
    }
    mine.clear();
    pack_box(f.field, f.part_of_rank[static_cast<std::size_t>(s.rank)], mine);
    all.resize(static_cast<std::size_t>(message_count(total)));
    check(MPI_Allgatherv(mine.data(), counts[static_cast<std::size_t>(s.rank)], MPI_BYTE,
                         all.data(), counts.data(), displacements.data(), MPI_BYTE, s.comm),
          "MPI_Allgatherv");
    for (int q = 0; q < s.size; ++q)
      if (q != s.rank)
        unpack_box(f.field, f.part_of_rank[static_cast<std::size_t>(q)],
                   all.data() + displacements[static_cast<std::size_t>(q)]);
    if (!mine.empty()) {
      traffic.bytes_sent += static_cast<std::int64_t>(mine.size()) * (s.size - 1);
      traffic.messages += s.size - 1;
    }
  }
  std::vector<kept_field> rest;
  for (std::size_t k = 0; k < kept_.size(); ++k)
    if (!which[k])
      rest.push_back(std::move(kept_[k]));
  kept_ = std::move(rest);
  return traffic;
}

superstep_traffic kept_results::fetch(const kept_launch& launch, std::int64_t count,
                                      const session& s) {
  // What cannot stay apart: a kept field the launch writes with other parts (its ranks would
  // then hold a mix) or through another view; one it reads through a view whose elements
  // cannot be placed in the kept field's coordinates.
  const std::vector<memory_box> parts = parts_of(launch, count, s.size);
  std::vector<bool> gather_now(kept_.size(), false);
  bool any = false;
  for (std::size_t k = 0; k < kept_.size(); ++k) {
    const field_memory& f = kept_[k].field;
    for (const field_memory& w : launch.written)
      if (memory_overlaps(f, w) && (!same_memory(f, w) || kept_[k].part_of_rank != parts))
        gather_now[k] = true;
    for (const field_memory& r : launch.read)
      if (memory_overlaps(f, r) && !offset_in(f, r))
        gather_now[k] = true;
    any = any || gather_now[k];
  }
  superstep_traffic traffic = any ? gather(std::move(gather_now), s) : superstep_traffic{};
  if (!kept_.empty())
    add(traffic, exchange_reads(launch, count, s));
  return traffic;
}

superstep_traffic kept_results::exchange_reads(const kept_launch& launch, std::int64_t count,
                                               const session& s) {
  // Every rank's reads (each rank works out what each other rank needs from it).
  std::vector<std::vector<std::vector<memory_box>>> reads_of_rank;
  for (int q = 0; q < s.size; ++q) {
    const auto [first, last] = share_of(count, q, s.size);
    reads_of_rank.push_back(launch.reads(first, last));
  }
  // Per field read, the kept fields it shares elements with and where it lies in them.
  struct placed {
    std::size_t kept;
    std::vector<std::int64_t> shift;
  };
  std::vector<std::vector<placed>> placements(launch.read.size());
  for (std::size_t j = 0; j < launch.read.size(); ++j)
    for (std::size_t k = 0; k < kept_.size(); ++k)
      if (memory_overlaps(kept_[k].field, launch.read[j]))
        placements[j].push_back({k, *offset_in(kept_[k].field, launch.read[j])});
  // What rank `reader` reads of what rank `holder` holds, in an order both ranks list alike.
  const auto wanted = [&](int reader, int holder) {
    wanted_list list;
    for (std::size_t j = 0; j < placements.size(); ++j)
      for (const placed& p : placements[j])
        for (const memory_box& b : reads_of_rank[static_cast<std::size_t>(reader)][j]) {
          const memory_box part =
              kept_[p.kept].part_of_rank[static_cast<std::size_t>(holder)];
          const memory_box box = intersection(shifted(b, p.shift), part);
          const bool known = std::any_of(list.begin(), list.end(), [&](const wanted_box& w) {
            return w.kept == p.kept && contains(w.box, box);
          });
          if (!is_empty(box) && !known)
            list.push_back({p.kept, box});
        }
    return list;
  };
  const auto field = [&](const wanted_box& w) -> const field_memory& { return kept_[w.kept].field; };
  const auto bytes_of = [&](const wanted_list& list) {
    std::int64_t bytes = 0;
    for (const wanted_box& w : list)
      bytes += box_bytes(field(w), w.box);
    return bytes;
  };
  std::vector<MPI_Request> requests;
  std::vector<std::pair<wanted_list, std::vector<std::byte>>> incoming;
  std::vector<std::vector<std::byte>> outgoing;
  superstep_traffic traffic;
  for (int p = 0; p < s.size; ++p) {
    if (p == s.rank)
      continue;
    wanted_list list = wanted(s.rank, p);
    if (const std::int64_t bytes = bytes_of(list); bytes > 0) {
      auto& [what, buffer] = incoming.emplace_back(std::move(list), std::vector<std::byte>());
      buffer.resize(static_cast<std::size_t>(bytes));
      check(MPI_Irecv(buffer.data(), message_count(bytes), MPI_BYTE, p, kReadsTag, s.comm,
                      &requests.emplace_back()),
            "MPI_Irecv");
    }
  }
  for (int q = 0; q < s.size; ++q) {
    if (q == s.rank)
      continue;
    const wanted_list list = wanted(q, s.rank);
    if (list.empty())
      continue;
    auto& buffer = outgoing.emplace_back();
    for (const wanted_box& w : list)
      pack_box(field(w), w.box, buffer);
    check(MPI_Isend(buffer.data(), message_count(static_cast<std::int64_t>(buffer.size())),
                    MPI_BYTE, q, kReadsTag, s.comm, &requests.emplace_back()),
          "MPI_Isend");
    traffic.bytes_sent += static_cast<std::int64_t>(buffer.size());
    ++traffic.messages;
  }
  // MPI_Waitall, not wait_all's back-off: a halo far over the eager limit moves in rounds,
  // each needing a poll (a rank's workers are its own cores: waiting here takes none from them).
  check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
        "MPI_Waitall");
  for (const auto& [list, buffer] : incoming) {
    const std::byte* at = buffer.data();
    for (const wanted_box& w : list)
      at = unpack_box(field(w), w.box, at);
  }
  return traffic;
}

void kept_results::keep(const kept_launch& launch, std::int64_t count, const session& s) {
  const std::vector<memory_box> parts = parts_of(launch, count, s.size);
  for (const field_memory& w : launch.written) {
    std::erase_if(kept_, [&](const kept_field& f) { return same_memory(f.field, w); });
    kept_.push_back({w, parts});
  }
}

} // namespace s2p::rt::mpi
