#include "core/summary/summary_event.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "core/proto/mindinsight_summary.pb.h"
#include "core/proto/tensorboard_summary.pb.h"
#include "core/summary/protobuf_log.h"
#include "core/summary/tensorboard_convert.h"

namespace ts::summary {

const char* dialectName(Dialect d) {
    return d == Dialect::MindSpore ? "mindspore" : "tensorboard";
}

namespace {
constexpr std::pair<ValueKind, const char*> kKindNames[] = {
    {ValueKind::Scalar, "scalar"},       {ValueKind::Histogram, "histogram"},
    {ValueKind::Image, "image"},         {ValueKind::Tensor, "tensor"},
    {ValueKind::Landscape, "landscape"}, {ValueKind::Graph, "graph"},
    {ValueKind::HParams, "hparams"},     {ValueKind::Skipped, "skipped"},
};

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
}  // namespace

const char* valueKindName(ValueKind k) {
    for (const auto& [kind, name] : kKindNames)
        if (kind == k) return name;
    return "skipped";
}

std::optional<ValueKind> valueKindFromName(std::string_view name) {
    for (const auto& [kind, n] : kKindNames)
        if (name == n) return kind;
    return std::nullopt;
}

std::optional<Dialect> dialectOfName(std::string_view name) {
    if (name.find("tfevents") != std::string_view::npos) return Dialect::TensorBoard;
    if (endsWith(name, "_MS") || name.find(".summary.") != std::string_view::npos)
        return Dialect::MindSpore;
    return std::nullopt;
}

std::optional<SummaryEvent> EventDecoder::decode(std::string_view record, std::string* error) {
    routeProtobufLog();
    return m_dialect == Dialect::MindSpore ? decodeMindSpore(record, error)
                                           : decodeTensorBoard(record, error);
}

std::optional<SummaryEvent> EventDecoder::decodeMindSpore(std::string_view record,
                                                          std::string* error) {
    mindinsight::Event ev;
    // ParsePartial: a value missing one of proto2's required fields (an Image without its
    // colourspace) is still read; the checks below say what is unusable.
    if (!ev.ParsePartialFromArray(record.data(), static_cast<int>(record.size()))) {
        if (error) *error = "not a MindSpore summary Event (protobuf decoding failed)";
        return std::nullopt;
    }
    if (!ev.has_wall_time()) {
        if (error) *error = "MindSpore summary Event without its wall_time";
        return std::nullopt;
    }
    SummaryEvent out;
    out.wallTime = ev.wall_time();
    out.step = ev.step();
    switch (ev.what_case()) {
        case mindinsight::Event::kVersion:
            out.fileVersion = ev.version();
            break;
        case mindinsight::Event::kGraphDef:
            out.items.push_back(messageItem(
                ev.graph_def().name().empty() ? "graph" : "graph/" + ev.graph_def().name(),
                ValueKind::Graph, ev.graph_def()));
            break;
        case mindinsight::Event::kExplain:
            out.items.push_back(skippedItem("explain", "mindspore_explain_record"));
            break;
        case mindinsight::Event::kSummary:
            for (const auto& v : ev.summary().value()) {
                switch (v.value_case()) {
                    case mindinsight::Summary::Value::kScalarValue: {
                        SummaryItem it;
                        it.tag = v.tag();
                        it.kind = ValueKind::Scalar;
                        it.scalar = v.scalar_value();
                        out.items.push_back(std::move(it));
                        break;
                    }
                    case mindinsight::Summary::Value::kImage:
                        out.items.push_back(
                            v.image().encoded_image().empty()
                                ? skippedItem(v.tag(), "image_without_data")
                                : messageItem(v.tag(), ValueKind::Image, v.image()));
                        break;
                    case mindinsight::Summary::Value::kTensor:
                        out.items.push_back(messageItem(v.tag(), ValueKind::Tensor, v.tensor()));
                        break;
                    case mindinsight::Summary::Value::kHistogram:
                        out.items.push_back(
                            messageItem(v.tag(), ValueKind::Histogram, v.histogram()));
                        break;
                    case mindinsight::Summary::Value::kLossLandscape:
                        out.items.push_back(
                            messageItem(v.tag(), ValueKind::Landscape, v.loss_landscape()));
                        break;
                    case mindinsight::Summary::Value::VALUE_NOT_SET:
                        out.items.push_back(skippedItem(v.tag(), "value_of_unknown_kind"));
                        break;
                }
            }
            break;
        case mindinsight::Event::WHAT_NOT_SET:
            out.items.push_back(skippedItem("", "event_without_content"));
            break;
    }
    return out;
}

std::optional<SummaryEvent> EventDecoder::decodeTensorBoard(std::string_view record,
                                                            std::string* error) {
    tensorboard::Event ev;
    if (!ev.ParseFromArray(record.data(), static_cast<int>(record.size()))) {
        if (error) *error = "not a TensorBoard Event (protobuf decoding failed)";
        return std::nullopt;
    }
    SummaryEvent out;
    out.wallTime = ev.wall_time();
    out.step = ev.step();
    switch (ev.what_case()) {
        case tensorboard::Event::kFileVersion:
            out.fileVersion = ev.file_version();
            break;
        case tensorboard::Event::kGraphDef:
        case tensorboard::Event::kMetaGraphDef:
            out.items.push_back(skippedItem("graph", "tensorflow_graph_def"));
            break;
        case tensorboard::Event::kLogMessage:
        case tensorboard::Event::kSessionLog:
            out.items.push_back(skippedItem("", "tensorboard_session_log"));
            break;
        case tensorboard::Event::kTaggedRunMetadata:
            out.items.push_back(skippedItem("", "tensorboard_run_metadata"));
            break;
        case tensorboard::Event::kSummary:
            for (const auto& v : ev.summary().value()) {
                if (v.has_metadata() && v.metadata().has_plugin_data())
                    m_pluginOfTag[v.tag()] = v.metadata().plugin_data().plugin_name();
                const auto plugin = m_pluginOfTag.find(v.tag());
                out.items.push_back(convertTensorBoardValue(
                    v, plugin == m_pluginOfTag.end() ? std::string_view{} : plugin->second));
            }
            break;
        case tensorboard::Event::WHAT_NOT_SET:
            out.items.push_back(skippedItem("", "event_without_content"));
            break;
    }
    return out;
}

std::optional<Dialect> sniffDialect(std::string_view record) {
    // Both Events keep a version string in field 3, and a TensorBoard image or tensor value
    // also parses as MindSpore's: the version decides first, then values only one dialect
    // has (MindSpore's float scalar_value, histogram, landscape, graph; TensorBoard's
    // simple_value, histo, metadata).
    mindinsight::Event ms;
    const bool msOk = ms.ParsePartialFromArray(record.data(), static_cast<int>(record.size())) &&
                      ms.has_wall_time();
    tensorboard::Event tb;
    const bool tbOk = tb.ParseFromArray(record.data(), static_cast<int>(record.size()));
    if (msOk && ms.has_version()) {
        const std::string& v = ms.version();
        if (v.size() >= 4 && (v.compare(0, 4, "Mind") == 0 || v.compare(0, 4, "mind") == 0))
            return Dialect::MindSpore;
        if (v.rfind("brain.Event", 0) == 0) return Dialect::TensorBoard;
    }
    if (msOk && ms.has_graph_def()) return Dialect::MindSpore;
    if (msOk && ms.has_summary())
        for (const auto& v : ms.summary().value())
            if (v.has_scalar_value() || v.has_histogram() || v.has_loss_landscape())
                return Dialect::MindSpore;
    if (tbOk && tb.has_summary())
        for (const auto& v : tb.summary().value())
            if (v.has_metadata() || v.value_case() != tensorboard::Summary::Value::VALUE_NOT_SET)
                return Dialect::TensorBoard;
    return std::nullopt;
}

}  // namespace ts::summary
