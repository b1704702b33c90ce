// tools/bloomkit/signals.hpp - what the CLI does when a signal arrives.
//
//  * SIGINT, SIGTERM, SIGHUP: remove the temporary file of any save in
//    progress (bloomkit::remove_unfinished_saves), then end by the same
//    signal, so the caller still sees "killed by SIGINT" and the previous
//    output file is untouched.
//  * SIGBUS: a mapped filter file shrank under `query` or `info` (another
//    program truncated it; bloomkit's own writers replace files by rename,
//    which never does this). Print which file, remove unfinished saves,
//    exit 2: the CLI never dies of it (docs/RELIABILITY.md).
// Everything the handlers do is async-signal-safe.
#pragma once

namespace bloomkit::cli {

/// Installs the handlers above; call once, first thing in main().
void install_signal_handlers();

/// Names the file a later SIGBUS is blamed on (copied; truncated past 1 KiB).
void note_mapped_file(const char* path) noexcept;

}  // namespace bloomkit::cli
