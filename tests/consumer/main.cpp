// Proves an installed bloomkit is usable: build a filter, query it, exit 0.
#include <bloomkit/bloomkit.hpp>

#include <cstdio>
#include <string>

int main() {
  bloomkit::split_block_bloom filter(1000, 0.01);
  for (int i = 0; i < 1000; ++i) filter.insert("key-" + std::to_string(i));
  for (int i = 0; i < 1000; ++i) {
    if (!filter.may_contain("key-" + std::to_string(i))) return 1;
  }
  std::printf("consumer ok: %llu bytes\n", static_cast<unsigned long long>(filter.size_in_bytes()));
  return 0;
}
