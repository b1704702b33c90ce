// tools/bloomkit/signals.cpp - see signals.hpp.
#include "signals.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>

#include "bloomkit/file_format.hpp"
#include "commands.hpp"

namespace bloomkit::cli {

namespace {

char mapped_path[1024] = "the filter file";

void write_stderr(const char* text) noexcept {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t put = ::write(STDERR_FILENO, text, left);
    if (put <= 0) return;
    text += put;
    left -= static_cast<std::size_t>(put);
  }
}

extern "C" void on_terminating_signal(int sig) {
  bloomkit::remove_unfinished_saves();
  // End by the same signal, as if there were no handler (the shell prints
  // nothing for SIGINT and reports 128 + N).
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

extern "C" void on_sigbus(int) {
  bloomkit::remove_unfinished_saves();
  write_stderr("bloomkit: ");
  write_stderr(mapped_path);
  write_stderr(": the file shrank while it was mapped (truncated by another program?); "
               "its answers cannot be trusted. Replace filter files by rename (bloomkit's writers do)\n");
  ::_exit(exit_data);
}

}  // namespace

void install_signal_handlers() {
  struct sigaction action {};
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  action.sa_handler = on_terminating_signal;
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // A signal the caller set to be ignored (nohup, a shell's background
    // job) stays ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    (void)::sigaction(sig, &action, nullptr);
  }
  action.sa_handler = on_sigbus;
  action.sa_flags = 0;
  (void)::sigaction(SIGBUS, &action, nullptr);
}

void note_mapped_file(const char* path) noexcept {
  std::size_t n = std::strlen(path);
  if (n >= sizeof mapped_path) n = sizeof mapped_path - 1;
  // A SIGBUS can only come after this returns (the file is mapped later).
  std::memcpy(mapped_path, path, n);
  mapped_path[n] = '\0';
}

}  // namespace bloomkit::cli
