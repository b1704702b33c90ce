// tests/tsan/planted_race.cpp - a data race on purpose, built only in the
// tsan preset. ctest's tsan_catches_planted_race passes only if
// ThreadSanitizer reports it, so a build whose TSan is silently missing or
// broken (no -fsanitize=thread, a runtime that does not start) fails the
// tsan step instead of passing it (docs/RELIABILITY.md).
#include <cstdio>
#include <thread>

namespace {
long counter = 0;  // shared, unsynchronised: the race

void bump() {
  for (int i = 0; i < 1000; ++i) counter = counter + 1;
}
}  // namespace

int main() {
  std::thread a(bump), b(bump);
  a.join();
  b.join();
  std::printf("counter = %ld\n", counter);
  return 0;
}
