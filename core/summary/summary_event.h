#pragma once
// One decoder for the two TFRecord summary formats: MindSpore summary files (SummaryRecord,
// SummaryCollector; events.summary.<time>.<host>_MS) and TensorBoard event files (PyTorch's
// SummaryWriter; events.out.tfevents.*). Each Event record becomes a SummaryEvent whose
// items carry the value in one model: a scalar as a double; a histogram, image, tensor,
// loss landscape or graph as the serialized MindSpore message (core/proto/
// mindinsight_*.proto: Summary.Histogram, Summary.Image, TensorProto, LossLandscape,
// GraphProto) — TensorBoard's histograms, images and tensors are converted to those — and
// HParams as a JSON object. What cannot be kept (audio, a TensorFlow graph, XAI records, a
// value of no known kind) is an item with a skip reason, so it is counted, never lost
// silently. No Qt.
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts::summary {

enum class Dialect { MindSpore, TensorBoard };
const char* dialectName(Dialect d);  // "mindspore" | "tensorboard"

enum class ValueKind { Scalar, Histogram, Image, Tensor, Landscape, Graph, HParams, Skipped };
/// "scalar", "histogram", "image", "tensor", "landscape", "graph", "hparams", "skipped".
const char* valueKindName(ValueKind k);
/// The kind stored under `name` (as valueKindName writes it); nullopt for unknown names.
std::optional<ValueKind> valueKindFromName(std::string_view name);

struct SummaryItem {
    std::string tag;
    ValueKind kind = ValueKind::Skipped;
    double scalar = 0;       // Scalar
    std::string data;        // serialized MindSpore message, or JSON for HParams
    std::string skipReason;  // Skipped: a stable key, e.g. "tensorboard_audio"
};

struct SummaryEvent {
    double wallTime = 0;  // seconds since the epoch
    int64_t step = 0;
    std::string fileVersion;  // "MindSpore.Event:1", "brain.Event:2" on a file's first record
    std::vector<SummaryItem> items;
};

/// The dialect a file name announces: "_MS" or ".summary." -> MindSpore, "tfevents" ->
/// TensorBoard; nullopt when the name says nothing.
std::optional<Dialect> dialectOfName(std::string_view fileName);

/// Decodes the Event records of one file. TensorBoard writes a value's plugin metadata only
/// with the first value of a tag, so the decoder remembers each tag's plugin: use one
/// decoder per file, in record order.
class EventDecoder {
public:
    explicit EventDecoder(Dialect d) : m_dialect(d) {}
    Dialect dialect() const { return m_dialect; }
    /// Decodes one record; nullopt (and `error`) when it is not an Event of the dialect.
    std::optional<SummaryEvent> decode(std::string_view record, std::string* error = nullptr);

private:
    std::optional<SummaryEvent> decodeMindSpore(std::string_view record, std::string* error);
    std::optional<SummaryEvent> decodeTensorBoard(std::string_view record, std::string* error);
    Dialect m_dialect;
    std::map<std::string, std::string> m_pluginOfTag;
};

/// Which dialect a record is, for a file whose name says nothing: the record decodes as that
/// dialect's Event and carries its version string or summary field. nullopt: neither.
std::optional<Dialect> sniffDialect(std::string_view firstRecord);

/// A record's wall time in nanoseconds since the epoch; 0 when it is not a number or too far
/// from now for int64 nanoseconds (beyond about the year 2262): a damaged record's time.
inline int64_t wallTimeNs(double seconds) {
    return std::isfinite(seconds) && std::fabs(seconds) < 9.2e9
               ? static_cast<int64_t>(seconds * 1e9)
               : 0;
}

}  // namespace ts::summary
