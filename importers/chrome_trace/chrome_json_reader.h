#pragma once
// ChromeJsonReader: streams a Chrome Trace Event Format JSON document (array form or object
// form with `traceEvents`) through the trace JSON tokenizer (trace_json_tokenizer.h) and
// hands each event object over as a ChromeEvent. Memory stays bounded by one event and a
// chunk. Refuses JSON that is not a Chrome trace (object without traceEvents, list of lists).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/common/job_control.h"
#include "importers/chrome_trace/chrome_event.h"
#include "importers/common/input_stream.h"

namespace ts::importers::chrome {

struct ReadOutcome {
    enum class Kind {
        Complete,
        Truncated,
        NotJson,
        NotChromeTrace,
        Cancelled
    } kind = Kind::Complete;
    std::string error;
    int64_t errorOffset = -1;               // byte offset (decompressed) of a parse error
    int64_t eventObjects = 0;               // objects seen in the events array
    int64_t nonObjectEvents = 0;            // scalars in the events array (skipped)
    std::vector<std::string> topLevelKeys;  // object form: every top-level key
    std::string displayTimeUnit;
    std::optional<int64_t> baseTimeNs;  // Kineto's "baseTimeNanoseconds"
    /// The JSON text of Kineto's "deviceProperties" and "distributedInfo" (up to 1 MiB each),
    /// as the file holds them: the GPU analysis reads the device's limits from them.
    std::vector<std::pair<std::string, std::string>> metadata;
};

/// Where the reader puts events: it fills slot() field by field and calls commit() once the
/// event is complete (slot() then gives the next one). Lets a pipe hand out its own storage,
/// so events are not copied.
class EventSink {
public:
    virtual ~EventSink() = default;
    virtual ChromeEvent& slot() = 0;
    virtual void commit() = 0;
};

/// Reads all events of `in` into `sink`, in file order.
ReadOutcome readChromeJson(InputStream& in, JobControl& control, EventSink& sink);
/// Same, handing each complete event to `onEvent`.
ReadOutcome readChromeJson(InputStream& in, JobControl& control,
                           const std::function<void(const ChromeEvent&)>& onEvent);

}  // namespace ts::importers::chrome
