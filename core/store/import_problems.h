#pragma once
// What an import_log key means to a user: an expected skip (a record the format writes in
// normal use and that carries nothing to show, e.g. Kineto's flow ends whose start fell
// before the profiler's window) is counted quietly; every other key is an import problem,
// shown loudly with its reason and file position. One list, read by the importers' reports,
// the CLI, the session overview and the studio's problems view.
#include <string>
#include <string_view>

namespace ts::store {

/// True for keys of records skipped in normal use of the format.
bool isExpectedSkip(std::string_view key);

/// One sentence saying what `key` means and whether anything was lost ("" for a key this
/// list does not know: the message stored with the record then says it).
std::string explainImportKey(std::string_view key);

}  // namespace ts::store
