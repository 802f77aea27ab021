// S2P_WATCHDOG_SECONDS: how long a backend waits without progress before it reports where
// every warp or rank is and stops the program (0: never). One reading for every backend.
#pragma once

namespace s2p::rt {

// The setting (default 120); throws std::invalid_argument when it is not a number of seconds.
int watchdog_seconds();

} // namespace s2p::rt
