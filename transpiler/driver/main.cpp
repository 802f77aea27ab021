// seq2par: annotated sequential C++ -> warp-split parallel C++.
//
//   seq2par [options] <files...> [-- <compiler flags>]
//   seq2par tune FILE --kernel NAME --out-dir DIR [options] [-- <compiler flags>]
//
// Exit codes: 0 success, 1 errors in the input (Clang-style diagnostics), 2 usage or I/O
// errors. Nothing is written unless every input succeeded.
#include "driver/command_line.h"
#include "driver/transpile_run.h"
#include "driver/tune_command.h"

#include <string_view>

int main(int argc, const char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "tune")
    return s2p::driver::run_tune_command(argc, argv);
  auto parsed = s2p::driver::parse_command_line(argc, argv);
  if (const int* exit_code = std::get_if<int>(&parsed))
    return *exit_code;
  return s2p::driver::transpile(*std::get<std::unique_ptr<s2p::driver::RunSettings>>(parsed));
}
