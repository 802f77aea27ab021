#include "core/refusal.h"

#include <seq2par/runtime.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string_view>

namespace s2p::rt {

namespace {

bool in_runtime_words(std::string_view text) {
  return text.starts_with("seq2par") || text.starts_with("s2p") || text.starts_with("S2P_");
}

std::terminate_handler previous_handler = nullptr;

[[noreturn]] void end_on_refusal() {
  if (const auto message = runtime_refusal(std::current_exception())) {
    // What the program printed before the refusal stays printed, as the sequential run's would.
    std::cout.flush();
    std::fflush(stdout);
    std::fprintf(stderr, "seq2par: %s\n", message->c_str());
    std::fflush(stderr);
    // No static destructors: the runtime's thread pools may still hold threads.
    std::_Exit(1);
  }
  if (previous_handler)
    previous_handler();
  std::abort();
}

} // namespace

std::optional<std::string> runtime_refusal(const std::exception_ptr& error) {
  if (!error)
    return std::nullopt;
  std::string text;
  try {
    std::rethrow_exception(error);
  } catch (const deadlock_error& e) {
    text = e.what();
  } catch (const race_error& e) {
    text = e.what();
  } catch (const std::exception& e) {
    if (!in_runtime_words(e.what()))
      return std::nullopt;
    text = e.what();
  } catch (...) {
    return std::nullopt;
  }
  constexpr std::string_view prefix = "seq2par: ";
  if (std::string_view(text).starts_with(prefix))
    text.erase(0, prefix.size());
  return text;
}

void install_refusal_handler() {
  previous_handler = std::set_terminate(end_on_refusal);
}

} // namespace s2p::rt
