#include "ir/kernel.h"

namespace s2p::ir {

const char* to_string(AccessMode mode) {
  switch (mode) {
  case AccessMode::Read:
    return "in";
  case AccessMode::Write:
    return "out";
  case AccessMode::ReadWrite:
    return "inout";
  }
  return "?";
}

int find_tensor(const Kernel& kernel, const std::string& name) {
  for (std::size_t i = 0; i < kernel.tensors.size(); ++i)
    if (kernel.tensors[i].name == name)
      return static_cast<int>(i);
  return -1;
}

} // namespace s2p::ir
