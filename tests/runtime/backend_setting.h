// The backend a runtime test runs on, set in the environment for as long as it lives (RAII):
// "sim", "threads", or "threads_copies" (threads running the tile program,
// S2P_THREADS_OWNER_COPY=1, instead of in place).
#pragma once

#include <cstdlib>
#include <string>

namespace s2p_test {

struct Backend {
  explicit Backend(const std::string& name) {
    const bool copies = name == "threads_copies";
    setenv("S2P_BACKEND", copies ? "threads" : name.c_str(), 1);
    if (copies)
      setenv("S2P_THREADS_OWNER_COPY", "1", 1);
  }
  ~Backend() {
    unsetenv("S2P_BACKEND");
    unsetenv("S2P_THREADS_OWNER_COPY");
  }
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
};

} // namespace s2p_test
