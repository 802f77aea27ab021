// s2p-report-table <sim-report.json>: one line per kernel of a `sim` backend report --
// makespan, lower bound and their ratio for its last launch -- and the same as JSON.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: s2p-report-table <sim-report.json>\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "s2p-report-table: cannot read " << argv[1] << "\n";
    return 2;
  }
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::cerr << "s2p-report-table: " << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
  nlohmann::json rows = nlohmann::json::array();
  std::printf("%-20s %10s %10s %10s %8s\n", "kernel", "makespan", "bound", "critical", "ratio");
  for (const auto& launch : report.value("launches", nlohmann::json::array())) {
    const auto& bound = launch["lower_bound"];
    std::printf("%-20s %10lld %10lld %10lld %8.3f\n", launch["kernel"].get<std::string>().c_str(),
                launch["makespan"].get<long long>(), bound["value"].get<long long>(),
                bound["critical_path"].get<long long>(), launch["ratio"].get<double>());
    rows.push_back({{"kernel", launch["kernel"]},
                    {"makespan", launch["makespan"]},
                    {"bound", bound["value"]},
                    {"ratio", launch["ratio"]}});
  }
  std::cout << "JSON " << rows.dump() << "\n";
  return 0;
}
