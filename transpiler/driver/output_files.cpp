#include "driver/output_files.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <system_error>

namespace s2p::driver {

std::string write_all_or_nothing(const std::vector<OutputFile>& files) {
  std::vector<std::string> temporaries;
  auto discard = [&] {
    for (const auto& tmp : temporaries)
      llvm::sys::fs::remove(tmp);
  };
  for (const auto& file : files) {
    const auto dir = llvm::sys::path::parent_path(file.path);
    if (!dir.empty()) {
      if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
        discard();
        return "cannot create directory '" + dir.str() + "': " + ec.message();
      }
    }
    const std::string tmp = file.path + ".s2p-tmp";
    std::error_code ec;
    {
      llvm::raw_fd_ostream out(tmp, ec, llvm::sys::fs::OF_None);
      if (!ec) {
        out << file.content;
        out.close();
        if (out.has_error())
          ec = out.error();
      }
    }
    temporaries.push_back(tmp);
    if (ec) {
      discard();
      return "cannot write '" + file.path + "': " + ec.message();
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (std::error_code ec = llvm::sys::fs::rename(temporaries[i], files[i].path)) {
      discard();
      return "cannot write '" + files[i].path + "': " + ec.message();
    }
  }
  return "";
}

} // namespace s2p::driver
