#include "node-hybrid/NodeConfig.hpp"

#include "node-hybrid/TilingSections.hpp"

namespace strata {

NodeConfig read_node_config(io::Deck& deck) {
  io::DeckSection& root = deck.root();
  NodeConfig node;
  node.halo = read_halo_section(root.section("halo"));
  node.hybrid = read_hybrid_section(root.section("hybrid"));
  node.time_tiling = read_time_tiling_section(root.section("time_tiling"), node.halo);
  node.chain_tiling = read_chain_tiling_section(root.section("chain_tiling"));
  return node;
}

std::vector<io::DeckKey> node_keys() {
  std::vector<io::DeckKey> keys = halo_keys();
  for (const auto& section : {hybrid_keys(), tiling_keys()}) keys.insert(keys.end(), section.begin(), section.end());
  return keys;
}

}  // namespace strata
