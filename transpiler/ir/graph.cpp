#include "ir/graph.h"

namespace s2p::ir {

const char* to_string(Role role) {
  switch (role) {
  case Role::Producer:
    return "producer";
  case Role::Consumer:
    return "consumer";
  case Role::ProducerConsumer:
    return "producer-consumer";
  case Role::Neither:
    return "neither";
  }
  return "?";
}

const char* to_string(EdgeKind kind) {
  switch (kind) {
  case EdgeKind::Control:
    return "control";
  case EdgeKind::Data:
    return "data";
  case EdgeKind::Resource:
    return "resource";
  }
  return "?";
}

} // namespace s2p::ir
