// python/src/key_sources.hpp - the steps make_batch (keys.cpp) builds a key
// batch from that more than one file needs: the class of a NumPy dtype, an
// Arrow array read in place, an Arrow dictionary array, and the check of a
// described batch against its key type.
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "keys.hpp"

namespace bloomkit::python {


/// The class of the values of a NumPy dtype of kind `kind` (dtype.kind):
/// booleans, integers, floats of at most 8 bytes, datetime64 (date for unit
/// "D", timestamp otherwise); `other` for every other kind, text included
/// (whether text is one key or many is the caller's to say).
value_class numpy_kind_class(const std::string& kind, nb::handle dtype);

/// The class of an Arrow type's values (a dictionary's: its values').
value_class arrow_class(nb::handle type);

/// One pyarrow.Array (not chunked) into batch segments, reading its buffers
/// in place: validity bitmap, offsets and data, with every offset checked
/// against the data buffer's size before anything is hashed.
void add_arrow_array(key_batch& batch, nb::handle x, bool as_hashes);

/// A pyarrow DictionaryArray as one dictionary segment: its dictionary is
/// described like any Arrow array (converted into the batch's key type and
/// checked) and hashed once here (GIL released), and each key is then its
/// index's hash (keys_impl.hpp, gather_dictionary). Why not pyarrow's
/// dictionary_decode: it copies every key's value, and pyarrow 26.0.1 lets a
/// std::bad_alloc from its kernel escape through its GIL-free section (the
/// process ends; python/tests/fault_driver.py found it). A null index, or a
/// valid index naming a null value, is a null key, as in the decoded array.
/// Every valid index is checked to lie in the dictionary before anything is
/// hashed into a filter.
void add_arrow_dictionary(key_batch& batch, const nb::object& arr, bool as_hashes);

/// Throws (errc::mismatch, the library's message) unless every present key
/// of the batch converts into its key type (spec.keys; nothing to check
/// when unspecified).
void check_batch(key_batch& batch);

}  // namespace bloomkit::python
