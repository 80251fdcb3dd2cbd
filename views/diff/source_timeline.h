#pragma once
// The part of a session's timeline model that belongs to one source (a run's profile, one
// imported trace): its tracks, their process groups and the flows between them. The Diff view
// shows A's and B's sources one above the other even when both live in one session. Plain
// C++ (no widgets).
#include <cstdint>
#include <memory>

#include "core/timeline/timeline_model.h"

/// A copy of `m` restricted to the tracks of `sourceId` (times keep m's origin).
std::shared_ptr<const ts::timeline::TimelineModel> sourceTimeline(
    const ts::timeline::TimelineModel& m, int64_t sourceId);
