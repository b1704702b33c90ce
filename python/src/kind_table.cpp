// python/src/kind_table.cpp - bind_kind_table: _bloomkit.kinds(), every
// kind's facts (the library's kind_traits, in the order of its list of
// kinds), from which the package builds its tables: bloomkit.KINDS and the
// spellings bloomkit.kind() accepts, each class's default hash, and which
// kinds the Spark and Dask engines build partition by partition. A new kind
// reaches Python through its kind_traits alone.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string_view.h>

#include "bloomkit/file_format.hpp"

namespace bloomkit::python {

namespace nb = nanobind;
using namespace nb::literals;

namespace {

/// One kind's facts as a dict (the keys kinds() documents).
nb::object facts_of(const bloomkit::kind_info& k) {
  const nb::object dict = nb::module_::import_("builtins").attr("dict");
  return dict("id"_a = static_cast<int>(k.kind), "name"_a = k.name, "cli_name"_a = k.cli_name,
              "summary"_a = k.summary, "class_name"_a = k.python_class,
              "default_hash"_a = nb::make_tuple(to_string(k.default_hash.algorithm), k.default_hash.seed),
              "key_type"_a = to_string(k.default_hash.keys), "inserts"_a = k.inserts(), "static"_a = k.is_static,
              "grows"_a = k.grows, "removes"_a = k.removes, "merges"_a = k.merges, "windows"_a = k.windows,
              "stores_repeats"_a = k.stores_repeats, "no_merge_reason"_a = k.no_merge_reason);
}

}  // namespace

void bind_kind_table(nb::module_& m) {
  m.def(
      "kinds",
      [] {
        nb::list out;
        for (const bloomkit::kind_info& k : all_kinds) out.append(facts_of(k));
        return nb::tuple(out);
      },
      "Every filter kind's facts, in the order `bloomkit build --help` lists them: a dict per kind with\n"
      "id, name (the file format's), cli_name (`bloomkit build --kind`), summary, class_name,\n"
      "default_hash ((algorithm, seed)), key_type, the capabilities inserts, static, grows, removes,\n"
      "merges, windows, stores_repeats, and no_merge_reason (empty where the kind merges or is static).");
}

}  // namespace bloomkit::python
