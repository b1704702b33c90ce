// fuzz/postgres_input_fuzz.cpp - libFuzzer target over the PostgreSQL
// extension's input path (postgres/src/bloomkit_core.cpp, compiled here
// without PostgreSQL): the bytes of a bloomfilter value (bloomfilter_in, the
// bytea cast, recv), every function that reads one (probe, info, estimates,
// bloom_add, bloom_merge), and the aggregates' serialized state
// (bloom_state_deserialfn).
//
// Each input is tried at the alignment a PostgreSQL value has (4 bytes past
// an 8-byte boundary: VARDATA of a palloc'd varlena) and resealed (both
// checksums recomputed, as file_format_fuzz does) so the field checks behind
// the checksums are reached. Beyond "no crash, no sanitizer report, every
// failure a status", it aborts when an invariant breaks:
//   * bk_validate, bk_reader_open, bk_builder_from_file and bk_info_json
//     accept exactly the same inputs;
//   * an accepted file written back by the builder is its own bytes;
//   * a key added by bloom_add's path is then reported present.
// tests: fuzz_replay_main.cpp replays fuzz/corpus/postgres_input as a ctest.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../postgres/src/bloomkit_core.cpp"
#include "bloomkit/format/core.hpp"

namespace bloomkit_pg_fuzz {

inline void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "postgres_input_fuzz: invariant broken: %s\n", what);
    std::abort();
  }
}

/// A probe of every value tag, whatever the filter's key type.
inline void probe_all(const bk_reader* reader, bk_status* status) {
  static const char text[] = "key";
  const bk_value values[] = {
      {BK_VALUE_INT, 42, 0, nullptr, 0},       {BK_VALUE_FLOAT, 0, 2.5, nullptr, 0},
      {BK_VALUE_BYTES, 0, 0, text, 3},         {BK_VALUE_TIMESTAMP, 1700000000000000, 0, nullptr, 0},
      {BK_VALUE_DATE, 19000, 0, nullptr, 0},   {BK_VALUE_INT, -1, 0, nullptr, 0},
  };
  for (const bk_value& v : values) {
    const int answer = bk_reader_contains(reader, &v, status);
    require(answer == 0 || answer == 1 || (answer == -1 && status->code == BK_E_MISMATCH),
            "a probe answers or refuses the key's type");
  }
}

inline void check_value(const std::byte* data, std::size_t size) {
  bk_status status{};
  const bool valid = bk_validate(data, size, &status) == 0;
  require(valid || status.code != BK_OK, "a refusal carries a code");

  bk_reader* reader = bk_reader_open(data, size, &status);
  require((reader != nullptr) == valid, "bk_reader_open accepts what bk_validate accepts");
  if (reader != nullptr) {
    probe_all(reader, &status);
    bk_reader_free(reader);
  }

  char json[4096];
  const long length = bk_info_json(data, size, json, sizeof json, &status);
  require((length >= 0) == valid, "bk_info_json accepts what bk_validate accepts");
  double cardinality = 0, fpr = 0;
  require((bk_estimates(data, size, &cardinality, &fpr, &status) == 0) == valid, "bk_estimates agrees");

  bk_builder* builder = bk_builder_from_file(data, size, &status);
  require((builder != nullptr) == valid, "bk_builder_from_file accepts what bk_validate accepts");
  if (builder == nullptr) return;
  // Written back unchanged: the same bytes (the encoding is canonical).
  if (bk_builder_finish_step(builder, 1024, &status) == 0) {
    const std::size_t bytes = bk_builder_file_bytes(builder, &status);
    if (bytes == size) {
      std::vector<std::byte> out(bytes);
      require(bk_builder_write_file(builder, out.data(), bytes, &status) == 0, "write_file of a loaded filter");
      require(std::memcmp(out.data(), data, size) == 0, "a loaded filter writes back its own bytes");
    } else {
      require(bytes == 0, "a loaded filter's file size is its input's");
    }
  }
  // bloom_merge with itself, then bloom_add of one key (kinds that take them).
  (void)bk_builder_combine_file(builder, data, size, 0, &status);
  const bk_value key{BK_VALUE_INT, 7, 0, nullptr, 0};
  if (bk_builder_add(builder, &key, &status) == 0 && bk_builder_finish_step(builder, 1024, &status) == 0) {
    const std::size_t bytes = bk_builder_file_bytes(builder, &status);
    if (bytes > 0) {
      std::vector<std::byte> storage(bytes + 8);
      std::byte* out = storage.data() + 4;
      require(bk_builder_write_file(builder, out, bytes, &status) == 0, "write_file after an add");
      bk_reader* again = bk_reader_open(out, bytes, &status);
      require(again != nullptr, "a filter bloom_add wrote reads back");
      require(bk_reader_contains(again, &key, &status) == 1, "the added key is present");
      bk_reader_free(again);
    }
  }
  bk_builder_free(builder);
}

inline void check_state(const std::byte* data, std::size_t size) {
  bk_status status{};
  bk_builder* state = bk_builder_deserialize(data, size, &status);
  if (state == nullptr) return;
  if (bk_builder_finish_step(state, 1 << 16, &status) == 0) (void)bk_builder_file_bytes(state, &status);
  bk_builder_free(state);
}

/// The whole check for one input: at a varlena's alignment (4 past 8), as
/// given and resealed; and as an aggregate state.
inline void check_input(const std::uint8_t* data, std::size_t size) {
  std::vector<std::byte> storage(size + 72);
  const auto address = reinterpret_cast<std::uintptr_t>(storage.data());
  std::byte* at = storage.data() + (64 - address % 64) % 64 + 4;
  if (size > 0) std::memcpy(at, data, size);
  check_value(at, size);
  if (bloomkit::detail::format::reseal(std::span<std::byte>(at, size))) check_value(at, size);
  check_state(at, size);
}

}  // namespace bloomkit_pg_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bloomkit_pg_fuzz::check_input(data, size);
  return 0;
}
