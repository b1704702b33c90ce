// python/src/counts.hpp - a count argument (capacity, blocks, bits) that
// takes an integral float as well as an int.
//
// Why: sizes are often written 1e6 or computed as floats (n * 1.2 // 1 is a
// float), and nanobind's std::uint64_t caster refuses any float with a
// signature error that does not say what was wrong. count_arg takes an int
// as that caster does (numpy integers too; a negative int or one past
// 2**64 - 1 stays a signature TypeError), and a float that is whole, finite
// and in [0, 2**64); any other float is taken too, so that the binding can
// refuse it by name: a fraction (1.5) is a TypeError, a negative, infinite
// or too large one an InvalidArgumentError. Signatures show it as `int`, as
// the stubs do.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "bloomkit/error.hpp"

namespace bloomkit::python {

/// A count from Python: an int, or a float that is a whole number.
struct count_arg {
  std::uint64_t value = 0;
  double given = 0.0;  ///< the float given, when it is not a count
  bool ok = true;

  /// The count; throws (naming `name`) for a float that is not one.
  [[nodiscard]] std::uint64_t get(const char* name) const {
    if (ok) return value;
    const std::string what = std::string(name) + " must be a whole number, got " + bloomkit::format_number(given);
    if (std::isfinite(given) && given >= 0.0 && given < 18446744073709551616.0) throw nanobind::type_error(what.c_str());
    throw error(errc::invalid_argument, what + (given < 0.0 ? " (a count is at least 0)" : " (at most 2**64 - 1)"));
  }
};

/// An optional count, as get() gives it.
inline std::optional<std::uint64_t> count_of(const std::optional<count_arg>& count, const char* name) {
  if (!count) return std::nullopt;
  return count->get(name);
}

}  // namespace bloomkit::python

namespace nanobind::detail {

template <>
struct type_caster<bloomkit::python::count_arg> {
  NB_TYPE_CASTER(bloomkit::python::count_arg, const_name("int"))
  bool from_python(handle src, uint32_t flags, cleanup_list* cleanup) noexcept {
    if (PyFloat_Check(src.ptr())) {
      const double x = PyFloat_AS_DOUBLE(src.ptr());
      value = {};
      // 2**64 is exactly representable; every whole double below it fits.
      if (std::isfinite(x) && x >= 0.0 && x < 18446744073709551616.0 && std::floor(x) == x) {
        value.value = static_cast<std::uint64_t>(x);
      } else {
        value.ok = false;
        value.given = x;
      }
      return true;
    }
    make_caster<std::uint64_t> integer;
    if (!integer.from_python(src, flags, cleanup)) return false;
    value = {};
    value.value = integer.value;
    return true;
  }
  static handle from_cpp(const bloomkit::python::count_arg& v, rv_policy, cleanup_list*) noexcept {
    return PyLong_FromUnsignedLongLong(v.value);
  }
};

}  // namespace nanobind::detail
