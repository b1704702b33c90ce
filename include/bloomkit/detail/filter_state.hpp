// bloomkit/detail/filter_state.hpp - the state of an owning filter and of its
// view for the kinds whose payload is one array (of bit or counter words,
// blocks, buckets, slices, or a static filter's solution): parameters, the
// elements, and Side, what the kind keeps beside its array. For the kinds
// that count inserts, Side is the insert count with the rule each set
// operation applies to it (view_state, owner_state). The kind's reader (its
// queries and statistics, detail/facade.hpp) reads params(), the elements and
// Side's fields from here; the kind adds only what is its own (validation,
// inserts, the element-wise operation of merge and intersect).
//
// Side is a base class, not a member, so that each kind reads its fields by
// their own names (count_, stored_ and victim_, state_, map_). It is copied
// into each view the owner makes, so it holds only values.
//
// Accuracy is bloomkit::count_accuracy (filter.hpp). It is a template
// parameter because detail/ headers include no public ones; its rules,
// combine_sum and combine_min, are found by argument-dependent lookup.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/detail/facade.hpp"
#include "bloomkit/detail/memory.hpp"

namespace bloomkit::detail {

/// An insert count and what it is (exact, an upper bound, an estimate).
template <class Accuracy>
struct insert_count {
  std::uint64_t value = 0;
  Accuracy accuracy{};  ///< value-initialised: exact

  /// After a union with a filter counting `other`: the sum, as exact as the
  /// weaker of the two (combine_sum).
  constexpr void add(const insert_count& other) noexcept {
    value += other.value;
    accuracy = combine_sum(accuracy, other.accuracy);
  }
  /// After an intersection: the smaller count, which only bounds the keys
  /// both hold (combine_min: at_most or weaker).
  constexpr void keep_smaller(const insert_count& other) noexcept {
    value = std::min(value, other.value);
    accuracy = combine_min(accuracy, other.accuracy);
  }
};

/// Side for a kind that keeps nothing beside its array (the static kinds).
struct no_side {};

/// Side for a kind that counts inserts: the count and its accuracy.
template <class Accuracy>
struct counted_side {
  insert_count<Accuracy> count_;
};

/// A view's state: its parameters, the borrowed elements and the kind's
/// Side. The constructor is the trusted one (no validation): an owner's
/// view(), or a codec after its checks. A view type inherits it and adds a
/// validating constructor of its own.
template <class Params, class T, class Side>
class array_view_state : protected Side {
 public:
  array_view_state(trusted_t, const Params& params, std::span<const T> elements, const Side& side) noexcept
      : Side(side), params_(params), elements_(elements) {}

  [[nodiscard]] const Params& params() const noexcept { return params_; }

 protected:
  [[nodiscard]] std::span<const T> elements() const noexcept { return elements_; }

 private:
  Params params_;
  std::span<const T> elements_;
};

/// An owning filter's state: parameters, its elements (allocated by the
/// kind) and the kind's Side, with what every owner does with them alone:
/// params(), view(), copying (allocated as a new filter is), clearing.
/// View is the kind's view type: its trusted constructor takes (trusted,
/// params, elements, Side), and its kind_name names copies that fail.
template <class View, class Params, class T, class Side>
class array_owner_state : protected Side {
 public:
  [[nodiscard]] const Params& params() const noexcept { return params_; }

  /// A read-only view of this filter (valid while it lives and keeps its
  /// size: a block filter's fold shrinks it).
  [[nodiscard]] View view() const noexcept {
    return View(trusted, params_, std::span<const T>(elements_), static_cast<const Side&>(*this));
  }

 protected:
  array_owner_state() = default;
  explicit array_owner_state(const Params& params) : params_(params) {}
  array_owner_state(const Params& params, std::vector<T> elements, const Side& side)
      : Side(side), params_(params), elements_(std::move(elements)) {}
  /// A copy with its own elements, allocated as a new filter's are (huge
  /// pages for a large one; errc::out_of_memory when it does not fit).
  array_owner_state(const array_owner_state& other)
      : Side(other),
        params_(other.params_),
        elements_(copy_or_fail(other.elements_, "copying a " + std::string(View::kind_name))) {}
  array_owner_state& operator=(const array_owner_state& other) {
    if (this != &other) *this = array_owner_state(other);
    return *this;
  }
  array_owner_state(array_owner_state&&) noexcept = default;
  array_owner_state& operator=(array_owner_state&&) noexcept = default;
  ~array_owner_state() = default;

  /// Every element zero and Side as a new filter's.
  void clear_elements() noexcept {
    std::fill(elements_.begin(), elements_.end(), T{});
    static_cast<Side&>(*this) = Side{};
  }

  Params params_{};
  std::vector<T> elements_;
};

/// The view state of a kind that counts inserts: array_view_state with the
/// count, and its accessors.
template <class Params, class T, class Accuracy>
class view_state : public array_view_state<Params, T, counted_side<Accuracy>> {
  using base = array_view_state<Params, T, counted_side<Accuracy>>;

 public:
  using base::base;  // (trusted_t, params, elements, side)
  view_state(trusted_t, const Params& params, std::span<const T> elements, std::uint64_t inserted,
             Accuracy accuracy) noexcept
      : base(trusted, params, elements, counted_side<Accuracy>{{inserted, accuracy}}) {}

  /// Insert calls counted (duplicates included; merges add; a counting
  /// filter's accepted removes subtract).
  [[nodiscard]] std::uint64_t inserted() const noexcept { return this->count_.value; }
  /// Whether inserted() is a count, an upper bound (an intersection) or an estimate.
  [[nodiscard]] Accuracy inserted_accuracy() const noexcept { return this->count_.accuracy; }
};

/// The owner state of a kind that counts inserts: array_owner_state with
/// the count, its accessors, and the bookkeeping of merge and intersect.
template <class View, class Params, class T, class Accuracy>
class owner_state : public array_owner_state<View, Params, T, counted_side<Accuracy>> {
  using base = array_owner_state<View, Params, T, counted_side<Accuracy>>;

 public:
  [[nodiscard]] std::uint64_t inserted() const noexcept { return this->count_.value; }
  /// Whether inserted() is a count, an upper bound (after intersect) or an
  /// estimate; inserts and merges keep the weaker of the two.
  [[nodiscard]] Accuracy inserted_accuracy() const noexcept { return this->count_.accuracy; }

 protected:
  explicit owner_state(const Params& params) : base(params) {}
  owner_state(const Params& params, std::vector<T> elements, std::uint64_t inserted, Accuracy accuracy)
      : base(params, std::move(elements), counted_side<Accuracy>{{inserted, accuracy}}) {}

  /// Union: op(mine, theirs) on each pair of elements, then the count rule
  /// of a union. The caller has checked that the shapes agree.
  template <class Op>
  void merge_elements(const View& other, std::span<const T> theirs, Op op) {
    for (std::size_t i = 0; i < this->elements_.size(); ++i) op(this->elements_[i], theirs[i]);
    this->count_.add({other.inserted(), other.inserted_accuracy()});
  }
  /// Intersection: as merge_elements, with the count rule of an intersection.
  template <class Op>
  void intersect_elements(const View& other, std::span<const T> theirs, Op op) {
    for (std::size_t i = 0; i < this->elements_.size(); ++i) op(this->elements_[i], theirs[i]);
    this->count_.keep_smaller({other.inserted(), other.inserted_accuracy()});
  }
};

}  // namespace bloomkit::detail
