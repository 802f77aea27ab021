#include "core/watchdog_setting.h"

#include "core/integer_setting.h"

#include <climits>

namespace s2p::rt {

int watchdog_seconds() {
  return static_cast<int>(
      integer_setting("S2P_WATCHDOG_SECONDS", 120, 0, INT_MAX, "a number of seconds"));
}

} // namespace s2p::rt
