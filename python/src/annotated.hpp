// python/src/annotated.hpp - argument and result types that name, in help()
// and inspect.signature, what a binding takes and gives.
//
// Why: the batch, file and combining calls take any Python object (a NumPy
// array, a pyarrow array, an iterable, a path, ...) and sort it out
// themselves (keys.hpp), so their C++ parameter is a plain handle, which
// nanobind's signatures show as `object`. annotated<Tag> is that same handle
// (no conversion, no check: the call's own code still decides what it
// accepts and raises), but its signature text is Tag::name, the same type the
// stubs (bloomkit/_bloomkit/__init__.pyi) give. (The casters live in
// nanobind's namespace, as nanobind's custom type casters must.)
#pragma once

#include <nanobind/nanobind.h>

namespace bloomkit::python {

namespace nb = nanobind;

/// Any Python object, passed through as a borrowed handle; signatures show
/// it as Tag::name.
template <class Tag>
struct annotated {
  nb::handle value;
  operator nb::handle() const noexcept { return value; }
};

/// A result object, shown in signatures as Tag::name.
template <class Tag>
struct annotated_result {
  nb::object value;
};

namespace annotation {
/// A tag whose signature text is the string `Name`.
template <const auto& Name>
struct named {
  static constexpr const auto& name = Name;
};
inline constexpr char keys[] = "numpy.ndarray | pyarrow.Array | pyarrow.ChunkedArray | collections.abc.Iterable";
inline constexpr char hashes[] = "numpy.ndarray | collections.abc.Iterable[int]";
inline constexpr char key[] = "bytes | bytearray | memoryview | str | int | float | bool";
inline constexpr char path[] = "str | bytes | os.PathLike";
inline constexpr char bytes_like[] = "bytes | bytearray | memoryview";
inline constexpr char path_or_bytes[] = "str | os.PathLike | bytes | bytearray | memoryview";
inline constexpr char times[] = "int | numpy.ndarray | collections.abc.Iterable[int]";
inline constexpr char bool_array[] = "numpy.ndarray[numpy.bool_]";
/// A filter of whichever kind a file holds (bloomkit.Filter in the stubs).
inline constexpr char any_filter[] = "bloomkit.Filter";
/// Another filter of the class W binds (merge, |, &): the call itself says
/// what it got when it is not one.
template <class W>
struct same_class {
  using type = W;  ///< shown by its Python class name
};
}  // namespace annotation

using keys_arg = annotated<annotation::named<annotation::keys>>;
using hashes_arg = annotated<annotation::named<annotation::hashes>>;
using key_arg = annotated<annotation::named<annotation::key>>;
using path_arg = annotated<annotation::named<annotation::path>>;
using bytes_arg = annotated<annotation::named<annotation::bytes_like>>;
using path_or_bytes_arg = annotated<annotation::named<annotation::path_or_bytes>>;
using times_arg = annotated<annotation::named<annotation::times>>;
using bool_array_result = annotated_result<annotation::named<annotation::bool_array>>;
using filter_result = annotated_result<annotation::named<annotation::any_filter>>;
template <class W>
using same_class_arg = annotated<annotation::same_class<W>>;
template <class W>
using same_class_result = annotated_result<annotation::same_class<W>>;

}  // namespace bloomkit::python

namespace nanobind::detail {

/// Tag::name, or the Python name of the bound class Tag::type.
template <class Tag>
constexpr auto annotation_name() {
  if constexpr (requires { typename Tag::type; }) {
    return const_name<typename Tag::type>();
  } else {
    return const_name(Tag::name);
  }
}

template <class Tag>
struct type_caster<bloomkit::python::annotated<Tag>> {
  NB_TYPE_CASTER(bloomkit::python::annotated<Tag>, annotation_name<Tag>())
  bool from_python(handle src, uint32_t, cleanup_list*) noexcept {
    value.value = src;
    return true;
  }
  static handle from_cpp(const Value& v, rv_policy, cleanup_list*) noexcept { return v.value.inc_ref(); }
};

template <class Tag>
struct type_caster<bloomkit::python::annotated_result<Tag>> {
  NB_TYPE_CASTER(bloomkit::python::annotated_result<Tag>, annotation_name<Tag>())
  static handle from_cpp(const Value& v, rv_policy, cleanup_list*) noexcept { return v.value.inc_ref(); }
};

}  // namespace nanobind::detail
