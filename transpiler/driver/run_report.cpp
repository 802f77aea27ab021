#include "driver/run_report.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace s2p::driver {
namespace {

using nlohmann::json;

const char* status_name(InputStatus status) {
  switch (status) {
  case InputStatus::Transpiled:
    return "transpiled";
  case InputStatus::Skipped:
    return "skipped";
  case InputStatus::UpToDate:
    return "up_to_date";
  case InputStatus::Refused:
    return "refused";
  case InputStatus::NotWritten:
    return "not_written";
  }
  return "unknown";
}

json diagnostic_json(const ReportedDiagnostic& d) {
  json out{{"level", d.level}, {"message", d.message}};
  if (!d.file.empty())
    out["location"] = {{"file", d.file}, {"line", d.line}, {"column", d.column}};
  return out;
}

json report_json(const RunAccount& account) {
  json inputs = json::array();
  std::map<std::string, int> counts;
  for (const auto& input : account.inputs) {
    json kernels = json::array();
    for (const auto& k : input.kernels)
      kernels.push_back(k.tiles > 0 ? json{{"name", k.name}, {"tiles", k.tiles}, {"steps", k.calls}}
                                    : json{{"name", k.name},
                                           {"warps", k.warps},
                                           {"channels", k.channels},
                                           {"calls", k.calls}});
    json diagnostics = json::array();
    for (const auto& d : input.diagnostics)
      diagnostics.push_back(diagnostic_json(d));
    json entry{{"file", input.file},       {"status", status_name(input.status)},
               {"outputs", input.outputs}, {"kernels", kernels},
               {"diagnostics", diagnostics}};
    if (!input.reason.empty())
      entry["reason"] = input.reason;
    inputs.push_back(std::move(entry));
    ++counts[status_name(input.status)];
  }
  json summary = json::object();
  for (const auto status : {InputStatus::Transpiled, InputStatus::Skipped, InputStatus::UpToDate,
                            InputStatus::Refused, InputStatus::NotWritten})
    summary[status_name(status)] = counts[status_name(status)];
  return {{"schema", "seq2par-run-report"}, {"version", 1},         {"tool", account.tool_version},
          {"written", account.written},     {"summary", summary}, {"inputs", inputs}};
}

std::string file_uri(const std::string& path) {
  return !path.empty() && path.front() == '/' ? "file://" + path : path;
}

json sarif_result(const ReportedDiagnostic& d) {
  const std::string level = d.level == "error" || d.level == "warning" || d.level == "note"
                                ? d.level
                                : std::string("none");
  json result{{"level", level}, {"message", {{"text", d.message}}}};
  if (!d.file.empty())
    result["locations"] = json::array(
        {{{"physicalLocation",
           {{"artifactLocation", {{"uri", file_uri(d.file)}}},
            {"region", {{"startLine", d.line}, {"startColumn", d.column}}}}}}});
  return result;
}

json report_sarif(const RunAccount& account) {
  json results = json::array();
  for (const auto& input : account.inputs)
    for (const auto& d : input.diagnostics)
      results.push_back(sarif_result(d));
  const json driver{{"name", "seq2par"}, {"version", account.tool_version}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({{{"tool", {{"driver", driver}}}, {"results", results}}})}};
}

} // namespace

std::string write_run_report(const std::string& path, const RunAccount& account) {
  const bool sarif = path.size() > 6 && path.compare(path.size() - 6, 6, ".sarif") == 0;
  const json report = sarif ? report_sarif(account) : report_json(account);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << report.dump(2) << "\n";
  out.close();
  return out ? "" : "cannot write the report '" + path + "'";
}

} // namespace s2p::driver
