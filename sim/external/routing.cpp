// The static routing table of the external interconnect: fixed at
// construction from the fabric's topology, one list of links per ordered chip pair. With
// `external.links_per_chip`, a chip's links are shared among its neighbours and the links
// joining two chips in one direction form a group: the route names the group's first link, and
// a packet may take any link of the group (`parallel`).
#include <algorithm>

#include "seq2par/sim/fabric.h"

namespace s2p::sim {

RoutingTable::RoutingTable(const Fabric& fabric) : chips_(fabric.chips) {
  routes_.resize(static_cast<std::size_t>(chips_) * chips_);
  const std::uint32_t per_chip = fabric.external.links_per_chip;
  // `lanes` parallel links from `from` to `to` (named name, or name.0, name.1, ... when the
  // fabric sets links_per_chip); the first of them if the chips are joined already.
  const auto link_id = [this, per_chip](std::uint32_t from, std::uint32_t to,
                                        const std::string& name, std::uint32_t lanes) {
    for (std::uint32_t i = 0; i < links_.size(); ++i) {
      if (links_[i].from_chip == from && links_[i].to_chip == to) {
        return i;
      }
    }
    const auto first = static_cast<std::uint32_t>(links_.size());
    groups_.emplace_back();
    for (std::uint32_t lane = 0; lane < lanes; ++lane) {
      links_.push_back({from, to, per_chip == 0 ? name : name + "." + std::to_string(lane)});
      group_of_.push_back(static_cast<std::uint32_t>(groups_.size() - 1));
      groups_.back().push_back(first + lane);
    }
    return first;
  };
  if (chips_ < 2) {
    return;
  }
  // A chip's links split among its neighbours; at least one towards each.
  const std::uint32_t neighbours =
      fabric.external.topology == Topology::kFull ? chips_ - 1 : (chips_ == 2 ? 1 : 2);
  const std::uint32_t forward_lanes =
      per_chip == 0 ? 1 : std::max(1u, (per_chip + neighbours - 1) / neighbours);
  const std::uint32_t other_lanes = per_chip == 0 ? 1 : std::max(1u, per_chip / neighbours);
  if (fabric.external.topology == Topology::kFull) {
    for (std::uint32_t a = 0; a < chips_; ++a) {
      for (std::uint32_t b = 0; b < chips_; ++b) {
        if (a != b) {
          routes_[a * chips_ + b] = {
              // 'L', not "L": GCC bug 105651 (a false -Wrestrict)
              link_id(a, b, 'L' + std::to_string(a) + "-" + std::to_string(b), other_lanes)};
        }
      }
    }
    return;
  }
  // Ring: forward links LF (c -> c+1) and backward links LB (c -> c-1); each packet takes the
  // shorter way round, forward on a tie. Fixed at construction: the routing is static.
  std::vector<std::uint32_t> forward(chips_);
  std::vector<std::uint32_t> backward(chips_);
  for (std::uint32_t c = 0; c < chips_; ++c) {
    forward[c] = link_id(c, (c + 1) % chips_, "LF" + std::to_string(c), forward_lanes);
    backward[c] = link_id(c, (c + chips_ - 1) % chips_, "LB" + std::to_string(c), other_lanes);
  }
  for (std::uint32_t a = 0; a < chips_; ++a) {
    for (std::uint32_t b = 0; b < chips_; ++b) {
      const std::uint32_t ahead = (b + chips_ - a) % chips_;
      const std::uint32_t behind = (a + chips_ - b) % chips_;
      auto& route = routes_[a * chips_ + b];
      for (std::uint32_t c = a; c != b;) {
        if (ahead <= behind) {
          route.push_back(forward[c]);
          c = (c + 1) % chips_;
        } else {
          route.push_back(backward[c]);
          c = (c + chips_ - 1) % chips_;
        }
      }
    }
  }
}

std::uint32_t RoutingTable::max_route_hops() const {
  std::size_t hops = 0;
  for (const auto& route : routes_) {
    hops = std::max(hops, route.size());
  }
  return static_cast<std::uint32_t>(hops);
}

nlohmann::ordered_json RoutingTable::to_json() const {
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const auto& link : links_) {
    links.push_back(
        {{"name", link.name}, {"from_chip", link.from_chip}, {"to_chip", link.to_chip}});
  }
  nlohmann::ordered_json routes = nlohmann::ordered_json::array();
  for (std::uint32_t a = 0; a < chips_; ++a) {
    for (std::uint32_t b = 0; b < chips_; ++b) {
      if (a == b) {
        continue;
      }
      nlohmann::ordered_json path = nlohmann::ordered_json::array();
      for (const std::uint32_t id : route(a, b)) {
        path.push_back(links_[id].name);
      }
      routes.push_back({{"from_chip", a}, {"to_chip", b}, {"links", std::move(path)}});
    }
  }
  return {{"links", std::move(links)}, {"routes", std::move(routes)}};
}

} // namespace s2p::sim
