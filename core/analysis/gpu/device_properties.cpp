#include "core/analysis/gpu/device_properties.h"
#include "core/common/json_read.h"

#include <rapidjson/document.h>

#include <algorithm>

namespace ts::analysis::gpu {
namespace {

int64_t num(const rapidjson::Value& o, const char* key) {
    auto it = o.FindMember(key);
    if (it == o.MemberEnd()) return 0;
    if (it->value.IsInt64()) return it->value.GetInt64();
    if (it->value.IsUint64()) return static_cast<int64_t>(it->value.GetUint64() >> 1);
    if (it->value.IsDouble()) {
        const double d = it->value.GetDouble();
        return d > 0 && d < 9e18 ? static_cast<int64_t>(d) : 0;
    }
    return 0;
}

int small(const rapidjson::Value& o, const char* key) {
    const int64_t v = num(o, key);
    return v > 0 && v < (int64_t{1} << 30) ? static_cast<int>(v) : 0;
}

DeviceProperties parseOne(const rapidjson::Value& o) {
    DeviceProperties p;
    p.id = num(o, "id");
    if (auto it = o.FindMember("name"); it != o.MemberEnd() && it->value.IsString())
        p.name.assign(it->value.GetString(), it->value.GetStringLength());
    p.totalGlobalMem = num(o, "totalGlobalMem");
    p.computeMajor = small(o, "computeMajor");
    p.computeMinor =
        static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(num(o, "computeMinor"), 99)));
    p.maxThreadsPerBlock = small(o, "maxThreadsPerBlock");
    p.maxThreadsPerSm = small(o, "maxThreadsPerMultiprocessor");
    p.regsPerBlock = small(o, "regsPerBlock");
    p.regsPerSm = small(o, "regsPerMultiprocessor");
    p.warpSize = small(o, "warpSize");
    p.sharedMemPerBlock = num(o, "sharedMemPerBlock");
    p.sharedMemPerSm = num(o, "sharedMemPerMultiprocessor");
    p.sharedMemPerBlockOptin = num(o, "sharedMemPerBlockOptin");
    p.numSms = small(o, "numSms");
    return p;
}

}  // namespace

bool DeviceProperties::usable() const {
    return computeMajor >= 3 && maxThreadsPerBlock > 0 && maxThreadsPerSm > 0 && regsPerBlock > 0 &&
           regsPerSm > 0 && warpSize > 0 && sharedMemPerBlock > 0 && sharedMemPerSm > 0 &&
           numSms > 0;
}

std::string DeviceProperties::computeCapability() const {
    return std::to_string(computeMajor) + "." + std::to_string(computeMinor);
}

std::vector<DeviceProperties> parseDeviceProperties(std::string_view json) {
    std::vector<DeviceProperties> out;
    rapidjson::Document doc;
    if (!ts::json::parse(doc, std::string_view(json.data(), json.size()))) return out;
    if (doc.IsObject()) {
        out.push_back(parseOne(doc));
    } else if (doc.IsArray()) {
        for (const auto& v : doc.GetArray())
            if (v.IsObject()) out.push_back(parseOne(v));
    }
    return out;
}

const DeviceProperties* deviceById(const std::vector<DeviceProperties>& list, int64_t id) {
    for (const auto& d : list)
        if (d.id == id) return &d;
    return nullptr;
}

}  // namespace ts::analysis::gpu
