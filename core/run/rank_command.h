#pragma once
// An engine run of several processes as the studio starts it: the Training panel's settings
// (JobOptions) become `trainscope-cli train` over N ranks (docs/DISTRIBUTED.md), a command
// run the panel watches like any other (its processes are the ranks; rank 0's output gives
// the loss curve). Each rank records <folder>/rank_<r>.tscope.
#include <string>

#include "core/common/result.h"
#include "core/run/launch_spec.h"
#include "core/run/training_job.h"

namespace ts::run {

/// The command of `processes` ranks training with `o`'s settings, recording into `folder`.
/// Settings held only as text (a dump.json or RDR config the form built) are written as files
/// into `folder` first. `cli`: the trainscope-cli program. Error: the folder cannot be written.
Result<LaunchSpec> rankedTrainingCommand(const JobOptions& o, int processes,
                                         const std::string& folder, const std::string& cli);

}  // namespace ts::run
