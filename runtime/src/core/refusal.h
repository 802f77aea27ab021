// How a generated program ends when one of the runtime's refusals (a misuse it finds when the
// program runs, std::invalid_argument; a failed run, std::runtime_error) is not caught: with
// `seq2par: <message>` on stderr and exit code 1, not std::terminate's abort and core dump.
// The exceptions keep their types, so a program that catches them still can.
#pragma once

#include <exception>
#include <optional>
#include <string>

namespace s2p::rt {

// The message of `error` when the runtime threw it (its own exception types, or a message in
// the runtime's words: "seq2par: ...", "s2p...", "S2P_..."), without a leading "seq2par: ";
// nothing for any other exception (the user's own), which ends the program as it would end
// the sequential one.
std::optional<std::string> runtime_refusal(const std::exception_ptr& error);

// Installs the terminate handler that ends the program so on an uncaught refusal (other
// exceptions go to the handler that was there). Called during static initialization.
void install_refusal_handler();

} // namespace s2p::rt
