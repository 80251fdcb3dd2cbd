#pragma once
// The timeline read cache (table timeline_cache, see core/store/schema.cpp): every level of
// a TimelineModel as column BLOBs, so later opens read a few hundred large rows instead of
// every slice row. A key computed from the slices table tells a fresh cache from a stale one.
#include <cstdint>
#include <string>

#include "core/common/result.h"
#include "core/timeline/timeline_model.h"

namespace ts::store {
class SqliteDb;
}

namespace ts::timeline {

/// Key of the current slice data (slice count and total duration from the per-track totals,
/// track and source counts and max ids); changes when slices, tracks or sources are added
/// or removed. Reads small tables only.
Result<std::string> timelineCacheKey(store::SqliteDb& db);

/// Fills the levels of `m` (tracks already read) from the cache when its key equals `key`.
/// Returns false (and leaves m's levels empty) when the cache is absent, stale or damaged.
bool readTimelineCache(store::SqliteDb& db, const std::string& key, TimelineModel& m);

/// Replaces the cache of the session at `path` with the levels of `m`, if the session's key
/// still equals the one the model was built from (`key`). Needs write access; errors are
/// returned (a read-only or busy file is not a problem for callers: the cache is optional).
Status writeTimelineCache(const std::string& path, const TimelineModel& m, const std::string& key);

/// Sessions with at least this many slices get a cache at the end of an import (CLI and
/// GUI) and after their first open from the slices table (timeline view).
constexpr int64_t kTimelineCacheMinSlices = 1000000;

/// Loads the session's timeline and writes its cache unless it is fresh already: call at the
/// end of an import so that the first open of a big session is fast too.
Status buildTimelineCache(const std::string& path, JobControl* job = nullptr);

}  // namespace ts::timeline
