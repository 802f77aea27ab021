// Equal-address sets: the worked cases (tests/golden/equal-address.json), the refusal of
// sets that would put two variables of one tile at one address, propagation through the pointer
// formats, placing sets first with their members' interferences, and splitting a set that has
// no common address.
#include <seq2par/planning/tile_memory.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

namespace rt = s2p::rt;

namespace {

constexpr std::uint64_t kKiB = 1024;

nlohmann::json golden() {
  std::ifstream in(std::string(SEQ2PAR_GOLDEN_DIR) + "/equal-address.json");
  return nlohmann::json::parse(in);
}

// Variables named by (name, tile name), every one live for the whole kernel (so variables of
// one tile interfere), 64 bytes unless given; tiles numbered in order of first appearance.
struct builder {
  rt::memory_problem problem;
  std::map<std::string, std::uint32_t> tiles;
  std::map<std::pair<std::string, std::uint32_t>, rt::variable_id> ids;

  builder() { problem.params = {624 * kKiB, 16 * kKiB, true}; }

  std::uint32_t tile(const std::string& name) {
    const auto [it, inserted] = tiles.emplace(name, static_cast<std::uint32_t>(tiles.size()));
    problem.tiles = std::max<std::uint32_t>(problem.tiles, it->second + 1);
    return it->second;
  }
  rt::variable_id variable(const std::string& name, const std::string& tile_name,
                           std::uint64_t bytes = 64) {
    const std::uint32_t t = tile(tile_name);
    const auto [it, inserted] = ids.emplace(std::pair{name, t}, problem.variables.size());
    if (inserted)
      problem.variables.push_back({name, t, bytes, 8, rt::variable_kind::received_block, {0, 9}});
    return it->second;
  }
  // A golden member: [name, tile] with the tile a number or a name.
  rt::variable_id member(const nlohmann::json& m) {
    const std::string t = m[1].is_string() ? m[1].get<std::string>() : m[1].dump();
    return variable(m[0].get<std::string>(), t);
  }
};

std::string expectation_of(const rt::memory_layout& layout) {
  return layout.refusal ? "illegal" : "legal";
}

void check_fig4a(const nlohmann::json& c, builder& b, const rt::memory_layout& layout) {
  ASSERT_TRUE(layout.ok()) << c["name"];
  const auto& sets = c["sets"];
  const rt::variable_id a = b.member(sets[0]["members"][0]);
  const rt::variable_id d = b.member(sets[1]["members"][0]);
  ASSERT_EQ(b.problem.variables[a].tile, b.problem.variables[d].tile);
  EXPECT_NE(*layout.address[a], *layout.address[d]) << c["also"];
}

void check_fig3(const nlohmann::json& c, builder& b, const rt::memory_layout& layout) {
  ASSERT_TRUE(layout.ok()) << c["name"];
  for (const auto& constraint : c["constraints"]) {
    const rt::variable_id first = b.member(constraint["set"][0]);
    for (const auto& m : constraint["set"])
      EXPECT_EQ(*layout.address[b.member(m)], *layout.address[first]) << m;
  }
  // var1 and var2 are both on 4b: one address each, not the same one.
  EXPECT_NE(*layout.address[b.member(c["constraints"][0]["set"][0])],
            *layout.address[b.member(c["constraints"][1]["set"][0])]);
}

// Fig. 3 as the allocator's callers produce it: a structure whose pointers p1, p2 (1-D vectors)
// reach var1/var3 and var2/var4 on the two receivers.
std::vector<rt::equal_address_set> fig3_sets(const nlohmann::json& c, builder& b) {
  rt::shared_structure structure{"55a", {}};
  int p = 1;
  for (const auto& constraint : c["constraints"]) {
    rt::shared_pointer pointer{'p' + std::to_string(p++), rt::pointer_format::vector_1d, {}, {}};
    for (const auto& m : constraint["set"])
      pointer.target.push_back(b.member(m));
    structure.pointers.push_back(std::move(pointer));
  }
  return rt::equal_address_sets_of(structure);
}

} // namespace

TEST(EqualAddress, GoldenCasesGiveTheExpectedVerdicts) {
  const nlohmann::json data = golden();
  ASSERT_EQ(data["cases"].size(), 3U);
  for (const auto& c : data["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    builder b;
    if (c.contains("sets")) {
      for (const auto& set : c["sets"]) {
        rt::equal_address_set s{{}, c["name"]};
        for (const auto& m : set["members"])
          s.members.push_back(b.member(m));
        b.problem.equal_address.push_back(std::move(s));
      }
    } else {
      b.problem.equal_address = fig3_sets(c, b);
      // The structure itself may sit anywhere on each receiver: a copy of it per receiver.
      for (const auto& r : c["receivers"])
        b.variable("55a", r.get<std::string>(), 8);
    }
    const rt::memory_layout layout = rt::allocate(b.problem);
    EXPECT_EQ(expectation_of(layout), c.value("expect", "legal"));
    EXPECT_TRUE(rt::layout_errors(b.problem, layout).empty());
    if (c["name"] == "fig4a_legal")
      check_fig4a(c, b, layout);
    else if (c["name"] == "fig3_pointers")
      check_fig3(c, b, layout);
  }
}

TEST(EqualAddress, RefusalNamesTheTileAndTheTwoVariables) {
  // Fig. 4b: {a@1, b@2, c@3} and {d@1, b@2, c@3}; b and c tie the sets together.
  builder b;
  const auto a = b.variable("a", "1");
  const auto bb = b.variable("b", "2");
  const auto c = b.variable("c", "3");
  const auto d = b.variable("d", "1");
  b.problem.equal_address = {{{a, bb, c}, "s"}, {{d, bb, c}, "s"}};
  const rt::equal_address_verdict verdict =
      rt::check_equal_address_sets(b.problem.equal_address, b.problem.variables);
  ASSERT_FALSE(verdict.legal());
  EXPECT_EQ(verdict.refusal->tile, b.problem.variables[a].tile);
  EXPECT_EQ(verdict.refusal->first, a);
  EXPECT_EQ(verdict.refusal->second, d);
  EXPECT_EQ(verdict.refusal->sets, (std::vector<std::size_t>{0, 1}));
  EXPECT_NE(verdict.refusal->message.find("forces 'a' and 'd' to one address on tile 0"),
            std::string::npos)
      << verdict.refusal->message;
  // The allocator refuses as a value and places nothing.
  const rt::memory_layout layout = rt::allocate(b.problem);
  ASSERT_TRUE(layout.refusal);
  EXPECT_FALSE(layout.address[a].has_value());
}

TEST(EqualAddress, SetsSharingAMemberAreOneSetWhenTheirTilesDoNotClash) {
  builder b;
  const auto a = b.variable("a", "1");
  const auto bb = b.variable("b", "2");
  const auto e = b.variable("e", "3");
  b.problem.equal_address = {{{a, bb}, "s"}, {{bb, e}, "s"}};
  const auto verdict = rt::check_equal_address_sets(b.problem.equal_address, b.problem.variables);
  ASSERT_TRUE(verdict.legal());
  ASSERT_EQ(verdict.merged.size(), 1U);
  EXPECT_EQ(verdict.merged.front().members, (std::vector<rt::variable_id>{a, bb, e}));
}

TEST(EqualAddress, PointerFormatsPropagateTheConstraint) {
  builder b;
  const auto data1 = b.variable("data", "r1"), data2 = b.variable("data", "r2");
  const auto ptrs1 = b.variable("ptrs", "r1"), ptrs2 = b.variable("ptrs", "r2");
  const auto off1 = b.variable("offsets", "r1"), off2 = b.variable("offsets", "r2");
  const auto base1 = b.variable("base", "r1"), base2 = b.variable("base", "r2");
  const rt::shared_structure vertex_state{
      "vertex_state",
      {{"pn", rt::pointer_format::vector_1d, {data1, data2}, {}},
       {"pb", rt::pointer_format::vector_2d, {ptrs1, ptrs2}, {}},
       {"pv", rt::pointer_format::vector_list, {off1, off2}, {base1, base2}}}};
  const auto sets = rt::equal_address_sets_of(vertex_state);
  ASSERT_EQ(sets.size(), 4U); // a vector list constrains both of its halves
  EXPECT_EQ(sets[0].members, (std::vector<rt::variable_id>{data1, data2}));
  EXPECT_EQ(sets[1].members, (std::vector<rt::variable_id>{ptrs1, ptrs2}));
  EXPECT_EQ(sets[2].members, (std::vector<rt::variable_id>{off1, off2}));
  EXPECT_EQ(sets[3].members, (std::vector<rt::variable_id>{base1, base2}));
  for (const auto& s : sets)
    EXPECT_EQ(s.structure, "vertex_state");
  b.problem.equal_address = sets;
  const rt::memory_layout layout = rt::allocate(b.problem);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout.address[base1], layout.address[base2]);
  EXPECT_EQ(layout.address[off1], layout.address[off2]);
  EXPECT_TRUE(rt::layout_errors(b.problem, layout).empty());
}

TEST(EqualAddress, SetsArePlacedFirstWithTheUnionOfTheirMembersInterferences) {
  // {p@1, q@2} and {r@2, s@3}: q and r interfere on tile 2, so the second set avoids the first
  // set's address on every tile, tile 3 included, although nothing else is on tile 3. A big
  // unconstrained variable on tile 1 still comes after the sets.
  builder b;
  const auto big = b.variable("big", "1", 64 * kKiB);
  const auto p = b.variable("p", "1"), q = b.variable("q", "2");
  const auto r = b.variable("r", "2"), s = b.variable("s", "3");
  b.problem.equal_address = {{{p, q}, "x"}, {{r, s}, "y"}};
  const rt::memory_layout layout = rt::allocate(b.problem);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(*layout.address[p], 0U);
  EXPECT_EQ(*layout.address[r], *layout.address[s]);
  EXPECT_NE(*layout.address[s] / (16 * kKiB), 0U); // banks are separate in `builder`
  EXPECT_GE(*layout.address[big], 16 * kKiB);
  EXPECT_TRUE(rt::layout_errors(b.problem, layout).empty());
}

TEST(EqualAddress, ASetWithNoCommonAddressIsSplitByTilesAndRetried) {
  // Tile A's low half and tile B's high half are taken by earlier (bigger) sets, so t@A and t@B
  // have no common address; each part alone fits.
  builder b;
  b.problem.params = {96, 0, false};
  const auto w = b.variable("w", "C", 48);
  const auto w2 = b.variable("w", "D", 48), w3 = b.variable("w", "E", 48);
  const auto x = b.variable("x", "A", 48), x2 = b.variable("x", "F", 48);
  const auto y = b.variable("y", "B", 48), y2 = b.variable("y", "C", 48);
  const auto tA = b.variable("t", "A", 48), tB = b.variable("t", "B", 48);
  b.problem.equal_address = {{{w, w2, w3}, "w"}, {{x, x2}, "x"}, {{y, y2}, "y"}, {{tA, tB}, "t"}};
  const rt::memory_layout layout = rt::allocate(b.problem);
  ASSERT_TRUE(layout.ok()) << layout.out_of_memory.front().message;
  EXPECT_EQ(*layout.address[w], 0U);
  EXPECT_EQ(*layout.address[y], 48U); // C is taken below 48 by w
  ASSERT_EQ(layout.splits.size(), 1U);
  EXPECT_EQ(layout.splits.front().structure, "t");
  EXPECT_EQ(layout.splits.front().parts.size(), 2U);
  EXPECT_EQ(*layout.address[tA], 48U);
  EXPECT_EQ(*layout.address[tB], 0U);
  EXPECT_TRUE(rt::layout_errors(b.problem, layout).empty());
}
