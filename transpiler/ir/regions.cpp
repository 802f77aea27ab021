#include "ir/regions.h"

namespace s2p::ir {

std::string channel_kind_letters(const std::vector<ChannelKind>& kinds) {
  std::string letters;
  for (const ChannelKind kind : kinds)
    letters += kind == ChannelKind::Data ? 'd' : kind == ChannelKind::Resource ? 'r' : 'f';
  return letters;
}

} // namespace s2p::ir
