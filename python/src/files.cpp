// python/src/files.cpp - bind_files: from_bytes, load, open (mapped,
// read-only, zero copy), the pickle restorer and inspect. Each returns the
// Python class of the kind the bytes hold.
#include "bloomkit/bloomkit.hpp"
#include "kinds.hpp"

namespace bloomkit::python {

namespace {

nb::object to_python(any_filter&& filter) {
  return std::visit([](auto&& f) -> nb::object {
    using F = std::decay_t<decltype(f)>;
    return nb::cast(py_filter<F>(std::move(f)));
  }, std::move(filter));
}

/// Any format's filter: bloomkit's kinds as their classes, Spark's and
/// Guava's as SparkBloom / GuavaBloom (python/src/interop.cpp).
nb::object to_python(any_format_filter&& filter) {
  return std::visit([](auto&& f) -> nb::object {
    using F = std::decay_t<decltype(f)>;
    if constexpr (is_jvm_kind<F>) {
      return nb::cast(std::move(f));
    } else {
      return nb::cast(py_filter<F>(std::move(f)));
    }
  }, std::move(filter));
}

/// A read-only contiguous view of any bytes-like object, released on scope exit.
class buffer_view {
 public:
  explicit buffer_view(nb::handle obj) {
    if (PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
  }
  buffer_view(const buffer_view&) = delete;
  buffer_view& operator=(const buffer_view&) = delete;
  ~buffer_view() { PyBuffer_Release(&view_); }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept {
    return {static_cast<const std::byte*>(view_.buf), static_cast<std::size_t>(view_.len)};
  }

 private:
  Py_buffer view_{};
};

nb::dict info_dict(const file_info& info) {
  nb::dict d = new_dict();
  d["kind"] = std::string(to_string(info.kind));
  d["version"] = info.version;
  d["hash"] = algorithm_name(info.hash);
  d["hash_seed"] = info.hash.seed;
  d["key_type"] = std::string(to_string(info.key_type));
  d["inserted"] = info.inserted;
  d["inserted_accuracy"] = std::string(to_string(info.inserted_accuracy));
  d["capacity"] = info.capacity;
  d["target_fpr"] = info.target_fpr;
  d["header_bytes"] = info.header_bytes;
  d["payload_bytes"] = info.payload_bytes;
  d["file_bytes"] = info.file_bytes;
  d["checksum_ok"] = info.checksum_ok;
  nb::dict params = new_dict();
  for (const auto& p : info.params) {
    params[nb::str(std::string(p.name).c_str())] = std::visit([](auto v) { return nb::cast(v); }, p.value);
  }
  d["params"] = params;
  return d;
}

}  // namespace

void bind_files(nb::module_& m) {
  m.def(
      "from_bytes",
      [](bytes_arg data) {
        const buffer_view view(data);
        any_filter filter = [&] {
          nb::gil_scoped_release release;
          return load(view.bytes());
        }();
        return filter_result{to_python(std::move(filter))};
      },
      "data"_a,
      "The filter stored in `data` (bytes-like, bloomkit's file format), of whichever kind it holds, as an\n"
      "owning, writable filter. Every field and both checksums are checked first: TruncatedError,\n"
      "CorruptError, ChecksumError, UnsupportedVersionError or UnknownKindError otherwise.");
  m.def(
      "load",
      [](path_arg path) {
        const std::string p = fs_path(path);
        any_format_filter filter = [&] {
          nb::gil_scoped_release release;
          return load(std::filesystem::path(p), any_format);
        }();
        return filter_result{to_python(std::move(filter))};
      },
      "path"_a,
      "The filter in the file at `path` (any kind), read into memory: a bloomkit file as its kind's class,\n"
      "a Spark or Guava writeTo stream as SparkBloom / GuavaBloom. FileError if it cannot be read.");
  m.def(
      "open",
      [](path_arg path) {
        const std::string p = fs_path(path);
        mapped_filter mapped = [&] {
          nb::gil_scoped_release release;
          return open_mapped(std::filesystem::path(p));
        }();
        auto file = std::make_shared<mapped_file>(std::move(mapped.file));
        return filter_result{std::visit([&](auto&& v) -> nb::object {
          using V = std::decay_t<decltype(v)>;
          using F = typename format_codec<V>::filter_type;
          return nb::cast(py_filter<F>(std::move(v), file));
        }, std::move(mapped.filter))};
      },
      "path"_a,
      "A read-only filter over the file at `path`, memory-mapped: nothing is copied, pages are read as\n"
      "queries touch them. Checks the header and checksums like load. Adding raises ReadOnlyError; use\n"
      "copy() for a writable filter. close() (or a with block) unmaps it. The file must not be truncated\n"
      "while mapped (save() replaces files by rename, which is safe).");
  m.def(
      "_unpickle",
      [](nb::handle header, nb::handle payload) {
        const buffer_view h(header);
        const buffer_view p(payload);
        std::vector<std::byte> bytes;
        bytes.reserve(h.bytes().size() + p.bytes().size());
        bytes.insert(bytes.end(), h.bytes().begin(), h.bytes().end());
        bytes.insert(bytes.end(), p.bytes().begin(), p.bytes().end());
        any_filter filter = [&] {
          nb::gil_scoped_release release;
          return load(std::span<const std::byte>(bytes));
        }();
        return to_python(std::move(filter));
      },
      "header"_a, "payload"_a, "Restores a protocol-5 pickle: the file header and the words (out of band).");
  m.def(
      "inspect",
      [](path_or_bytes_arg source) {
        if (PyObject_CheckBuffer(source.value.ptr())) {
          const buffer_view view(source);
          nb::gil_scoped_release release;
          const file_info info = inspect(view.bytes());
          nb::gil_scoped_acquire acquire;
          return info_dict(info);
        }
        const std::string p = fs_path(source);
        file_info info;
        {
          nb::gil_scoped_release release;
          info = inspect(std::filesystem::path(p));
        }
        return info_dict(info);
      },
      "source"_a,
      "The header facts of a filter file (a path) or of its bytes, as a dict: kind, version, hash, counts,\n"
      "sizes, the kind's parameters, and checksum_ok (a bad checksum is reported here, not raised).");
}

}  // namespace bloomkit::python
