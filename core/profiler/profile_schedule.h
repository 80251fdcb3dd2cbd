#pragma once
// ProfileSchedule: which steps a profile records, like torch.profiler.schedule(wait,
// warmup, active, repeat, skip_first). Steps are counted from 0. After `skipFirst` steps,
// cycles of wait + warmup + active steps follow; only `active` steps are recorded (warm-up
// steps run the collection machinery but keep nothing). repeat = 0 repeats forever.
#include <cstdint>

namespace ts::profiler {

struct ProfileSchedule {
    int64_t skipFirst = 0;
    int64_t wait = 0;
    int64_t warmup = 0;
    int64_t active = 1 << 30;  // default: every step
    int64_t repeat = 0;

    enum class Action { None, Warmup, Record };
    Action actionFor(int64_t step) const {
        if (step < skipFirst || active <= 0) return Action::None;
        const int64_t cycle = wait + warmup + active;
        const int64_t k = step - skipFirst;
        if (repeat > 0 && k >= cycle * repeat) return Action::None;
        const int64_t pos = k % cycle;
        if (pos < wait) return Action::None;
        if (pos < wait + warmup) return Action::Warmup;
        return Action::Record;
    }
    /// Parses "wait=1,warmup=1,active=3,repeat=2,skip_first=0" (any subset); false on error.
    bool parse(const char* text);
};

}  // namespace ts::profiler
