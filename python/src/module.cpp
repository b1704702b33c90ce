// python/src/module.cpp - the extension module bloomkit._bloomkit. Each
// feature area lives in its own python/src/<area>.cpp with one
// `void bind_<area>(nanobind::module_&)`; add a new area with one line here.
#include <nanobind/nanobind.h>

namespace bloomkit::python {
void bind_errors(nanobind::module_& m);
void bind_keys(nanobind::module_& m);
void bind_filters(nanobind::module_& m);
void bind_static(nanobind::module_& m);
void bind_cuckoo(nanobind::module_& m);
void bind_window(nanobind::module_& m);
void bind_files(nanobind::module_& m);
void bind_sizing(nanobind::module_& m);
void bind_parquet(nanobind::module_& m);
void bind_sharding(nanobind::module_& m);
void bind_interop(nanobind::module_& m);
}  // namespace bloomkit::python

NB_MODULE(_bloomkit, m) {
  m.doc() = "bloomkit's C++ core; use the bloomkit package, which re-exports it.";
  bloomkit::python::bind_errors(m);
  bloomkit::python::bind_keys(m);
  bloomkit::python::bind_filters(m);
  bloomkit::python::bind_static(m);
  bloomkit::python::bind_cuckoo(m);
  bloomkit::python::bind_window(m);
  bloomkit::python::bind_files(m);
  bloomkit::python::bind_sizing(m);
  bloomkit::python::bind_parquet(m);
  bloomkit::python::bind_sharding(m);
  bloomkit::python::bind_interop(m);
}
