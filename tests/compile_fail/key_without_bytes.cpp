// Must NOT compile: a user type without bloomkit_key_bytes. The test
// (tests/compile_fail/run.cmake) checks the compiler names the hook.
#include <bloomkit/bloomkit.hpp>

namespace app {
struct point {
  int x, y;
};
}  // namespace app

int main() {
  bloomkit::standard_bloom filter(100, 0.01);
  filter.insert(app::point{1, 2});
  return filter.may_contain(app::point{1, 2}) ? 0 : 1;
}
