// What the tuning loop (tune_loop.h) prints and writes: the table, the progress lines,
// --explain and the `.tune.json` record.
#include "tuning/tune_loop.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace s2p::tuning {

namespace {

std::string percent_text(double before, double after) {
  if (before <= 0)
    return "n/a";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%+.1f%%", (after / before - 1) * 100);
  return buffer;
}

std::string fired_text(const TuneRound& round) {
  std::string out;
  for (const Firing& f : round.trace.fired)
    out += (out.empty() ? "" : ", ") + f.rule;
  return out.empty() ? "-" : out;
}

std::string change_text(const TuneRound& round) {
  if (round.round == 0)
    return round.measured.from_store ? "starting plan (from the operation store)" : "starting plan";
  std::string out;
  for (const Firing& f : round.trace.fired)
    out += (out.empty() ? "" : "; ") + f.change;
  if (round.rolled_back)
    out += round.measured.wrong_result.empty() ? " (rolled back)" : " (rolled back: wrong result)";
  if (round.low_gain)
    out += " (below the minimum gain: its rules blocked on this plan)";
  if (round.reused_from >= 0)
    out += " (plan of round " + std::to_string(round.reused_from) + ", not rebuilt)";
  else if (round.measured.from_store)
    out += (out.empty() ? "" : " ") + std::string("(from the operation store)");
  return out;
}

// `text` filled to `width`; a longer text still gets two spaces, so that it does not run into
// the next column.
std::string padded(std::string text, std::size_t width) {
  text.append(text.size() + 2 <= width ? width - text.size() : 2, ' ');
  return text;
}

// Cycles are whole numbers: written as integers, as the simulator's reports write them.
nlohmann::ordered_json cycles_json(double cycles) {
  if (cycles == std::floor(cycles) && std::abs(cycles) < 9e15)
    return static_cast<std::int64_t>(cycles);
  return cycles;
}

nlohmann::ordered_json measured_json(const MeasuredChange& change) {
  nlohmann::ordered_json out{
      {"cycles_before", cycles_json(change.cycles_before)},
      {"cycles_after", cycles_json(change.cycles_after)},
      {"change", change.cycles_before > 0 ? change.cycles_after / change.cycles_before - 1 : 0.0}};
  if (change.max_busy)
    out["max_busy"] = {{"before", cycles_json(change.max_busy->first)},
                       {"after", cycles_json(change.max_busy->second)}};
  return out;
}

nlohmann::ordered_json round_json(const TuneRound& round) {
  nlohmann::ordered_json fired = to_json(round.trace)["fired"];
  for (std::size_t i = 0; i < fired.size() && i < round.changes.size(); ++i)
    fired[i]["measured"] = measured_json(round.changes[i]);
  nlohmann::ordered_json out{{"round", round.round},
                             {"cycles", cycles_json(round.measured.cycles)},
                             {"fired", fired},
                             {"plan", to_json(round.plan)}};
  // Per fabric tile: which tiles the round's program computed on (a failed tile must get none).
  if (!round.measured.feedback.compute.empty())
    out["tile_compute"] = round.measured.feedback.compute;
  if (round.from >= 0)
    out["from"] = round.from;
  out["rolled_back"] = round.rolled_back;
  if (!round.measured.wrong_result.empty())
    out["wrong_result"] = round.measured.wrong_result;
  out["low_gain"] = round.low_gain;
  if (!round.blocked.empty())
    out["blocked"] = round.blocked;
  if (round.reused_from >= 0)
    out["reused_from"] = round.reused_from;
  if (!round.measured.notes.empty())
    out["notes"] = round.measured.notes;
  if (round.measured.host_seconds > 0 && round.reused_from < 0)
    out["host_seconds"] = round.measured.host_seconds;
  if (round.measured.from_store && round.reused_from < 0)
    out["from_store"] = true;
  return out;
}

} // namespace

std::string progress_line(const TuneRound& round, double round0_cycles) {
  std::string line = "round " + std::to_string(round.round) + ": " +
                     (round.measured.wrong_result.empty() ? number_text(round.measured.cycles) + " cycles"
                                                          : std::string("wrong result"));
  if (round.round > 0 && round.measured.wrong_result.empty())
    line += " (" + percent_text(round0_cycles, round.measured.cycles) + " against round 0)";
  line += round.round == 0 ? ", starting plan" : ", " + fired_text(round);
  if (round.rolled_back)
    line += ", rolled back";
  if (!round.measured.wrong_result.empty())
    line += ": " + round.measured.wrong_result;
  return line;
}

std::string tune_table(const TuneResult& result) {
  if (result.rounds.empty())
    return "";
  const double round0 = result.rounds.front().measured.cycles;
  std::string out = padded("round", 7) + padded("cycles", 12) + padded("vs 0", 9) +
                    padded("rules fired", 26) + "change\n";
  for (const TuneRound& round : result.rounds)
    out += padded(std::to_string(round.round) + (round.round == result.best ? "*" : ""), 7) +
           padded(round.measured.wrong_result.empty() ? number_text(round.measured.cycles) : "wrong", 12) +
           padded(round.measured.wrong_result.empty() ? percent_text(round0, round.measured.cycles) : "-", 9) +
           padded(fired_text(round), 26) +
           change_text(round) + "\n";
  out += "best: round " + std::to_string(result.best) + " (*), stopped: " + to_string(result.stop) +
         "\n";
  return out;
}

std::string explain(const TuneResult& result) {
  std::string out;
  for (const TuneRound& round : result.rounds) {
    if (round.round == 0)
      continue;
    out += "round " + std::to_string(round.round) + " (rules on round " +
           std::to_string(round.from) + "'s plan";
    for (const std::string& rule : round.blocked)
      out += "; '" + rule + "' not fired again on this plan (rolled back or no gain before)";
    out += "):\n" + explain(round.trace);
    for (std::size_t i = 0; i < round.changes.size(); ++i) {
      const MeasuredChange& c = round.changes[i];
      out += "  measured for '" + round.trace.fired[i].rule + "': cycles " +
             number_text(c.cycles_before) + " -> " + number_text(c.cycles_after) + " (" +
             percent_text(c.cycles_before, c.cycles_after) + ")";
      if (c.max_busy)
        out += ", max busy " + number_text(c.max_busy->first) + " -> " +
               number_text(c.max_busy->second);
      out += "\n";
    }
    for (const std::string& note : round.measured.notes)
      out += "  note: " + note + "\n";
    if (round.rolled_back)
      out += round.measured.wrong_result.empty()
                 ? "  rolled back: slower than round " + std::to_string(round.from) +
                       " beyond the rollback threshold\n"
                 : "  rolled back: " + round.measured.wrong_result + "\n";
    if (round.low_gain)
      out += "  kept, but gained less than the minimum gain over round " +
             std::to_string(round.from) + ": its rules are not fired again on this plan\n";
  }
  if (result.stop == TuneStop::NoRuleFired || result.stop == TuneStop::NoChange ||
      result.stop == TuneStop::NoGain)
    out += "final evaluation:\n" + explain(result.last_trace);
  return out;
}

nlohmann::ordered_json to_json(const TuneResult& result) {
  nlohmann::ordered_json rounds = nlohmann::ordered_json::array();
  for (const TuneRound& round : result.rounds)
    rounds.push_back(round_json(round));
  return {{"format", "seq2par.tune/1"},
          {"kernel", result.rounds.empty() ? std::string() : result.rounds.front().plan.kernel},
          {"rounds", rounds},
          {"best", result.best},
          {"stop", to_string(result.stop)}};
}

} // namespace s2p::tuning
