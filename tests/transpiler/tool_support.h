// What every test of the seq2par command shares: running the built binary in a directory,
// reading what it wrote, and a fixture that gives each test its own directory.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace tool_test {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct Run {
  int status = -1;
  std::string output; // stdout and stderr
};

inline Run run_with(const std::string& executable, const std::string& args, const std::string& cwd) {
  std::string command =
      (cwd.empty() ? "" : "cd '" + cwd + "' && ") + "'" + executable + "' " + args + " 2>&1";
  Run result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe)
    return result;
  std::array<char, 4096> buffer;
  while (std::size_t n = fread(buffer.data(), 1, buffer.size(), pipe))
    result.output.append(buffer.data(), n);
  const int raw = pclose(pipe);
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return result;
}

inline Run run(const std::string& args, const std::string& cwd = "") {
  return run_with(SEQ2PAR_EXE, args, cwd);
}

inline std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class Tool : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("seq2par_tool_test_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy_file(fs::path(SEQ2PAR_GOLDEN_DIR) / "fig3-pipeline.cpp", dir / "fig3-pipeline.cpp");
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
};

inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++count;
  return count;
}

// Generated code with libFormat's comment wrapping undone: "// a\n  // b" -> "// a b".
inline std::string comments_on_one_line(const std::string& code) {
  return std::regex_replace(code, std::regex("\n *// "), " ");
}

} // namespace tool_test
