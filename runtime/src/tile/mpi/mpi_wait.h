// Waiting for a launch's messages without taking a core from the tiles still computing.
// MPI_Waitall spins: a rank whose tiles finished first would spin in the exchange or the
// gather on a core the other ranks' tile threads need (ranks on one machine share its
// cores). This polls a while, then sleeps between polls, longer the longer it waits.
#pragma once

#include <mpi.h>

#include <vector>

namespace s2p::rt::mpi {

void wait_all(std::vector<MPI_Request>& requests);

} // namespace s2p::rt::mpi
