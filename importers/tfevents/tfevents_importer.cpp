#include "importers/tfevents/tfevents_importer.h"

#include <filesystem>

#include "core/summary/summary_file.h"
#include "importers/summary/summary_importer.h"

namespace ts::importers {
namespace tfevents {

int sniffTfevents(const std::string& path, std::string_view head) {
    const std::string name = std::filesystem::path(path).filename().string();
    if (name.find("tfevents") != std::string::npos) return 90;
    if (head.size() < 16) return 0;
    engine::tb::RecordReader r(head);
    std::string_view rec;
    return r.next(rec) == engine::tb::RecordReader::Outcome::Record &&
                   summary::sniffDialect(rec) == summary::Dialect::TensorBoard
               ? 70
               : 0;
}

Result<ParsedEvents> readEventFile(const std::string& path) {
    auto file = summary::SummaryFile::open(path, summary::Dialect::TensorBoard);
    if (!file) return Error{file.error()};
    ParsedEvents out;
    const Status s = file.value()->poll([&](summary::SummaryEvent&& ev) {
        for (const auto& it : ev.items) {
            if (it.kind == summary::ValueKind::Scalar)
                out.scalars.push_back({it.tag, ev.step, ev.wallTime, it.scalar});
            else
                ++out.nonScalar;
        }
        return true;
    });
    if (!s) return Error{s.error()};
    const auto& c = file.value()->counts();
    out.records = c.records;
    out.badRecords = c.badCrc + c.undecodable + (c.damaged ? 1 : 0);
    out.truncated = file.value()->pendingBytes() > 0;
    out.fileVersion = c.fileVersion;
    if (out.records == 0)
        return Error{path + ": no TFRecord events (not a TensorBoard event file?)"};
    if (out.records == out.badRecords)
        return Error{path + ": no readable event (every record failed its CRC or decoding)"};
    return out;
}

ImportReport importEventFile(const std::string& path, store::TraceStore& store, JobControl& control,
                             const std::string& runName) {
    summary_import::Options o;
    o.kind = "tfevents";
    o.runName = runName;
    o.dialect = summary::Dialect::TensorBoard;
    return summary_import::importSummaryFile(path, store, control, o);
}

}  // namespace tfevents

Importer tfeventsImporter() {
    Importer imp;
    imp.name = "tfevents";
    imp.description = "TensorBoard event files (events.out.tfevents.*)";
    imp.sniff = [](const std::string& path, std::string_view head) {
        return tfevents::sniffTfevents(path, head);
    };
    imp.run = [](const std::string& path, store::TraceStore& store, JobControl& control,
                 const ImportOptions& options) {
        return tfevents::importEventFile(path, store, control, options.runName);
    };
    return imp;
}

}  // namespace ts::importers
