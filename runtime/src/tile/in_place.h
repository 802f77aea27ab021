// What the in-place launches of the threads and mpi backends share (tile/threads/
// forall_in_place.cpp, tile/mpi/mpi_in_place.cpp).
#pragma once

namespace s2p::rt {

// Whether the switch `variable` (S2P_THREADS_OWNER_COPY, S2P_MPI_OWNER_COPY) asks for the tile
// program's copies instead of running in place: 1/on/true or 0/off/false, unset = no; any other
// value is refused.
bool owner_copy_asked(const char* variable);

} // namespace s2p::rt
