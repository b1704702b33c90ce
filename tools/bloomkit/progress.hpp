// tools/bloomkit/progress.hpp - a one-line progress bar on stderr.
//
// Shown only when stderr is a terminal (isatty), so pipes, logs and tests
// see nothing. Redrawn at most ten times a second; the caller may call
// update() once per batch of keys, and the check is one clock read.
// With a known total (bytes of regular files) it shows a bar, percent,
// rate and ETA; without one (stdin) it shows the keys so far and the rate.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

namespace bloomkit::cli {

class progress_bar {
 public:
  /// `label` prefixes the line ("build", "count"); `total_bytes` is 0 when
  /// unknown. `enabled` false (e.g. --quiet) hides it even on a terminal.
  progress_bar(std::string label, std::uint64_t total_bytes, bool enabled = true)
      : label_(std::move(label)), total_(total_bytes), enabled_(enabled && ::isatty(STDERR_FILENO) == 1) {}
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;
  ~progress_bar() { finish(); }

  /// Records `bytes` done and `keys` seen so far; redraws if due.
  void update(std::uint64_t bytes, std::uint64_t keys) {
    if (!enabled_) return;
    const auto now = clock::now();
    if (now < next_draw_) return;
    next_draw_ = now + std::chrono::milliseconds(100);
    draw(bytes, keys, now);
  }

  /// Clears the line (call before printing anything else to stderr).
  void finish() {
    if (!enabled_ || !drawn_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
  }

  [[nodiscard]] bool enabled() const noexcept { return enabled_; }

 private:
  using clock = std::chrono::steady_clock;

  static std::string human(double x) {
    char buffer[32];
    if (x >= 1e9) std::snprintf(buffer, sizeof buffer, "%.2fG", x / 1e9);
    else if (x >= 1e6) std::snprintf(buffer, sizeof buffer, "%.2fM", x / 1e6);
    else if (x >= 1e3) std::snprintf(buffer, sizeof buffer, "%.1fk", x / 1e3);
    else std::snprintf(buffer, sizeof buffer, "%.0f", x);
    return buffer;
  }

  void draw(std::uint64_t bytes, std::uint64_t keys, clock::time_point now) {
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double rate = seconds > 0 ? static_cast<double>(keys) / seconds : 0.0;
    char line[160];
    if (total_ > 0) {
      const double done = std::min(1.0, static_cast<double>(bytes) / static_cast<double>(total_));
      constexpr int width = 30;
      char bar[width + 1];
      const int filled = static_cast<int>(done * width);
      for (int i = 0; i < width; ++i) bar[i] = i < filled ? '#' : '.';
      bar[width] = '\0';
      const double byte_rate = seconds > 0 ? static_cast<double>(bytes) / seconds : 0.0;
      const double eta = byte_rate > 0 ? static_cast<double>(total_ - std::min(bytes, total_)) / byte_rate : 0.0;
      std::snprintf(line, sizeof line, "\r%s [%s] %5.1f%%  %s keys  %s keys/s  ETA %.0f s\033[K", label_.c_str(), bar,
                    100 * done, human(static_cast<double>(keys)).c_str(), human(rate).c_str(), eta);
    } else {
      std::snprintf(line, sizeof line, "\r%s  %s keys  %s keys/s\033[K", label_.c_str(),
                    human(static_cast<double>(keys)).c_str(), human(rate).c_str());
    }
    std::fputs(line, stderr);
    std::fflush(stderr);
    drawn_ = true;
  }

  std::string label_;
  std::uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  clock::time_point start_ = clock::now();
  clock::time_point next_draw_ = start_ + std::chrono::milliseconds(200);
};

}  // namespace bloomkit::cli
