// Integer settings read from the environment (S2P_THREADS, S2P_SIM_THREADS,
// S2P_WATCHDOG_SECONDS): one reading and one refusal for all of them.
#pragma once

#include <string>

namespace s2p::rt {

// `fallback` when `variable` is unset or empty; else its value, which must be a whole number in
// [min, max], or std::invalid_argument("<variable>='<text>' is not <what>").
long integer_setting(const char* variable, long fallback, long min, long max,
                     const std::string& what);

} // namespace s2p::rt
