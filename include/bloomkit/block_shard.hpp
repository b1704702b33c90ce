// bloomkit/block_shard.hpp - one shard of a logical block filter: block_shard (owning,
// being built from the hashes routed to it) and block_shard_view (over
// borrowed blocks, such as a mapped shard file). Both answer only the hashes
// that route to them (bloomkit/sharding.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bloomkit/block_filter.hpp"
#include "bloomkit/detail/simd_batch.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/shard_layout.hpp"

namespace bloomkit {

/// The kind name files and manifests use for policy P ("blocked_bloom", "split_block_bloom").
template <detail::block_policy P>
constexpr std::string_view shard_kind_name() noexcept {
  return to_string(kind_traits<block_filter<P>>::kind);
}

namespace detail {

/// The parameters of shard s's own file: its range length as the block
/// count and its share of the capacity (at least 1), the rest as the whole.
template <block_policy P>
block_filter_params shard_file_params(const block_filter_params& whole, const shard_layout& layout, std::uint32_t s) {
  block_filter_params p = whole;
  p.blocks = layout.block_count(s);
  const long double share = static_cast<long double>(whole.capacity) * static_cast<long double>(p.blocks) /
                            static_cast<long double>(whole.blocks);
  p.capacity = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(share + 0.5L));
  return p;
}

/// Checks that s names a shard of `layout` over the logical filter `whole`:
/// valid parameters (validate_params' errors), the layout's block count is
/// whole.blocks and s is below its shard count (errc::invalid_argument).
template <block_policy P>
void require_shard_of(const block_filter_params& whole, const shard_layout& layout, std::uint32_t s) {
  validate_params<P>(whole);
  require(layout.blocks() == whole.blocks, errc::invalid_argument,
          "block shard: the layout has " + std::to_string(layout.blocks()) + " blocks, the filter " +
              std::to_string(whole.blocks));
  require(s < layout.shards(), errc::invalid_argument,
          "block shard: index " + std::to_string(s) + " is not below " + std::to_string(layout.shards()));
}

/// What a shard is, owned or viewed: shard `index` of `layout` over the
/// logical filter `whole`, its blocks (Blocks: a span of borrowed blocks or
/// a vector of its own) and the hashes inserted into it, checked once
/// (require_shard_of) and answered by the same accessors in both forms.
template <block_policy P, class Blocks>
class shard_state {
 public:
  using block_type = typename P::block_type;

  [[nodiscard]] const block_filter_params& whole_params() const noexcept { return whole_; }
  [[nodiscard]] const shard_layout& layout() const noexcept { return layout_; }
  [[nodiscard]] std::uint32_t index() const noexcept { return index_; }
  [[nodiscard]] std::uint64_t first_block() const noexcept { return layout_.first_block(index_); }
  [[nodiscard]] std::span<const block_type> blocks() const noexcept { return blocks_; }
  [[nodiscard]] std::uint64_t inserted() const noexcept { return inserted_; }

 protected:
  shard_state(const block_filter_params& whole, const shard_layout& layout, std::uint32_t s, Blocks blocks,
              std::uint64_t inserted)
      : whole_(whole), layout_(layout), index_(s), blocks_(std::move(blocks)), inserted_(inserted) {
    require_shard_of<P>(whole_, layout_, s);
  }

  block_filter_params whole_;
  shard_layout layout_;
  std::uint32_t index_;
  Blocks blocks_;
  std::uint64_t inserted_;
};

/// Throws errc::invalid_argument naming both shards unless every hash routes to `s`.
inline void require_routed_to(const shard_layout& layout, std::uint32_t s, std::span<const std::uint64_t> hashes,
                              std::string_view operation) {
  for (const std::uint64_t h : hashes) {
    const std::uint32_t owner = layout.shard_of_hash(h);
    if (owner != s) {
      throw error(errc::invalid_argument, "shard " + std::to_string(s) + " " + std::string(operation) +
                                              ": a hash routes to shard " + std::to_string(owner) +
                                              " (route the batch with bloomkit::route first)");
    }
  }
}

}  // namespace detail

/// A read-only shard: blocks [first_block(s), ...) of a logical filter with
/// parameters `whole`, over borrowed blocks (a mapped shard file). Answers
/// only hashes that route to it; the blocks must outlive it.
template <detail::block_policy P>
class block_shard_view : public detail::shard_state<P, std::span<const typename P::block_type>> {
  using state = detail::shard_state<P, std::span<const typename P::block_type>>;
 public:
  using block_type = typename P::block_type;

  /// Views `blocks` as shard `s` of `layout` for the logical filter `whole`.
  /// Throws errc::invalid_argument for a bad s or a layout whose block count
  /// differs from whole.blocks, errc::mismatch if blocks.size() is not the
  /// shard's range length.
  block_shard_view(const block_filter_params& whole, const shard_layout& layout, std::uint32_t s,
                   std::span<const block_type> blocks, std::uint64_t inserted)
      : state(whole, layout, s, blocks, inserted) {
    detail::require(this->blocks_.size() == this->layout_.block_count(s), errc::mismatch,
                    "block shard " + std::to_string(s) + ": expected " + std::to_string(this->layout_.block_count(s)) +
                        " blocks, got " + std::to_string(this->blocks_.size()));
  }

  /// True if h may be in the logical filter; h must route here (else errc::invalid_argument).
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const {
    detail::require_routed_to(this->layout_, this->index_, std::span<const std::uint64_t>(&h, 1), "may_contain_hash");
    const detail::shard_blocks<const block_type> locate{this->blocks_.data(), this->whole_.blocks,
                                                         this->first_block()};
    return detail::block_test<P>(locate(h), h, this->whole_.k);
  }

  /// out[i] = may_contain_hash(hashes[i]), through the same batched kernel
  /// and prefetch pipeline as block_filter_view's. Every hash must route
  /// here (checked first: errc::invalid_argument, `out` unchanged); sizes must match.
  void may_contain_many(std::span<const std::uint64_t> hashes, std::span<bool> out) const {
    detail::require(hashes.size() == out.size(), errc::invalid_argument,
                    "block shard: may_contain_many needs as many outputs as hashes");
    detail::require_routed_to(this->layout_, this->index_, hashes, "may_contain_many");
    detail::block_test_many<P>(
        detail::shard_blocks<const block_type>{this->blocks_.data(), this->whole_.blocks, this->first_block()},
        this->whole_.k, hashes.size(), detail::hashes_in_memory{hashes.data()}, out.data());
  }

  /// The shard as the normal filter its file holds (blocks = range length;
  /// see the header comment: its own may_contain is not the logical filter's).
  [[nodiscard]] block_filter_view<P> file_view() const {
    return block_filter_view<P>(detail::shard_file_params<P>(this->whole_, this->layout_, this->index_), this->blocks_,
                                this->inserted_);
  }

};

/// An owning shard being built: zero blocks for shard s's range, filled with
/// the hashes routed to s. After the same hashes (in any order, with any
/// repeats), its blocks equal blocks [first_block(s), ...) of the unsharded
/// block_filter<P>(whole) -- see the header comment.
template <detail::block_policy P>
class block_shard : public detail::shard_state<P, std::vector<typename P::block_type>> {
  using state = detail::shard_state<P, std::vector<typename P::block_type>>;
  using state::blocks_;
  using state::index_;
  using state::inserted_;
  using state::layout_;
  using state::whole_;

 public:
  using block_type = typename P::block_type;
  using view_type = block_shard_view<P>;

  /// An empty shard s of `layout` for the logical filter `whole`; the same
  /// checks as block_shard_view.
  block_shard(const block_filter_params& whole, const shard_layout& layout, std::uint32_t s)
      : state(whole, layout, s, {}, 0) {
    blocks_.assign(layout_.block_count(s), block_type{});
  }

  /// Shard s cut out of a whole filter (copies its block range and counts
  /// its share of inserted() as zero: a whole filter does not know it).
  static block_shard slice(const block_filter_view<P>& whole, const shard_layout& layout, std::uint32_t s) {
    block_shard shard(whole.params(), layout, s);
    const auto from = whole.blocks().subspan(layout.first_block(s), layout.block_count(s));
    std::copy(from.begin(), from.end(), shard.blocks_.begin());
    return shard;
  }

  /// Adds every hash (all must route here: checked before any bit is set,
  /// errc::invalid_argument naming the shards otherwise), through the same
  /// batched kernel as block_filter's insert_many. inserted() grows by hashes.size().
  void insert_many(std::span<const std::uint64_t> hashes) {
    detail::require_routed_to(layout_, index_, hashes, "insert_many");
    detail::block_set_many<P>(detail::shard_blocks<block_type>{blocks_.data(), whole_.blocks, this->first_block()},
                              whole_.k, hashes.size(), detail::hashes_in_memory{hashes.data()});
    inserted_ += hashes.size();
  }

  /// insert_many of one hash.
  void insert_hash(std::uint64_t h) { insert_many(std::span<const std::uint64_t>(&h, 1)); }

  /// OR of another build of the same shard (a retried or split task).
  /// errc::mismatch unless it is the same shard of the same logical filter.
  block_shard& merge(const view_type& other) {
    detail::require_same_shape<P>(whole_, other.whole_params(), "shard merge");
    detail::require(layout_ == other.layout() && index_ == other.index(), errc::mismatch,
                    "block shard merge: shard " + std::to_string(index_) + " of " +
                        std::to_string(layout_.shards()) + " vs shard " + std::to_string(other.index()) + " of " +
                        std::to_string(other.layout().shards()));
    const auto theirs = other.blocks();
    for (std::size_t i = 0; i < blocks_.size(); ++i) P::merge(blocks_[i], theirs[i]);
    inserted_ += other.inserted();
    return *this;
  }

  [[nodiscard]] view_type view() const { return view_type(whole_, layout_, index_, blocks_, inserted_); }
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const { return view().may_contain_hash(h); }
  void may_contain_many(std::span<const std::uint64_t> hashes, std::span<bool> out) const {
    view().may_contain_many(hashes, out);
  }

};

}  // namespace bloomkit
