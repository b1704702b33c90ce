// Compiled by ./bloomkit.sh test with em++ (libc++ 13, 32-bit size_t): every
// public header must stay buildable for WebAssembly, warning-free.
#include <bloomkit/bloomkit.hpp>

int main() {
  bloomkit::standard_bloom filter(100, 0.01);
  filter.insert(1);
  return filter.may_contain(1) ? 0 : 1;
}
