// The Fig. 3 program on the simulator: its report lists, for each warp, exactly the waits
// the Fig. 3 channel table implies (warp 0 on resource channels 4, 5, 4, 5, 6; warp 1 on
// data channels 1, 2, 3, 1, 2, 3, 1), read from tests/golden/fig3-pipeline.json.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace {

using json = nlohmann::json;

TEST(Fig3OnSim, ReportsTheWaitsTheChannelTableImplies) {
  const auto report_path = std::filesystem::temp_directory_path() /
                           ("fig3_report_" + std::to_string(::getpid()) + ".json");
  const std::string command = "S2P_BACKEND=sim S2P_REPORT='" + report_path.string() + "' '" +
                              FIG3_PROGRAM + "' > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream report_file(report_path);
  const json report = json::parse(report_file);
  std::filesystem::remove(report_path);
  std::ifstream golden_file(std::string(SEQ2PAR_GOLDEN_DIR) + "/fig3-pipeline.json");
  const json golden = json::parse(golden_file);

  const json& launch = report["launches"].back();
  ASSERT_EQ(launch["warps"].size(), 2u);
  for (const auto& warp : launch["warps"]) {
    const std::string id = std::to_string(warp["warp"].get<int>());
    std::map<int, int> expected;
    for (const auto& op : golden["warps"][id]) {
      const std::string text = op.get<std::string>();
      if (text.rfind("wait ", 0) == 0)
        ++expected[std::stoi(text.substr(5))];
    }
    std::map<int, int> reported;
    for (const auto& wait : warp["waits"])
      reported[wait["channel"].get<int>()] = wait["waits"].get<int>();
    EXPECT_EQ(reported, expected) << "warp " << id;
    EXPECT_EQ(warp["calls"].get<int>(), 7) << "warp " << id;
  }
  EXPECT_GE(launch["makespan"].get<long long>(), launch["lower_bound"]["value"].get<long long>());
  EXPECT_EQ(launch["lower_bound"]["busiest_warp"].get<long long>(),
            10 + 10 + 10 + 15 + 15 + 15 + 50);
}

} // namespace
