#include "core/watchdog_setting.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace s2p::rt {

int watchdog_seconds() {
  const char* text = std::getenv("S2P_WATCHDOG_SECONDS");
  if (!text || !*text)
    return 120;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0)
    throw std::invalid_argument(std::string("S2P_WATCHDOG_SECONDS='") + text +
                                "' is not a number of seconds");
  return static_cast<int>(value);
}

} // namespace s2p::rt
