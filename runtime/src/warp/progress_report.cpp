#include "warp/progress_report.h"

#include <sstream>

namespace s2p::rt {
namespace {

std::string describe_site(const kernel_info& info, int site) {
  if (site < 0 || site >= info.site_count || !info.sites)
    return "";
  std::ostringstream out;
  out << info.sites[site].label << " (" << info.source << ":" << info.sites[site].line << ")";
  return out.str();
}

} // namespace

std::string describe_warps(const kernel_info& info, const std::vector<warp_snapshot>& warps,
                           const std::string& backend, const std::string& why) {
  std::ostringstream out;
  out << "seq2par: kernel '" << info.name << "' (" << info.source << ") on the " << backend
      << " backend: " << why;
  for (const auto& w : warps) {
    out << "\n  warp " << w.warp_id << ": ";
    const std::string where = describe_site(info, w.site);
    switch (w.status) {
    case warp_status::finished:
      out << "finished";
      break;
    case warp_status::blocked:
      out << "waits on channel " << w.channel << " for signal #" << w.phase << " (has "
          << w.channel_count << ")";
      if (!where.empty())
        out << " before " << where;
      break;
    case warp_status::running:
      out << "running";
      if (!where.empty())
        out << ", last at " << where;
      break;
    }
  }
  return out.str();
}

} // namespace s2p::rt
