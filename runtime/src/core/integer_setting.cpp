#include "core/integer_setting.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace s2p::rt {

long integer_setting(const char* variable, long fallback, long min, long max,
                     const std::string& what) {
  const char* text = std::getenv(variable);
  if (!text || !*text)
    return fallback;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || errno == ERANGE || value < min || value > max)
    throw std::invalid_argument(std::string(variable) + "='" + text + "' is not " + what);
  return value;
}

} // namespace s2p::rt
