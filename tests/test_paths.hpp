// tests/test_paths.hpp - where the tests find the tree, the build and the
// programs they drive.
//
// The paths are defined in one file the build generates
// (build/<preset>/test_paths.cpp, linked into every test), not passed as
// -D macros: a macro holding an absolute path made every test's
// preprocessed text depend on where the tree was cloned, so ccache could
// never reuse an object from another clone (CI's checkout, a clean-clone
// check), and every test recompiled after each move.
#pragma once

namespace bloomkit::test::paths {

extern const char* const source_dir;   ///< the project's root
extern const char* const binary_dir;   ///< this build's folder (build/<preset>)
extern const char* const shared_dir;   ///< ../shared beside the root (BLOOMKIT_SHARED_DIR)
extern const char* const cli;          ///< the bloomkit executable of this build ("" without tools)
extern const char* const fault_shim;   ///< libbloomkit_fault_shim.so of this build

}  // namespace bloomkit::test::paths
