// Proves an installed bloomkit::sharding is usable: shard a filter into a
// folder (argv[1]) with its manifest, open it again, query it, exit 0.
#include <bloomkit/sharding.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::filesystem::path folder = argv[1];
  std::filesystem::create_directories(folder);
  const bloomkit::split_block_bloom whole(1000, 0.01);
  const bloomkit::shard_layout layout(whole.num_blocks(), 4);
  std::vector<std::uint64_t> hashes;
  for (std::uint64_t i = 0; i < 1000; ++i) hashes.push_back(bloomkit::hash_key(i, whole.hash()));
  const bloomkit::shard_routing routing = bloomkit::route(layout, hashes);
  std::vector<bloomkit::shard_entry> entries;
  for (std::uint32_t s = 0; s < layout.shards(); ++s) {
    bloomkit::split_block_shard shard(whole.params(), layout, s);
    shard.insert_many(routing.hashes_of(s));
    entries.push_back(bloomkit::save_shard(shard, folder / bloomkit::shard_file_name(s, layout.shards())));
  }
  const auto manifest = bloomkit::make_manifest<bloomkit::split_block_bloom::policy>(whole.params(), layout, entries);
  bloomkit::write_manifest(manifest, folder / "filter.manifest.json");
  const bloomkit::sharded_split_block_bloom sharded(folder / "filter.manifest.json");
  for (std::uint64_t i = 0; i < 1000; ++i) {
    if (!sharded.may_contain(i)) return 1;
  }
  std::printf("consumer sharding ok: %u shards\n", layout.shards());
  return 0;
}
