// The report as one self-contained HTML page with inline SVG (no scripts, nothing fetched):
// a summary, the supersteps on a timeline (sync / exchange / compute), a map of every
// chip's tiles coloured by how busy each was, the tiles with the highest memory peak by
// category against the SRAM, and the links. Hovering a tile or bar shows its numbers.
// Built from the report JSON, so any saved report can be drawn; deterministic output.
#include "seq2par/sim/report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace s2p::sim {

namespace {

using Json = nlohmann::ordered_json;

// The member at `path` ("tiles.per_tile"), or an InputError naming the field.
const Json& need(const Json& root, const std::string& path, std::string_view source) {
  const Json* node = &root;
  std::string walked;
  std::size_t begin = 0;
  while (begin <= path.size()) {
    const std::size_t dot = path.find('.', begin);
    const std::string key =
        path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    walked += (walked.empty() ? "" : ".") + key;
    if (!node->is_object() || !node->contains(key))
      throw InputError(std::string(source) + ": field '" + walked + "': missing (not a " +
                       std::string(kReportFormat) + " report?)");
    node = &(*node)[key];
    if (dot == std::string::npos)
      break;
    begin = dot + 1;
  }
  return *node;
}

double number(const Json& root, const std::string& path, std::string_view source) {
  const Json& value = need(root, path, source);
  if (!value.is_number())
    throw InputError(std::string(source) + ": field '" + path + "': expected a number");
  return value.get<double>();
}

std::string escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string fixed(double value, int digits = 0) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// White (idle) to dark blue (always busy).
std::string busy_colour(double fraction) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  const int r = static_cast<int>(235 - 205 * fraction), g = static_cast<int>(240 - 150 * fraction),
            b = static_cast<int>(250 - 90 * fraction);
  char text[16];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", r, g, b);
  return text;
}

const char* const kCategoryColours[][2] = {
    {"data", "#4e79a7"}, {"exchange", "#f28e2b"}, {"shared", "#59a14f"}, {"code", "#b07aa1"}};

void summary(std::ostringstream& out, const Json& r, std::string_view source) {
  const double cycles = number(r, "total_cycles", source);
  const double mhz = number(r, "fabric.parameters.chip.clock_mhz", source);
  out << "<table class=\"summary\">\n";
  auto row = [&](const std::string& key, const std::string& value) {
    out << "<tr><th>" << escape(key) << "</th><td>" << escape(value) << "</td></tr>\n";
  };
  row("kernel", need(r, "schedule.kernel", source).get<std::string>());
  row("status", need(r, "status", source).get<std::string>());
  row("tiles", fixed(number(r, "schedule.tiles", source)) + " on " +
                   fixed(number(r, "schedule.chips", source)) + " chip(s)");
  row("fabric", need(r, "fabric.source", source).get<std::string>());
  row("total",
      fixed(cycles) + " cycles (" + fixed(cycles / mhz, 3) + " us at " + fixed(mhz) + " MHz)");
  row("supersteps", fixed(number(r, "schedule.supersteps_run", source)) + " of " +
                        fixed(number(r, "schedule.supersteps", source)));
  if (r.contains("hierarchical_bound") && r["hierarchical_bound"].is_object())
    row("hierarchical bound",
        fixed(number(r, "hierarchical_bound.bound_cycles", source)) +
            " cycles = sum of the levels' ring bounds; ratio " +
            fixed(number(r, "hierarchical_bound.ratio", source), 4));
  if (r.contains("ring_bound") && r["ring_bound"].is_object())
    row("ring bound", fixed(number(r, "ring_bound.bound_cycles", source)) +
                          " cycles = " + need(r, "ring_bound.formula", source).get<std::string>() +
                          "; ratio " + fixed(number(r, "ring_bound.ratio", source), 4));
  row("diagnostics", fixed(number(r, "diagnostics.errors", source)) + " errors, " +
                         fixed(number(r, "diagnostics.warnings", source)) + " warnings");
  out << "</table>\n";
}

void timeline(std::ostringstream& out, const Json& r, std::string_view source) {
  const Json& steps = need(r, "supersteps", source);
  const double total = std::max(1.0, number(r, "total_cycles", source));
  const double width = 960, row = 16, label = 180;
  const std::size_t shown = std::min<std::size_t>(steps.size(), 200);
  out << "<h2>Supersteps</h2>\n<p>Each bar runs from the superstep's start to its end: "
         "<span class=\"key\" style=\"background:#bab0ac\"></span> sync, "
         "<span class=\"key\" style=\"background:#f28e2b\"></span> exchange, "
         "<span class=\"key\" style=\"background:#4e79a7\"></span> compute (span of the "
         "slowest tile).";
  if (shown < steps.size())
    out << " First " << shown << " of " << steps.size() << ".";
  out << "</p>\n<svg width=\"" << label + width + 10 << "\" height=\"" << row * shown + 20
      << "\" class=\"timeline\">\n";
  for (std::size_t k = 0; k < shown; ++k) {
    const Json& s = steps[k];
    const std::string where = "supersteps[" + std::to_string(k) + "]";
    const double start = number(s, "start", source), end = number(s, "end", source);
    const double sync = number(s, "sync_cycles", source),
                 exchange = number(s, "exchange_cycles", source),
                 compute = number(s, "compute_cycles", source);
    const double y = static_cast<double>(k) * row;
    auto x = [&](double cycle) {
      return label + cycle / total * width;
    };
    out << "<g><title>" << escape(s.value("name", where)) << ": cycles " << fixed(start) << " to "
        << fixed(end) << ", " << fixed(number(s, "transfers", source)) << " transfers, "
        << fixed(number(s, "bytes", source)) << " bytes</title>\n";
    out << "<text x=\"0\" y=\"" << y + 12 << "\">" << escape(s.value("name", where)) << "</text>\n";
    double at = start;
    for (const auto& [part, colour] : {std::pair{sync, "#bab0ac"}, std::pair{exchange, "#f28e2b"},
                                       std::pair{compute, "#4e79a7"}}) {
      const double w = std::max(part / total * width, part > 0 ? 0.5 : 0.0);
      if (w > 0)
        out << "<rect x=\"" << fixed(x(at), 2) << "\" y=\"" << y + 2 << "\" width=\"" << fixed(w, 2)
            << "\" height=\"" << row - 4 << "\" fill=\"" << colour << "\"><title>"
            << escape(s.value("name", where)) << ": " << fixed(part) << " cycles</title></rect>\n";
      at += part;
    }
    out << "</g>\n";
  }
  out << "</svg>\n";
}

void tile_map(std::ostringstream& out, const Json& r, std::string_view source) {
  const Json& tiles = need(r, "tiles.per_tile", source);
  const double total = std::max(1.0, number(r, "total_cycles", source));
  const int chips = static_cast<int>(number(r, "schedule.chips", source));
  const double cell = tiles.size() > 2000 ? 5 : tiles.size() > 300 ? 8 : 18;
  // Grid extent per chip, from the positions the report gives.
  std::vector<int> columns(static_cast<std::size_t>(std::max(chips, 1)), 1),
      rows(static_cast<std::size_t>(std::max(chips, 1)), 1);
  for (const Json& t : tiles) {
    const auto chip = static_cast<std::size_t>(
        std::clamp(static_cast<int>(number(t, "chip", source)), 0, std::max(chips, 1) - 1));
    const Json& pos = need(t, "position", source);
    if (!pos.is_array() || pos.size() != 2)
      throw InputError(std::string(source) +
                       ": field 'tiles.per_tile.position': expected [column, row]");
    columns[chip] = std::max(columns[chip], pos[0].get<int>() + 1);
    rows[chip] = std::max(rows[chip], pos[1].get<int>() + 1);
  }
  double chip_width = 0, height = 0;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    chip_width = std::max(chip_width, columns[c] * cell);
    height = std::max(height, rows[c] * cell);
  }
  const double gap = 24;
  out << "<h2>Tiles</h2>\n<p>Each square is a tile at its place on its chip, darker the "
         "busier (compute and exchange against the total): "
      << "<span class=\"key\" style=\"background:" << busy_colour(0) << "\"></span> idle "
      << "<span class=\"key\" style=\"background:" << busy_colour(0.5) << "\"></span> half "
      << "<span class=\"key\" style=\"background:" << busy_colour(1) << "\"></span> always. "
      << "Hover for its numbers.</p>\n";
  out << "<svg width=\"" << fixed((chip_width + gap) * static_cast<double>(columns.size()))
      << "\" height=\"" << fixed(height + 20) << "\" class=\"tiles\">\n";
  for (std::size_t c = 0; c < columns.size(); ++c)
    out << "<text x=\"" << fixed((chip_width + gap) * static_cast<double>(c)) << "\" y=\"12\">chip "
        << c << "</text>\n";
  for (const Json& t : tiles) {
    const auto chip = static_cast<std::size_t>(
        std::clamp(static_cast<int>(number(t, "chip", source)), 0, std::max(chips, 1) - 1));
    const Json& pos = t["position"];
    const double busy = number(t, "busy_cycles", source);
    const double x = (chip_width + gap) * static_cast<double>(chip) + pos[0].get<int>() * cell;
    const double y = 16 + pos[1].get<int>() * cell;
    out << "<rect class=\"tile\" x=\"" << fixed(x, 1) << "\" y=\"" << fixed(y, 1) << "\" width=\""
        << fixed(cell - 1, 1) << "\" height=\"" << fixed(cell - 1, 1) << "\" fill=\""
        << busy_colour(busy / total) << "\"><title>tile " << fixed(number(t, "tile", source))
        << ": busy " << fixed(busy) << " cycles (" << fixed(100 * busy / total, 1) << "%), in "
        << fixed(number(t, "bytes_in", source)) << " B, out "
        << fixed(number(t, "bytes_out", source)) << " B, peak memory "
        << fixed(number(t, "memory.peak_bytes", source)) << " B</title></rect>\n";
  }
  out << "</svg>\n";
}

void memory(std::ostringstream& out, const Json& r, std::string_view source) {
  const Json& tiles = need(r, "tiles.per_tile", source);
  const double sram = number(r, "tiles.memory.sram_bytes", source);
  std::vector<const Json*> order;
  for (const Json& t : tiles)
    order.push_back(&t);
  // Fullest first; ties by tile number, so the page is the same every time.
  std::sort(order.begin(), order.end(), [&](const Json* a, const Json* b) {
    const double pa = number(*a, "memory.peak_bytes", source),
                 pb = number(*b, "memory.peak_bytes", source);
    return pa != pb ? pa > pb : number(*a, "tile", source) < number(*b, "tile", source);
  });
  const std::size_t shown = std::min<std::size_t>(order.size(), 32);
  const double width = 800, row = 14, label = 70;
  out << "<h2>Memory</h2>\n<p>Peak memory of the " << shown << " fullest tiles of " << tiles.size()
      << ", by category, against the tile's " << fixed(sram) << "-byte SRAM (the line): ";
  for (const auto& [name, colour] : kCategoryColours)
    out << "<span class=\"key\" style=\"background:" << colour << "\"></span> " << name << " ";
  out << "</p>\n<svg width=\"" << label + width + 10 << "\" height=\"" << row * shown + 10
      << "\" class=\"memory\">\n";
  const double scale = width / std::max(sram, number(r, "tiles.memory.max_peak_bytes", source));
  for (std::size_t k = 0; k < shown; ++k) {
    const Json& t = *order[k];
    const double y = static_cast<double>(k) * row;
    out << "<text x=\"0\" y=\"" << y + 11 << "\">tile " << fixed(number(t, "tile", source))
        << "</text>\n";
    double at = label;
    for (const auto& [name, colour] : kCategoryColours) {
      const double bytes = number(t, std::string("memory.at_peak.") + name, source);
      if (bytes <= 0)
        continue;
      out << "<rect x=\"" << fixed(at, 2) << "\" y=\"" << y + 1 << "\" width=\""
          << fixed(bytes * scale, 2) << "\" height=\"" << row - 2 << "\" fill=\"" << colour
          << "\"><title>tile " << fixed(number(t, "tile", source)) << ": " << name << " "
          << fixed(bytes) << " B</title></rect>\n";
      at += bytes * scale;
    }
  }
  out << "<line x1=\"" << fixed(label + sram * scale, 2) << "\" y1=\"0\" x2=\""
      << fixed(label + sram * scale, 2) << "\" y2=\"" << row * shown << "\" stroke=\"#e15759\"/>\n";
  out << "</svg>\n";
}

void links(std::ostringstream& out, const Json& r, std::string_view source) {
  const Json& l = need(r, "links", source);
  out << "<h2>Links</h2>\n<table class=\"summary\">\n<tr><th>on chip</th><td>"
      << fixed(number(l, "exchange.transfers", source)) << " transfers, "
      << fixed(number(l, "exchange.bytes", source)) << " bytes, mean send-port utilization "
      << fixed(100 * number(l, "exchange.mean_send_port_utilization", source), 1)
      << "%</td></tr>\n";
  if (l.contains("external") && l["external"].is_array())
    for (const Json& link : l["external"]) {
      out << "<tr><th>" << escape(link.value("name", std::string("external"))) << "</th><td>";
      bool first = true;
      for (const auto& [key, value] : link.items()) {
        if (key == "name" || !value.is_primitive())
          continue;
        out << (first ? "" : ", ") << escape(key) << " " << escape(value.dump());
        first = false;
      }
      out << "</td></tr>\n";
    }
  out << "</table>\n";
}

std::string html_page(const nlohmann::ordered_json& report, std::string_view source);

} // namespace

std::string html_report(const nlohmann::ordered_json& report, std::string_view source) {
  try {
    return html_page(report, source);
  } catch (const nlohmann::json::exception& e) { // a field of the wrong type
    throw InputError(std::string(source) + ": not a complete report: " + e.what());
  }
}

namespace {

std::string html_page(const nlohmann::ordered_json& report, std::string_view source) {
  if (!report.is_object() || report.value("format", std::string()) != kReportFormat)
    throw InputError(std::string(source) + ": field 'format': expected \"" +
                     std::string(kReportFormat) + "\"");
  std::ostringstream out;
  const std::string kernel = need(report, "schedule.kernel", source).get<std::string>();
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>s2p-sim: "
      << escape(kernel) << "</title>\n<style>\n"
      << "body{font:14px sans-serif;margin:24px;color:#222}"
         "table.summary th{text-align:left;padding-right:16px;font-weight:600}"
         "svg text{font:11px sans-serif}.key{display:inline-block;width:10px;height:10px;"
         "margin:0 4px 0 8px}rect.tile:hover{stroke:#e15759}\n"
      << "</style>\n</head>\n<body>\n<h1>" << escape(kernel) << "</h1>\n";
  summary(out, report, source);
  timeline(out, report, source);
  tile_map(out, report, source);
  memory(out, report, source);
  links(out, report, source);
  out << "<p>" << escape(need(report, "simulator", source).get<std::string>()) << ", "
      << escape(std::string(kReportFormat)) << "</p>\n</body>\n</html>\n";
  return out.str();
}

} // namespace

} // namespace s2p::sim
