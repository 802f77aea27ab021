// The launcher's environment variables (Open MPI's mpirun, and the PMI ones of MPICH's Hydra).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace s2p::sim::cli {

/// A positive count from the environment, if set.
inline std::optional<unsigned long> env_count(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') {
    return std::nullopt;
  }
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  return *end == '\0' && value > 0 ? std::optional(value) : std::nullopt;
}

/// The job's rank count when an MPI launcher started this process.
inline std::optional<unsigned long> launched_job_size() {
  if (const auto size = env_count("OMPI_COMM_WORLD_SIZE")) {
    return size;
  }
  return env_count("PMI_SIZE");
}

inline unsigned local_job_size() {
  if (const auto size = env_count("OMPI_COMM_WORLD_LOCAL_SIZE")) {
    return static_cast<unsigned>(*size);
  }
  return static_cast<unsigned>(env_count("MPI_LOCALNRANKS").value_or(1));
}

} // namespace s2p::sim::cli
