// The corpus of broken fabric and schedule files (tests/sim/corpus): each one is refused with a
// message naming its field, never a crash. corpus/expected.json maps file -> expected message
// ("" = the file is valid); the same files seed the libFuzzer target.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "seq2par/sim/resolve.h"
#include "sim_test_util.h"

namespace {

using namespace s2p_test;
namespace fs = std::filesystem;

const fs::path kCorpus = S2P_SIM_CORPUS_DIR;

Json manifest() {
  std::ifstream in(kCorpus / "expected.json");
  return Json::parse(in);
}

/// Loads a corpus file the way s2p-sim does (schedule: parse and unroll; fabric: parse).
std::string load_error(const fs::path& path) {
  const std::string name = path.filename().string();
  return input_error([&] {
    if (name.rfind("fabric-", 0) == 0) {
      (void)sim::load_fabric(path);
    } else {
      const sim::Schedule schedule = sim::load_schedule(path);
      sim::Diagnostics diagnostics;
      const sim::Resolver resolver(schedule, diagnostics);
    }
  });
}

TEST(Corpus, EveryFileHasAnExpectation) {
  const Json expected = manifest();
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    const std::string name = entry.path().filename().string();
    if (name == "expected.json") {
      continue;
    }
    ++files;
    EXPECT_TRUE(expected.contains(name)) << name << " is not listed in corpus/expected.json";
  }
  EXPECT_GE(files, 40u);
}

TEST(Corpus, EachBrokenFileGivesAMessageNamingTheField) {
  const Json expectations = manifest();
  for (const auto& [name, expected] : expectations.items()) {
    SCOPED_TRACE(name);
    const std::string message = load_error(kCorpus / name);
    const std::string want = expected.get<std::string>();
    if (want.empty()) {
      EXPECT_EQ(message, "");
      continue;
    }
    EXPECT_NE(message.find(want), std::string::npos) << "message: " << message;
    // Every message starts with the file it is about.
    EXPECT_EQ(message.find((kCorpus / name).string()), 0u) << message;
  }
}

TEST(Corpus, MissingFileIsAnIoErrorNotAnInputError) {
  EXPECT_THROW((void)sim::load_schedule(kCorpus / "no-such-file.json"), sim::IoError);
  EXPECT_THROW((void)sim::load_fabric(kCorpus), sim::IoError); // a directory
}

} // namespace
