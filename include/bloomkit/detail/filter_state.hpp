// bloomkit/detail/filter_state.hpp - the state of an owning filter and of its
// view for the kinds whose payload is one array (standard_bloom's and
// counting_bloom's 64-bit words, a block filter's blocks): parameters, the
// elements, and the insert count with the rule each set operation applies to
// it. The kind's reader (its queries and statistics, detail/facade.hpp) reads
// params(), the elements and inserted() from here; the kind adds only what is
// its own (validation, inserts, the element-wise operation of merge and
// intersect).
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

/// A view's state: its parameters, the borrowed elements and the insert
/// count. The constructor is the trusted one (no validation): an owner's
/// view(), or a codec after its checks. A view type inherits it and adds a
/// validating constructor of its own.
template <class Params, class T, class Accuracy>
class view_state {
 public:
  view_state(trusted_t, const Params& params, std::span<const T> elements, std::uint64_t inserted,
             Accuracy accuracy) noexcept
      : params_(params), elements_(elements), count_{inserted, accuracy} {}

  [[nodiscard]] const Params& params() const noexcept { return params_; }
  /// Insert calls counted (duplicates included; merges add; a counting
  /// filter's accepted removes subtract).
  [[nodiscard]] std::uint64_t inserted() const noexcept { return count_.value; }
  /// Whether inserted() is a count, an upper bound (an intersection) or an estimate.
  [[nodiscard]] Accuracy inserted_accuracy() const noexcept { return count_.accuracy; }

 protected:
  [[nodiscard]] std::span<const T> elements() const noexcept { return elements_; }

 private:
  Params params_;
  std::span<const T> elements_;
  insert_count<Accuracy> count_;
};

/// An owning filter's state: parameters, its elements (allocated by the
/// kind, with detail::assign_or_fail) and the insert count, with what every
/// owner does with them alone: the accessors, view(), copying (allocated as
/// a new filter is), clearing, and the bookkeeping of merge and intersect.
/// View is the kind's view type (its kind_name names copies that fail).
template <class View, class Params, class T, class Accuracy>
class owner_state {
 public:
  [[nodiscard]] const Params& params() const noexcept { return params_; }
  [[nodiscard]] std::uint64_t inserted() const noexcept { return count_.value; }
  /// Whether inserted() is a count, an upper bound (after intersect) or an
  /// estimate; inserts and merges keep the weaker of the two.
  [[nodiscard]] Accuracy inserted_accuracy() const noexcept { return count_.accuracy; }

  /// A read-only view of this filter (valid while it lives and keeps its
  /// size: a block filter's fold shrinks it).
  [[nodiscard]] View view() const noexcept {
    return View(trusted, params_, std::span<const T>(elements_), count_.value, count_.accuracy);
  }

 protected:
  explicit owner_state(const Params& params) : params_(params) {}
  owner_state(const Params& params, std::vector<T> elements, std::uint64_t inserted, Accuracy accuracy)
      : params_(params), elements_(std::move(elements)), count_{inserted, accuracy} {}
  /// A copy with its own elements, allocated as a new filter's are (huge
  /// pages for a large one; errc::out_of_memory when it does not fit).
  owner_state(const owner_state& other)
      : params_(other.params_),
        elements_(copy_or_fail(other.elements_, "copying a " + std::string(View::kind_name))),
        count_(other.count_) {}
  owner_state& operator=(const owner_state& other) {
    if (this != &other) *this = owner_state(other);
    return *this;
  }
  owner_state(owner_state&&) noexcept = default;
  owner_state& operator=(owner_state&&) noexcept = default;
  ~owner_state() = default;

  /// Union: op(mine, theirs) on each pair of elements, then the count rule
  /// of a union. The caller has checked that the shapes agree.
  template <class Op>
  void merge_elements(const View& other, std::span<const T> theirs, Op op) {
    for (std::size_t i = 0; i < elements_.size(); ++i) op(elements_[i], theirs[i]);
    count_.add({other.inserted(), other.inserted_accuracy()});
  }
  /// Intersection: as merge_elements, with the count rule of an intersection.
  template <class Op>
  void intersect_elements(const View& other, std::span<const T> theirs, Op op) {
    for (std::size_t i = 0; i < elements_.size(); ++i) op(elements_[i], theirs[i]);
    count_.keep_smaller({other.inserted(), other.inserted_accuracy()});
  }
  /// Every element zero, the count zero and exact.
  void clear_elements() noexcept {
    std::fill(elements_.begin(), elements_.end(), T{});
    count_ = {};
  }

  Params params_;
  std::vector<T> elements_;
  insert_count<Accuracy> count_;
};

}  // namespace bloomkit::detail
