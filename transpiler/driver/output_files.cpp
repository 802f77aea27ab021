#include "driver/output_files.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <system_error>

namespace s2p::driver {

std::string write_all_or_nothing(const std::vector<OutputFile>& files) {
  std::vector<std::string> temporaries;
  auto discard = [&] {
    for (const auto& tmp : temporaries)
      (void)llvm::sys::fs::remove(tmp); // best effort, after the error that is reported
  };
  for (const auto& file : files) {
    const auto dir = llvm::sys::path::parent_path(file.path);
    if (!dir.empty()) {
      if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
        discard();
        return "cannot create directory '" + dir.str() + "': " + ec.message();
      }
    }
    // A unique name: several seq2par processes may write into one directory at once (a
    // parallel build), and each rename must still replace the file in one step.
    int fd = -1;
    llvm::SmallString<256> tmp;
    std::error_code ec = llvm::sys::fs::createUniqueFile(file.path + ".%%%%%%.s2p-tmp", fd, tmp);
    if (!ec) {
      llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
      out << file.content;
      out.close();
      if (out.has_error()) {
        ec = out.error();
        out.clear_error(); // reported below, not fatal
      }
      temporaries.push_back(tmp.str().str());
    }
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
