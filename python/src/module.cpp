// python/src/module.cpp - the extension module bloomkit._bloomkit. Each
// feature area lives in its own python/src/<area>.cpp with one
// `void bind_<area>(nanobind::module_&)`; add a new area to both lists here.
#include <nanobind/nanobind.h>

namespace bloomkit::python {
/// What each area's file defines: the area's part of the module.
using bind_area = void(nanobind::module_& m);
bind_area bind_errors, bind_kind_table, bind_keys, bind_filters, bind_static, bind_cuckoo, bind_window, bind_files,
    bind_sizing, bind_parquet, bind_sharding, bind_interop;
}  // namespace bloomkit::python

NB_MODULE(_bloomkit, m) {
  m.doc() = "bloomkit's C++ core; use the bloomkit package, which re-exports it.";
  using namespace bloomkit::python;
  for (const auto bind : {bind_errors, bind_kind_table, bind_keys, bind_filters, bind_static, bind_cuckoo, bind_window,
                          bind_files, bind_sizing, bind_parquet, bind_sharding, bind_interop}) {
    bind(m);
  }
}
