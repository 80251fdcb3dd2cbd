#include "importers/import_report.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace ts::importers {

std::string ImportReport::statsJson() const {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    auto num = [&](const char* k, int64_t v) {
        w.Key(k);
        w.Int64(v);
    };
    num("events", events);
    num("slices", slices);
    num("async_slices", asyncSlices);
    num("instants", instants);
    num("counter_samples", counterSamples);
    num("flows", flows);
    num("processes", processes);
    num("threads", threads);
    num("skipped", skipped);
    w.Key("skipped_reasons");
    w.StartObject();
    for (const auto& [k, v] : skippedReasons) num(k.c_str(), v);
    w.EndObject();
    w.Key("extra");
    w.RawValue(extraJson.c_str(), extraJson.size(), rapidjson::kObjectType);
    w.EndObject();
    return buf.GetString();
}

}  // namespace ts::importers
