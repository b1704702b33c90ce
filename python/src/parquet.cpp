// python/src/parquet.cpp - bind_parquet: the split-block filters inside
// Parquet files (bloomkit/parquet.hpp), exposed as bloomkit._parquet and
// wrapped by python/bloomkit/parquet.py.
#include "bloomkit/parquet.hpp"
#include "kinds.hpp"

namespace bloomkit::python {

namespace {

std::size_t column_of(const parquet::reader& file, nb::handle column) {
  if (PyLong_Check(column.ptr())) {
    const auto i = nb::cast<std::size_t>(column);
    if (i >= file.metadata().columns.size()) {
      throw bloomkit::error(errc::invalid_argument, file.name() + ": column index " + std::to_string(i) +
                                                         " does not exist");
    }
    return i;
  }
  return file.column_index(utf8_string(column, "a column name (str) or index (int)"));
}

/// The bytes Parquet hashes for a Python value in this column: its plain
/// encoding. str goes through the library's text conversion (the CLI's
/// rules: numbers, dates, timestamps, decimals, UUIDs ... from text); bytes
/// are the value itself for BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY and the
/// plain-encoded bytes otherwise; int, float and bool are converted as text.
std::vector<std::byte> plain_bytes(const parquet::column_descriptor& col, nb::handle value) {
  PyObject* o = value.ptr();
  if (PyBytes_Check(o) || PyByteArray_Check(o) || PyMemoryView_Check(o)) {
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
    std::vector<std::byte> out(static_cast<const std::byte*>(view.buf),
                               static_cast<const std::byte*>(view.buf) + view.len);
    PyBuffer_Release(&view);
    return out;
  }
  if (PyBool_Check(o)) return parquet::encode_value(col, o == Py_True ? "true" : "false");
  if (PyUnicode_Check(o) || PyLong_Check(o) || PyFloat_Check(o)) {
    const std::string text = utf8_string(PyUnicode_Check(o) ? nb::str(value) : nb::repr(value));
    return parquet::encode_value(col, text);
  }
  throw nb::type_error("Parquet probe values are str, bytes, int, float or bool");
}

}  // namespace

/// The key type of a Parquet column's filter: its physical type (docs/KEYS.md:
/// INT32 int32, INT64 int64, FLOAT float32, DOUBLE float64, byte arrays and
/// INT96 bytes), whose plain encoding is what the writer hashed. BOOLEAN
/// columns have no filter (unspecified).
key_type parquet_key_type(parquet::physical_type t) noexcept {
  switch (t) {
    case parquet::physical_type::int32: return key_type::int32;
    case parquet::physical_type::int64: return key_type::int64;
    case parquet::physical_type::float_: return key_type::float32;
    case parquet::physical_type::double_: return key_type::float64;
    case parquet::physical_type::int96:
    case parquet::physical_type::byte_array:
    case parquet::physical_type::fixed_len_byte_array: return key_type::bytes;
    case parquet::physical_type::boolean: return key_type::unspecified;
  }
  return key_type::unspecified;
}

void bind_parquet(nb::module_& m) {
  nb::module_ p = m.def_submodule("_parquet", "Parquet split-block filters (bloomkit/parquet.hpp).");
  p.def(
      "row_groups",
      [](nb::handle path) {
        parquet::reader file(fs_path(path));
        nb::list out = new_list();
        const auto& meta = file.metadata();
        for (std::size_t rg = 0; rg < meta.row_groups.size(); ++rg) {
          for (std::size_t c = 0; c < meta.columns.size(); ++c) {
            nb::dict d = new_dict();
            d["row_group"] = rg;
            d["column"] = meta.columns[c].dotted_path();
            d["physical_type"] = parquet::to_string(meta.columns[c].type);
            d["num_rows"] = meta.row_groups[rg].num_rows;
            std::optional<parquet::column_bloom_filter> f;
            {
              nb::gil_scoped_release release;
              f = file.bloom_filter(rg, c);
            }
            d["has_filter"] = f.has_value();
            d["offset"] = f ? nb::cast(f->offset) : nb::none();
            d["num_bytes"] = f ? nb::cast(f->header.num_bytes) : nb::none();
            d["fill_ratio"] = f ? nb::cast(f->filter.fill_ratio()) : nb::none();
            d["estimated_cardinality"] = f ? nb::cast(f->filter.estimated_cardinality()) : nb::none();
            d["estimated_fpr"] = f ? nb::cast(f->filter.estimated_fpr()) : nb::none();
            out.append(d);
          }
        }
        return out;
      },
      "path"_a);
  p.def(
      "read_filter",
      [](nb::handle path, nb::handle column, std::size_t row_group) -> nb::object {
        parquet::reader file(fs_path(path));
        const std::size_t c = column_of(file, column);
        std::optional<parquet::column_bloom_filter> f;
        {
          nb::gil_scoped_release release;
          f = file.bloom_filter(row_group, c);
        }
        if (!f) return nb::none();
        // The filter answers for the column's values: it takes their key type.
        f->filter.adopt_key_type(parquet_key_type(file.metadata().columns[c].type));
        return nb::cast(py_filter<split_block_bloom>(std::move(f->filter)));
      },
      "path"_a, "column"_a, "row_group"_a);
  p.def(
      "column_key_type",
      [](nb::handle path, nb::handle column) {
        parquet::reader file(fs_path(path));
        return std::string(to_string(parquet_key_type(file.metadata().columns[column_of(file, column)].type)));
      },
      "path"_a, "column"_a);
  p.def(
      "probe",
      [](nb::handle path, nb::handle column, nb::handle values) {
        parquet::reader file(fs_path(path));
        const std::size_t c = column_of(file, column);
        const auto& col = file.metadata().columns[c];
        std::vector<std::uint64_t> hashes;
        for (nb::handle v : nb::iter(values)) hashes.push_back(parquet::hash_value(plain_bytes(col, v)));
        nb::list out = new_list();
        for (std::size_t rg = 0; rg < file.metadata().row_groups.size(); ++rg) {
          std::optional<parquet::column_bloom_filter> f;
          {
            nb::gil_scoped_release release;
            f = file.bloom_filter(rg, c);
          }
          nb::list answers = new_list();
          bool any = false;
          for (const std::uint64_t h : hashes) {
            const bool maybe = !f || f->filter.may_contain_hash(h);
            any |= maybe;
            answers.append(maybe);
          }
          nb::dict d = new_dict();
          d["row_group"] = rg;
          d["has_filter"] = f.has_value();
          d["may_contain"] = answers;
          d["skip"] = f.has_value() && !any;
          out.append(d);
        }
        return out;
      },
      "path"_a, "column"_a, "values"_a);
  p.def(
      "plain_encode",
      [](nb::handle path, nb::handle column, nb::handle value) {
        parquet::reader file(fs_path(path));
        const auto bytes = plain_bytes(file.metadata().columns[column_of(file, column)], value);
        return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      },
      "path"_a, "column"_a, "value"_a);
  p.def(
      "write_with_filters",
      [](nb::handle input, nb::handle output, nb::handle placements) {
        std::vector<parquet::chunk_filter> filters;
        for (nb::handle item : nb::iter(placements)) {
          const auto t = nb::cast<nb::tuple>(item);
          if (t.size() != 3) throw nb::type_error("a placement is (row_group, column_index, parquet_bitset)");
          Py_buffer view;
          if (PyObject_GetBuffer(t[2].ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
          const std::span<const std::byte> bytes(static_cast<const std::byte*>(view.buf), static_cast<std::size_t>(view.len));
          try {
            filters.push_back(parquet::chunk_filter{nb::cast<std::size_t>(t[0]), nb::cast<std::size_t>(t[1]),
                                                    parquet::filter_from_bitset(bytes)});
          } catch (...) {
            PyBuffer_Release(&view);
            throw;
          }
          PyBuffer_Release(&view);
        }
        const auto in = fs_path(input);
        const auto out = fs_path(output);
        nb::gil_scoped_release release;
        parquet::write_with_filters(in, out, filters);
      },
      "input"_a, "output"_a, "placements"_a,
      "Writes `output` as `input` with each (row_group, column_index, parquet_bitset) filter added\n"
      "(parquet::write_with_filters): data copied byte for byte, atomic, nothing written on error.");
  p.def(
      "foldable_filter",
      [](std::uint64_t max_ndv, double fpp, const std::optional<std::string>& key_type) {
        auto f = parquet::foldable_filter(max_ndv, fpp);
        f.adopt_key_type(key_type_argument(key_type));
        return py_filter<split_block_bloom>(std::move(f));
      },
      "max_ndv"_a, "fpp"_a = 0.01, nb::kw_only(), "key_type"_a = nb::none(),
      "An empty SplitBlockBloom to fill and then fold to `fpp` (parquet::foldable_filter), typed\n"
      "`key_type` (None: unspecified).");
  p.def(
      "filter_from_bitset",
      [](nb::handle bitset) {
        Py_buffer view;
        if (PyObject_GetBuffer(bitset.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
        const std::span<const std::byte> bytes(static_cast<const std::byte*>(view.buf), static_cast<std::size_t>(view.len));
        try {
          auto f = parquet::filter_from_bitset(bytes);
          PyBuffer_Release(&view);
          return py_filter<split_block_bloom>(std::move(f));
        } catch (...) {
          PyBuffer_Release(&view);
          throw;
        }
      },
      "bitset"_a);
}

}  // namespace bloomkit::python
