// The geometry of results kept on the mpi ranks (<seq2par/runtime.h>, kernel_scope): fields as
// memory, which of them share elements, rectangles of their elements and their bytes. Pure
// arithmetic, no MPI.
#pragma once

#include <seq2par/runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace s2p::rt::mpi {

// Whether the two fields' elements lie in overlapping address ranges (they may share elements).
bool memory_overlaps(const field_memory& a, const field_memory& b);

// The same elements in the same places: same first element, element size, extent and strides.
bool same_memory(const field_memory& a, const field_memory& b);

// The shift `d` with other[i] at the address of kept[i + d] for every index i, when `other`
// can be read in `kept`'s coordinates: same element size, rank and strides, row-major (the
// last axis contiguous, each stride a multiple of the next), and both lying in the rows of one
// field those strides describe (sections of it). Nullopt otherwise: the caller then gives up
// keeping `kept` apart from `other`.
std::optional<std::vector<std::int64_t>> offset_in(const field_memory& kept,
                                                   const field_memory& other);

// The row-major array `f` lies in, as MPI's subarray datatypes describe one: its extent along
// the first axis, and along each other axis the row length its strides give (the field's
// extent or more, for a section). Nullopt for other layouts (transposed, lifted, ...).
std::optional<std::vector<std::int64_t>> enclosing_array(const field_memory& f);

bool is_empty(const memory_box& b);
memory_box intersection(const memory_box& a, const memory_box& b);
memory_box shifted(const memory_box& b, const std::vector<std::int64_t>& by);
bool contains(const memory_box& outer, const memory_box& inner);
std::int64_t box_bytes(const field_memory& f, const memory_box& b);

// The box's elements of `f`, row-major, appended to `out` / stored from `in` (returns the end
// of what it read).
void pack_box(const field_memory& f, const memory_box& b, std::vector<std::byte>& out);
const std::byte* unpack_box(const field_memory& f, const memory_box& b, const std::byte* in);

} // namespace s2p::rt::mpi
