#pragma once
// Helpers for the Chrome trace tests: read a (gzip) file whole, count a trace's events
// independently of the importer with a RapidJSON DOM walk, import into a fresh session.
#include <zlib.h>

#include <rapidjson/document.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "importers/registry.h"

namespace ts::test {

inline std::string readAll(const std::string& path) {
    std::string out;
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return out;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    gzclose(f);
    return out;
}

struct ExpectedCounts {
    int64_t events = 0, slices = 0, asyncSlices = 0, instants = 0, counterSamples = 0;
    int64_t flowPairs = 0;  // s->t/f links by (cat, id) in time order
};

inline bool hasNumber(const rapidjson::Value& e, const char* k) {
    if (!e.HasMember(k)) return false;
    const auto& v = e[k];
    return v.IsNumber() || (v.IsString() && v.GetStringLength() > 0);
}

inline ExpectedCounts countJson(const std::string& text) {
    ExpectedCounts c;
    rapidjson::Document d;
    d.Parse<rapidjson::kParseFullPrecisionFlag | rapidjson::kParseNanAndInfFlag>(text.c_str(),
                                                                                 text.size());
    if (d.HasParseError()) return c;
    const rapidjson::Value* events = d.IsArray() ? &d : nullptr;
    if (d.IsObject() && d.HasMember("traceEvents")) events = &d["traceEvents"];
    if (!events || !events->IsArray()) return c;
    std::map<std::string, std::vector<std::pair<long double, int>>> flows;  // key -> (ts, rank)
    for (const auto& e : events->GetArray()) {
        if (!e.IsObject()) continue;
        ++c.events;
        if (!e.HasMember("ph") || !e["ph"].IsString() || !hasNumber(e, "ts")) continue;
        const std::string ph = e["ph"].GetString();
        if ((ph == "X" && hasNumber(e, "dur")) || ph == "B") ++c.slices;
        if (ph == "b" || ph == "S" || ph == "n" || ph == "T") ++c.asyncSlices;
        if (ph == "i" || ph == "I" || ph == "N" || ph == "O" || ph == "D") ++c.instants;
        if (ph == "C" && e.HasMember("args") && e["args"].IsObject())
            for (const auto& m : e["args"].GetObject())
                c.counterSamples += m.value.IsNumber() ? 1 : 0;
        if ((ph == "s" || ph == "t" || ph == "f") && e.HasMember("id")) {
            std::string key = e.HasMember("cat") && e["cat"].IsString() ? e["cat"].GetString() : "";
            key += "|";
            const auto& id = e["id"];
            key += id.IsString()   ? std::string(id.GetString())
                   : id.IsUint64() ? std::to_string(id.GetUint64())
                   : id.IsInt64()  ? std::to_string(id.GetInt64())
                                   : "?";
            const auto& ts = e["ts"];
            const long double t = ts.IsNumber() ? static_cast<long double>(ts.GetDouble())
                                                : std::stold(ts.GetString());
            flows[key].push_back({t, ph == "s" ? 0 : ph == "t" ? 1 : 2});
        }
    }
    for (auto& [key, pts] : flows) {
        std::stable_sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first < b.first : a.second < b.second;
        });
        bool open = false;
        for (const auto& p : pts) {
            if (p.second == 0) {
                open = true;
            } else {
                if (open) ++c.flowPairs;
                open = p.second == 1 && open;
            }
        }
    }
    return c;
}

struct Imported {
    std::unique_ptr<store::TraceStore> store;
    importers::ImportReport report;
};

inline Imported importInto(const std::string& session, const std::string& file) {
    Imported r;
    auto s = store::TraceStore::open(session, store::TraceStore::Mode::Create);
    if (!s) return r;
    r.store = std::move(s.value());
    JobControl control;
    r.report = importers::importFile(file, *r.store, control);
    return r;
}

}  // namespace ts::test
