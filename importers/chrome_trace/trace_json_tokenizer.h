#pragma once
// The tokenizer behind readChromeJson: a hand-written, streaming, validating JSON parser
// specialised for the Chrome Trace Event Format (docs/IMPORT.md, "The trace JSON
// tokenizer"). It reads the document in chunks into one window, parses each event in place
// (trace_event_parser.h) and steps over every other value without keeping it
// (json_skipper.h). It accepts and refuses exactly what RapidJSON's Reader did with the
// flags the importer used, at the same byte offsets, plus a leading UTF-8 BOM.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/common/job_control.h"
#include "importers/chrome_trace/chrome_json_reader.h"

namespace ts::importers::chrome {

/// Where the tokenizer's bytes come from (an InputStream in the importer; memory in tests).
class ByteSource {
public:
    virtual ~ByteSource() = default;
    /// Up to n bytes into buf; 0 only at the end (or after an error, see error()).
    virtual size_t read(char* buf, size_t n) = 0;
    /// How far into the file the source is, for JobControl::setDone.
    virtual uint64_t progress() const = 0;
    /// Non-empty after a read error (e.g. a cut-off gzip stream).
    virtual std::string error() const = 0;
};

inline constexpr size_t kTokenizerChunk = size_t{1} << 20;

/// Reads all events of `src` into `sink`, in file order, reading `chunkBytes` at a time
/// (more when one event does not fit; tests pass small sizes to move the chunk boundaries).
ReadOutcome tokenizeChromeJson(ByteSource& src, JobControl& control, EventSink& sink,
                               size_t chunkBytes = kTokenizerChunk);

}  // namespace ts::importers::chrome
