#include "cli/args.h"

#include <cctype>
#include <limits>

namespace s2p::sim::cli {

Args::Args(const std::vector<std::string>& argv, const std::vector<OptionSpec>& specs) {
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-' || arg == "--") {
      positional_.push_back(arg);
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (const auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs) {
      if (s.name == name) {
        spec = &s;
      }
    }
    if (spec == nullptr) {
      throw UsageError("unknown option '" + name + "'");
    }
    if (values_.contains(name)) {
      throw UsageError("option '" + name + "' given twice");
    }
    if (!spec->takes_value) {
      if (inline_value) {
        throw UsageError("option '" + name + "' takes no value");
      }
      values_[name] = "";
      continue;
    }
    if (inline_value) {
      values_[name] = *inline_value;
    } else if (i + 1 < argv.size()) {
      values_[name] = argv[++i];
    } else {
      throw UsageError("option '" + name + "' needs a value");
    }
  }
}

std::optional<std::string> Args::value(const std::string& name) const {
  const auto it = values_.find(name);
  return it == values_.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::string Args::required(const std::string& name) const {
  const auto v = value(name);
  if (!v) {
    throw UsageError("missing " + name);
  }
  return *v;
}

std::uint64_t parse_number(const std::string& text, const std::string& what, std::uint64_t min,
                           std::uint64_t max) {
  std::uint64_t value = 0;
  std::size_t i = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, static_cast<std::uint64_t>(text[i] - '0'), &value)) {
      throw UsageError(what + ": " + text + " is too large");
    }
  }
  if (i == 0) {
    throw UsageError(what + ": expected a non-negative integer, got '" + text + "'");
  }
  if (i < text.size()) {
    int shift = 0;
    const char suffix = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
    if (suffix == 'K')
      shift = 10;
    else if (suffix == 'M')
      shift = 20;
    else if (suffix == 'G')
      shift = 30;
    if (shift == 0 || i + 1 != text.size()) {
      throw UsageError(what + ": expected an integer (optionally with K, M or G), got '" + text +
                       "'");
    }
    if (value > (std::numeric_limits<std::uint64_t>::max() >> shift)) {
      throw UsageError(what + ": " + text + " is too large");
    }
    value <<= shift;
  }
  if (value < min || value > max) {
    throw UsageError(what + ": " + text + " is outside " + std::to_string(min) + ".." +
                     std::to_string(max));
  }
  return value;
}

std::uint64_t Args::number(const std::string& name, std::uint64_t fallback, std::uint64_t min,
                           std::uint64_t max) const {
  const auto v = value(name);
  return v ? parse_number(*v, name, min, max) : fallback;
}

std::uint64_t Args::required_number(const std::string& name, std::uint64_t min,
                                    std::uint64_t max) const {
  return parse_number(required(name), name, min, max);
}

std::int64_t Args::signed_number(const std::string& name, std::int64_t fallback) const {
  const auto v = value(name);
  if (!v) {
    return fallback;
  }
  const bool negative = !v->empty() && (*v)[0] == '-';
  const std::uint64_t magnitude =
      parse_number(negative ? v->substr(1) : *v, name, 0,
                   static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  return negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
}

} // namespace s2p::sim::cli
