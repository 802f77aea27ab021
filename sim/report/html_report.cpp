// The report as one self-contained HTML page (inline CSS and SVG, no scripts, nothing fetched:
// a Content-Security-Policy forbids it): a summary; where the time went over the whole run
// (sync / exchange / compute); the timeline as groups of alike supersteps (a ring's phases,
// rule at SuperstepGroup), each a <details> element holding its supersteps one per row; a map
// of every chip's tiles coloured by how busy each was; the tiles with the highest memory peak
// by category against the SRAM and every tile's peak on the chip map; the links. Hovering a
// tile or bar shows its numbers. Built from the report JSON, so any saved report can be drawn;
// deterministic output.
#include "seq2par/sim/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <tuple>
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

// Phase colours (s sync, x exchange, c compute) match the category colours where they mean the
// same thing (exchange); groups are rows of a grid whose columns the header shares.
const char* const kStyle =
    "body{font:14px sans-serif;margin:24px;color:#222}"
    "table.summary th{text-align:left;padding-right:16px;font-weight:600}"
    "svg text{font:11px sans-serif}.key{display:inline-block;width:10px;height:10px;"
    "margin:0 4px 0 8px}rect.tile:hover{stroke:#e15759}\n"
    ".s{background:#bab0ac}.x{background:#f28e2b}.c{background:#4e79a7}"
    ".bar{display:flex;height:12px}.bar i{display:block;height:100%}"
    ".total .bar{height:28px}.total{max-width:1200px;background:#f4f4f4}.note{color:#555}\n"
    "summary,.head{display:grid;grid-template-columns:1.2em 22em 9em 7em 15em minmax(200px,1fr);"
    "gap:8px;align-items:center;padding:2px 0}.head{font-weight:600;border-bottom:1px solid #ccc}"
    "summary{cursor:pointer;list-style:none}summary::-webkit-details-marker{display:none}"
    "summary::before{content:'\\25b8'}details[open]>summary::before{content:'\\25be'}"
    "summary:hover{background:#f4f4f4}.name{overflow:hidden;text-overflow:ellipsis;"
    "white-space:nowrap}.num{text-align:right}.when{background:#f4f4f4}\n"
    "table.steps{border-collapse:collapse;margin:4px 0 12px 1.5em;font-size:12px}"
    "table.steps td,table.steps th{padding:1px 8px;text-align:right}"
    "table.steps td:nth-child(2),table.steps th:nth-child(2){text-align:left}"
    "table.steps td:last-child{width:240px}.omitted{text-align:center;color:#555}\n";

const char* const kCategoryColours[][2] = {{"data", "#4e79a7"},
                                           {"received", "#76b7b2"},
                                           {"exchange", "#f28e2b"},
                                           {"shared", "#59a14f"},
                                           {"pool", "#edc948"},
                                           {"code", "#b07aa1"}};

std::string thousands(std::uint64_t value);

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
  row("total", thousands(static_cast<std::uint64_t>(cycles)) + " cycles (" +
                   fixed(cycles / mhz, 3) + " us at " + fixed(mhz) + " MHz)");
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

std::string thousands(std::uint64_t value) {
  std::string digits = std::to_string(value), out;
  for (std::size_t k = 0; k < digits.size(); ++k) {
    if (k > 0 && (digits.size() - k) % 3 == 0)
      out += ',';
    out += digits[k];
  }
  return out;
}

double share(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  return fixed(share(part, whole), 1) + "%";
}

// Sync, exchange, compute as one stacked bar `width` percent of its container wide, `left`
// percent in; each segment's width is its share of the three.
void split_bar(std::ostringstream& out, const PhaseCycles& cycles, double width, double left = 0,
               const std::string& title = "") {
  out << "<span class=\"bar\"";
  if (!title.empty())
    out << " title=\"" << escape(title) << "\"";
  out << " style=\"";
  if (left > 0)
    out << "margin-left:" << fixed(left, 2) << "%;";
  out << "width:" << fixed(std::max(width, 0.1), 2) << "%\">";
  const std::uint64_t all = cycles.total();
  for (const auto& [part, css] : {std::pair{cycles.sync, "s"}, std::pair{cycles.exchange, "x"},
                                  std::pair{cycles.compute, "c"}})
    if (part > 0)
      out << "<i class=\"" << css << "\" style=\"width:" << fixed(share(part, all), 1)
          << "%\"></i>";
  out << "</span>";
}

// "sync 150 (47.8%), exchange 108 (34.4%), compute 56 (17.8%) cycles", for tooltips.
std::string phase_text(const PhaseCycles& cycles) {
  const std::uint64_t all = cycles.total();
  return "sync " + thousands(cycles.sync) + " (" + percent(cycles.sync, all) + "), exchange " +
         thousands(cycles.exchange) + " (" + percent(cycles.exchange, all) + "), compute " +
         thousands(cycles.compute) + " (" + percent(cycles.compute, all) + ") cycles";
}

const char* const kPhaseKey = "<span class=\"key s\"></span> sync, <span class=\"key x\"></span> "
                              "exchange, <span class=\"key c\"></span> compute";

void totals(std::ostringstream& out, const Json& r, const std::vector<SuperstepGroup>& groups,
            std::string_view source) {
  PhaseCycles all;
  std::size_t steps = 0;
  for (const SuperstepGroup& g : groups) {
    all.sync += g.cycles.sync;
    all.exchange += g.cycles.exchange;
    all.compute += g.cycles.compute;
    steps += g.count();
  }
  const auto run = static_cast<std::uint64_t>(number(r, "total_cycles", source));
  out << "<section id=\"totals\">\n<h2>Where the time went</h2>\n<div class=\"total\">";
  split_bar(out, all, 100, 0, phase_text(all));
  out << "</div>\n<p>";
  for (const auto& [name, css, part] :
       {std::tuple{"sync", "s", all.sync}, std::tuple{"exchange", "x", all.exchange},
        std::tuple{"compute", "c", all.compute}})
    out << "<span class=\"key " << css << "\"></span> " << name << " <b>"
        << percent(part, all.total()) << "</b> (" << thousands(part) << " cycles) ";
  out << "</p>\n<p class=\"note\">Summed over the " << thousands(steps)
      << " supersteps: " << thousands(all.total()) << " cycles; the run took " << thousands(run)
      << ".";
  // Why the two differ, so that a reader does not take it for an error.
  if (all.total() > run)
    out << " Supersteps overlap: a tile starts its next superstep while others still exchange, "
           "and sync groups run side by side.";
  out << " Compute is counted from the first tile's start to the last tile's compute end, so "
         "tiles arriving late count as compute.</p>\n</section>\n";
}

// One group as a row: its name pattern, how many supersteps, its cycles and split, and a bar
// placed where it ran on the whole run's timeline.
void group_summary(std::ostringstream& out, const SuperstepGroup& g, std::uint64_t run) {
  std::string label;
  for (const std::string& pattern : g.patterns)
    label += (label.empty() ? "" : " \xe2\x86\x92 ") + pattern; // an arrow between a block's steps
  out << "<summary><span class=\"name\" title=\"" << escape(g.first_name);
  if (g.count() > 1)
    out << " \xe2\x80\xa6 " << escape(g.last_name) << "; each " << thousands(g.shortest)
        << (g.shortest == g.longest ? "" : " to " + thousands(g.longest)) << " cycles";
  out << "\">" << escape(label) << "</span><span class=\"num\">";
  if (g.period > 1)
    out << g.repeats << " \xc3\x97 " << g.period << " = ";
  out << thousands(g.count()) << "</span><span class=\"num\">" << thousands(g.end - g.start)
      << "</span><span class=\"split\">" << percent(g.cycles.sync, g.cycles.total()) << " / "
      << percent(g.cycles.exchange, g.cycles.total()) << " / "
      << percent(g.cycles.compute, g.cycles.total()) << "</span><span class=\"when\">";
  const double whole = static_cast<double>(std::max<std::uint64_t>(run, 1));
  split_bar(out, g.cycles, 100.0 * static_cast<double>(g.end - g.start) / whole,
            100.0 * static_cast<double>(g.start) / whole,
            "cycles " + thousands(g.start) + " to " + thousands(g.end) + ": " +
                phase_text(g.cycles));
  out << "</span></summary>\n";
}

// Above this many supersteps a group lists its first and last half of them (a 5888-tile ring
// has 5887 per phase and fits); the page says how many it left out.
constexpr std::size_t kMaxStepRows = 10000;

void step_row(std::ostringstream& out, const Json& s, std::size_t index, std::uint64_t longest) {
  const auto value = [&](const char* key) {
    return s[key].get<std::uint64_t>();
  };
  const std::uint64_t cycles = value("end") - std::min(value("start"), value("end"));
  out << "<tr><td>" << index << "<td>" << escape(s["name"].get<std::string>()) << "<td>"
      << value("start") << "<td>" << cycles << "<td>" << value("sync_cycles") << "<td>"
      << value("exchange_cycles") << "<td>" << value("compute_cycles") << "<td>"
      << value("transfers") << "<td>" << value("bytes") << "<td>";
  split_bar(out, {value("sync_cycles"), value("exchange_cycles"), value("compute_cycles")},
            share(cycles, longest));
  out << "\n";
}

void step_table(std::ostringstream& out, const Json& steps, const SuperstepGroup& g) {
  out << "<table class=\"steps\"><tr><th>#<th>name<th>start<th>cycles<th>sync<th>exchange"
         "<th>compute<th>transfers<th>bytes<th>split, to scale with the group's longest\n";
  const std::size_t head = g.count() > kMaxStepRows ? kMaxStepRows / 2 : g.count();
  for (std::size_t k = g.first; k < g.first + head; ++k)
    step_row(out, steps[k], k, g.longest);
  if (head < g.count()) {
    const std::size_t tail = kMaxStepRows - head;
    out << "<tr><td colspan=\"10\" class=\"omitted\">" << thousands(g.count() - head - tail)
        << " supersteps omitted here (every one is in the report JSON)\n";
    for (std::size_t k = g.first + g.count() - tail; k < g.first + g.count(); ++k)
      step_row(out, steps[k], k, g.longest);
  }
  out << "</table>\n";
}

void timeline(std::ostringstream& out, const Json& r, const std::vector<SuperstepGroup>& groups,
              std::string_view source) {
  const Json& steps = need(r, "supersteps", source);
  const auto run = static_cast<std::uint64_t>(number(r, "total_cycles", source));
  out << "<section id=\"timeline\">\n<h2>Timeline</h2>\n<p>" << thousands(steps.size())
      << " supersteps in " << thousands(groups.size())
      << " groups. A group is a run of alike supersteps: the same name once numbers are "
         "ignored (<i>step #</i>), the same sync group and barrier; a block of up to "
      << kMaxGroupPeriod
      << " supersteps repeated in a row is one group too. Each bar spans the group's start to "
         "end on the whole run and splits it into "
      << kPhaseKey << ". Open a group for its supersteps.</p>\n"
      << "<div class=\"head\"><span></span><span>group</span><span class=\"num\">supersteps</span>"
         "<span class=\"num\">cycles</span><span class=\"split\">sync / exchange / compute</span>"
         "<span>when, over "
      << thousands(run) << " cycles</span></div>\n";
  for (const SuperstepGroup& g : groups) {
    out << "<details class=\"group\">";
    group_summary(out, g, run);
    step_table(out, steps, g);
    out << "</details>\n";
  }
  out << "</section>\n";
}

// Each chip's grid: columns and rows, from the positions the report gives.
struct ChipGrids {
  std::vector<int> columns, rows;
  [[nodiscard]] std::size_t chip_of(const Json& tile, std::string_view source) const {
    const int last = static_cast<int>(columns.size()) - 1;
    return static_cast<std::size_t>(
        std::clamp(static_cast<int>(number(tile, "chip", source)), 0, last));
  }
};

ChipGrids chip_grids(const Json& r, const Json& tiles, std::string_view source) {
  const auto chips = static_cast<std::size_t>(std::max(1.0, number(r, "schedule.chips", source)));
  ChipGrids grids{std::vector<int>(chips, 1), std::vector<int>(chips, 1)};
  for (const Json& t : tiles) {
    const std::size_t chip = grids.chip_of(t, source);
    const Json& pos = need(t, "position", source);
    if (!pos.is_array() || pos.size() != 2)
      throw InputError(std::string(source) +
                       ": field 'tiles.per_tile.position': expected [column, row]");
    grids.columns[chip] = std::max(grids.columns[chip], pos[0].get<int>() + 1);
    grids.rows[chip] = std::max(grids.rows[chip], pos[1].get<int>() + 1);
  }
  return grids;
}

// Drawn turned a quarter: a chip's columns (64 tiles tall) run across the page and chips stack
// downwards, so that the map fills the page's width instead of drawing a narrow strip.
void tile_map(std::ostringstream& out, const Json& r, std::string_view source) {
  const Json& tiles = need(r, "tiles.per_tile", source);
  const double total = std::max(1.0, number(r, "total_cycles", source));
  const ChipGrids grids = chip_grids(r, tiles, source);
  const int across = *std::max_element(grids.rows.begin(), grids.rows.end());
  const int down = *std::max_element(grids.columns.begin(), grids.columns.end());
  const double cell =
      std::clamp(std::floor(1200.0 / across), 4.0, tiles.size() > 3000 ? 6.0 : 18.0);
  const double chip_height = down * cell + 20;
  out << "<section id=\"tiles\">\n<h2>Tiles</h2>\n<p>Each square is a tile, darker the busier "
         "(compute and exchange against the total): "
      << "<span class=\"key\" style=\"background:" << busy_colour(0) << "\"></span> idle "
      << "<span class=\"key\" style=\"background:" << busy_colour(0.5) << "\"></span> half "
      << "<span class=\"key\" style=\"background:" << busy_colour(1) << "\"></span> always. "
      << "A chip's grid columns are drawn as rows, left to right from its top. Hover for a "
         "tile's numbers.</p>\n";
  out << "<svg width=\"" << fixed(across * cell + 10) << "\" height=\""
      << fixed(chip_height * static_cast<double>(grids.columns.size())) << "\" class=\"tiles\">\n";
  for (std::size_t c = 0; c < grids.columns.size(); ++c)
    out << "<text x=\"0\" y=\"" << fixed(chip_height * static_cast<double>(c) + 12) << "\">chip "
        << c << "</text>\n";
  for (const Json& t : tiles) {
    const Json& pos = t["position"];
    const double busy = number(t, "busy_cycles", source);
    const double x = pos[1].get<int>() * cell;
    const double y =
        chip_height * static_cast<double>(grids.chip_of(t, source)) + 16 + pos[0].get<int>() * cell;
    out << "<rect class=\"tile\" x=\"" << fixed(x, 1) << "\" y=\"" << fixed(y, 1) << "\" width=\""
        << fixed(cell - 1, 1) << "\" height=\"" << fixed(cell - 1, 1) << "\" fill=\""
        << busy_colour(busy / total) << "\"><title>tile " << fixed(number(t, "tile", source))
        << ": busy " << fixed(busy) << " cycles (" << fixed(100 * busy / total, 1) << "%), in "
        << fixed(number(t, "bytes_in", source)) << " B, out "
        << fixed(number(t, "bytes_out", source)) << " B, peak memory "
        << fixed(number(t, "memory.peak_bytes", source)) << " B</title></rect>\n";
  }
  out << "</svg>\n</section>\n";
}

// White (empty) to dark blue (full); red above the tile's SRAM.
std::string memory_colour(double fraction) {
  return fraction > 1.0 ? std::string("#e15759") : busy_colour(fraction);
}

// "data 4096 B, received 1024 B" (the categories live at the tile's peak), for tooltips.
std::string at_peak_text(const Json& tile, std::string_view source) {
  const Json& at_peak = need(tile, "memory.at_peak", source);
  std::string text;
  for (const auto& [name, colour] : kCategoryColours)
    if (at_peak.contains(name) && number(at_peak, name, source) > 0)
      text += (text.empty() ? "" : ", ") + std::string(name) + " " +
              fixed(number(at_peak, name, source)) + " B";
  return text.empty() ? std::string("nothing live") : text;
}

// Every tile's peak memory, in the tile map's places (a chip's columns as rows): a square per
// tile coloured by how full its peak is against the SRAM, the categories live at the peak on
// hover. The bars above draw only the fullest tiles; this shows where on the chip they sit.
void memory_of_every_tile(std::ostringstream& out, const Json& r, double sram,
                          std::string_view source) {
  const Json& tiles = need(r, "tiles.per_tile", source);
  const ChipGrids grids = chip_grids(r, tiles, source);
  const int across = *std::max_element(grids.rows.begin(), grids.rows.end());
  const int down = *std::max_element(grids.columns.begin(), grids.columns.end());
  const double cell =
      std::clamp(std::floor(1200.0 / across), 4.0, tiles.size() > 3000 ? 6.0 : 12.0);
  const double chip_height = down * cell + 20;
  out << "<p>Peak memory of every tile (" << tiles.size() << "), placed as in the tile map: "
      << "<span class=\"key\" style=\"background:" << memory_colour(0) << "\"></span> empty "
      << "<span class=\"key\" style=\"background:" << memory_colour(0.5) << "\"></span> half "
      << "<span class=\"key\" style=\"background:" << memory_colour(1) << "\"></span> full "
      << "<span class=\"key\" style=\"background:" << memory_colour(2) << "\"></span> above the "
      << "SRAM. Hover for a tile's peak by category.</p>\n<svg id=\"memory-all\" width=\""
      << fixed(across * cell + 10) << "\" height=\""
      << fixed(chip_height * static_cast<double>(grids.columns.size())) << "\" class=\"memory\">\n";
  for (std::size_t c = 0; c < grids.columns.size(); ++c)
    out << "<text x=\"0\" y=\"" << fixed(chip_height * static_cast<double>(c) + 12) << "\">chip "
        << c << "</text>\n";
  for (const Json& t : tiles) {
    const Json& pos = t["position"];
    const double peak = number(t, "memory.peak_bytes", source);
    const double x = pos[1].get<int>() * cell;
    const double y =
        chip_height * static_cast<double>(grids.chip_of(t, source)) + 16 + pos[0].get<int>() * cell;
    out << "<rect class=\"mem-tile\" x=\"" << fixed(x, 1) << "\" y=\"" << fixed(y, 1)
        << "\" width=\"" << fixed(cell - 1, 1) << "\" height=\"" << fixed(cell - 1, 1)
        << "\" fill=\"" << memory_colour(peak / std::max(sram, 1.0)) << "\"><title>tile "
        << fixed(number(t, "tile", source)) << ": peak " << fixed(peak) << " B ("
        << fixed(100 * peak / std::max(sram, 1.0), 1) << "% of the SRAM) at superstep "
        << fixed(number(t, "memory.peak_superstep", source)) << ": " << at_peak_text(t, source)
        << "</title></rect>\n";
  }
  out << "</svg>\n";
}

// The memory map over time: a row per tile (the fullest first, as in the chart above), the run's
// supersteps left to right, each stretch of constant live bytes coloured by how full the tile
// was (a report without `over_time`, from an older simulator, has no map).
void memory_over_time(std::ostringstream& out, const Json& r, const std::vector<const Json*>& order,
                      std::size_t shown, double sram, std::string_view source) {
  if (shown == 0 || !order.front()->contains("memory") ||
      !(*order.front())["memory"].contains("over_time"))
    return;
  const double steps = std::max(1.0, static_cast<double>(need(r, "supersteps", source).size()));
  const double width = 800, row = 10, label = 70;
  out << "<p>Live memory over the run's " << fixed(steps) << " supersteps, the " << shown
      << " fullest tiles: "
      << "white empty, dark blue full, red above the SRAM.</p>\n<svg id=\"memory-time\" width=\""
      << label + width + 10 << "\" height=\"" << row * static_cast<double>(shown) + 10
      << "\" class=\"memory\">\n";
  for (std::size_t k = 0; k < shown; ++k) {
    const Json& t = *order[k];
    const std::string tile = fixed(number(t, "tile", source));
    const double y = static_cast<double>(k) * row;
    out << "<text x=\"0\" y=\"" << y + 9 << "\">tile " << tile << "</text>\n";
    const Json& points = need(t, "memory.over_time", source);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const double from = std::min(points[i].at(0).get<double>(), steps);
      const double to = i + 1 < points.size() ? std::min(points[i + 1].at(0).get<double>(), steps)
                                              : steps;
      const double bytes = points[i].at(1).get<double>();
      if (to <= from || bytes <= 0)
        continue;
      out << "<rect x=\"" << fixed(label + from / steps * width, 2) << "\" y=\"" << y
          << "\" width=\"" << fixed((to - from) / steps * width, 2) << "\" height=\"" << row - 1
          << "\" fill=\"" << memory_colour(bytes / sram) << "\"><title>tile " << tile
          << ", supersteps " << fixed(from) << "-" << fixed(to - 1) << ": " << fixed(bytes)
          << " B live</title></rect>\n";
    }
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
  const double width = 800, row = 14, label = 70, rows_height = row * static_cast<double>(shown);
  out << "<section id=\"memory\">\n<h2>Memory</h2>\n<p>Peak memory of the " << shown
      << " fullest tiles of " << tiles.size() << ", by category, against the tile's " << fixed(sram)
      << "-byte SRAM (the line): ";
  for (const auto& [name, colour] : kCategoryColours)
    out << "<span class=\"key\" style=\"background:" << colour << "\"></span> " << name << " ";
  out << "</p>\n<svg width=\"" << label + width + 10 << "\" height=\"" << rows_height + 10
      << "\" class=\"memory\">\n";
  const double scale = width / std::max(sram, number(r, "tiles.memory.max_peak_bytes", source));
  for (std::size_t k = 0; k < shown; ++k) {
    const Json& t = *order[k];
    const double y = static_cast<double>(k) * row;
    out << "<text x=\"0\" y=\"" << y + 11 << "\">tile " << fixed(number(t, "tile", source))
        << "</text>\n";
    double at = label;
    for (const auto& [name, colour] : kCategoryColours) {
      // Reports from before a category existed lack it: nothing of it was live.
      const Json& at_peak = need(t, "memory.at_peak", source);
      const double bytes = at_peak.contains(name) ? number(at_peak, name, source) : 0.0;
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
      << fixed(label + sram * scale, 2) << "\" y2=\"" << rows_height << "\" stroke=\"#e15759\"/>\n";
  out << "</svg>\n";
  memory_of_every_tile(out, r, sram, source);
  memory_over_time(out, r, order, shown, sram, source);
  out << "</section>\n";
}

void links(std::ostringstream& out, const Json& r, std::string_view source) {
  const Json& l = need(r, "links", source);
  out << "<section id=\"links\">\n<h2>Links</h2>\n<table class=\"summary\">\n"
      << "<tr><th>on chip</th><td>" << fixed(number(l, "exchange.transfers", source))
      << " transfers, " << fixed(number(l, "exchange.bytes", source))
      << " bytes, mean send-port utilization "
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
  out << "</table>\n</section>\n";
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
  const std::vector<SuperstepGroup> groups =
      group_supersteps(need(report, "supersteps", source), source);
  // The policy makes "nothing fetched" a property the browser enforces (and reports).
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'\">\n<title>s2p-sim: "
      << escape(kernel) << "</title>\n<style>\n"
      << kStyle << "</style>\n</head>\n<body>\n<h1>" << escape(kernel) << "</h1>\n";
  summary(out, report, source);
  totals(out, report, groups, source);
  timeline(out, report, groups, source);
  tile_map(out, report, source);
  memory(out, report, source);
  links(out, report, source);
  out << "<p>" << escape(need(report, "simulator", source).get<std::string>()) << ", "
      << escape(std::string(kReportFormat)) << "</p>\n</body>\n</html>\n";
  return out.str();
}

} // namespace

} // namespace s2p::sim
