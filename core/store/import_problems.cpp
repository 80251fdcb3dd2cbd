#include "core/store/import_problems.h"

namespace ts::store {
namespace {

struct KeyInfo {
    std::string_view key;
    bool expected;
    std::string_view text;
};

constexpr KeyInfo kKeys[] = {
    {"json_flow_without_start", true,
     "A flow arrow's end whose start was not recorded (it began before the profiler's "
     "window opened); normal in Kineto traces: no arrow is drawn, nothing else is lost."},
    {"json_flow_start_without_end", true,
     "A flow arrow's start whose end was not recorded (the profiler's window closed first); "
     "normal at the end of a Kineto trace: no arrow is drawn, nothing else is lost."},
    {"ascend_memory_release_row", true,
     "A release row of an Ascend memory table (MindSpore's layout): its allocation row already "
     "says when the block was freed."},
    {"tfevents_non_scalar_summary", true,
     "A histogram, image or text summary: only scalars become curves."},
    {"json_flow_unbound", false,
     "A flow arrow's end with no slice on its thread at that time: the arrow is not drawn."},
    {"json_flow_without_id", false, "A flow event without an \"id\": it cannot be joined."},
    {"json_missing_ph", false, "An event without a \"ph\" phase: it was skipped."},
    {"json_missing_ts", false, "An event without a \"ts\" time: it was skipped."},
    {"json_bad_ts", false, "An event whose \"ts\" is not a number: it was skipped."},
    {"json_missing_dur", false, "A complete ('X') event without \"dur\": it was skipped."},
    {"json_negative_dur", false, "An event with a negative duration: it was skipped."},
    {"json_unknown_phase", false, "An event of a phase this importer does not know."},
    {"json_unmatched_end", false, "An 'E' end event with no 'B' begin open on its thread."},
    {"json_unmatched_async_end", false, "An async end with no begin of the same id."},
    {"json_counter_without_values", false, "A counter ('C') event without numeric args."},
    {"json_sample_without_ts", false, "A stack sample without a time: it was skipped."},
    {"json_clock_sync_without_id", false, "A clock sync ('c') event without a sync id."},
    {"json_event_not_object", false, "A trace event that is not a JSON object."},
    {"json_truncated", false,
     "The file ends in the middle of the trace (cut off while written?): events after that "
     "point are missing."},
    {"ascend_memory_bad_row", false,
     "A row of an Ascend memory table without a size, a time or a name: it was skipped."},
    {"snapshot_not_understood", false,
     "A part of a PyTorch memory snapshot this version does not understand (the source's notes "
     "say which): the rest was read."},
    {"tfevents_bad_record", false, "A TensorBoard record whose checksum or framing is wrong."},
    {"tfevents_nonfinite_value", false, "A scalar that is NaN or infinite."},
    {"nsys_table_read_error", false, "A table of the Nsight Systems export could not be read."},
    {"nsys_table_missing_columns", false, "A table of the Nsight export lacks needed columns."},
    {"nsys_negative_duration", false, "An Nsight row that ends before it starts."},
    {"nsys_missing_thread", false, "An Nsight row naming a thread the export does not list."},
    {"nsys_nvtx_unknown_type", false, "An NVTX event of a type this importer does not know."},
    {"cupti_dropped_records", false, "Activity records CUPTI dropped (its buffers were full)."},
    {"cupti_truncated", false, "The CUPTI activity file ends in the middle of a record."},
    {"cupti_malformed_record", false, "A CUPTI activity record that cannot be decoded."},
    {"cupti_unknown_record", false, "A CUPTI activity record of a kind this importer skips."},
    {"cupti_marker_unpaired", false, "A CUPTI marker start without its end (or the reverse)."},
    {"cupti_negative_duration", false, "A CUPTI activity that ends before it starts."},
};

const KeyInfo* find(std::string_view key) {
    for (const KeyInfo& k : kKeys)
        if (k.key == key) return &k;
    return nullptr;
}

}  // namespace

bool isExpectedSkip(std::string_view key) {
    const KeyInfo* k = find(key);
    return k && k->expected;
}

std::string explainImportKey(std::string_view key) {
    const KeyInfo* k = find(key);
    return k ? std::string(k->text) : std::string();
}

}  // namespace ts::store
