// --extents kernel:param=AxB[,param=AxB...]: the extents a multi-tile kernel's forall
// schedule templates are planned for, when its calls in the file do not say (a kernel in a
// library, called elsewhere) or to plan for other extents than they pass.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace s2p::driver {

// kernel -> field parameter -> extent
using GivenExtents = std::map<std::string, std::map<std::string, std::vector<std::int64_t>>>;

// The options' extents, or a message naming the value that is not kernel:param=AxB,...
std::variant<GivenExtents, std::string> parse_extents(const std::vector<std::string>& values);

} // namespace s2p::driver
