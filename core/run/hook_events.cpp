#include "core/run/hook_events.h"

#include <cmath>

#include "core/common/json_read.h"

namespace ts::run {
namespace {

using Value = rapidjson::Value;

const Value* member(const Value& o, const char* k) {
    auto it = o.FindMember(k);
    return it == o.MemberEnd() ? nullptr : &it->value;
}

bool getInt(const Value& o, const char* k, int64_t& out) {
    const Value* v = member(o, k);
    if (!v) return false;
    if (v->IsInt64()) {
        out = v->GetInt64();
        return true;
    }
    if (v->IsDouble() && std::isfinite(v->GetDouble())) {
        out = static_cast<int64_t>(v->GetDouble());
        return true;
    }
    return false;
}

bool getString(const Value& o, const char* k, std::string& out) {
    const Value* v = member(o, k);
    if (!v || !v->IsString()) return false;
    out.assign(v->GetString(), v->GetStringLength());
    return true;
}

}  // namespace

std::optional<HookEvent> parseHookEvent(std::string_view line, std::string* error) {
    auto fail = [&](std::string why) -> std::optional<HookEvent> {
        if (error) *error = std::move(why);
        return std::nullopt;
    };
    rapidjson::Document d;
    if (!json::parse(d, line) || !d.IsObject()) return fail("not a JSON object");
    std::string type;
    if (!getString(d, "type", type)) return fail("no \"type\"");
    HookEvent e;
    getInt(d, "ts", e.ts);
    if (type == "hello") {
        e.type = HookEvent::Type::Hello;
        getInt(d, "pid", e.pid);
        getInt(d, "rank", e.rank);
        getInt(d, "world_size", e.worldSize);
        getString(d, "python", e.python);
        getString(d, "torch", e.torch);  // null: not importable
        if (const Value* f = member(d, "features"); f && f->IsArray())
            for (const auto& x : f->GetArray())
                if (x.IsString()) e.features.emplace_back(x.GetString());
    } else if (type == "warning" || type == "stop") {
        e.type = type == "stop" ? HookEvent::Type::Stop : HookEvent::Type::Warning;
        if (!getString(d, type == "stop" ? "reason" : "message", e.text))
            return fail(type + " without its text");
    } else if (type == "step") {
        e.type = HookEvent::Type::Step;
        if (!getInt(d, "step", e.step)) return fail("step without \"step\"");
    } else if (type == "scalar") {
        e.type = HookEvent::Type::Scalar;
        const Value* v = member(d, "value");
        if (!getString(d, "tag", e.text) || !getInt(d, "step", e.step))
            return fail("scalar without tag or step");
        if (v && v->IsNumber())
            e.value = v->GetDouble();
        else if (v && v->IsString())  // "nan", "inf": JSON has no such numbers
            e.value = std::strtod(v->GetString(), nullptr);
        else
            return fail("scalar without a value");
    } else if (type == "trace" || type == "dump_file") {
        e.type = type == "trace" ? HookEvent::Type::Trace : HookEvent::Type::DumpFile;
        if (!getString(d, "path", e.text)) return fail(type + " without a path");
        e.step = -1;
        getInt(d, "step", e.step);
    } else if (type == "overflow") {
        e.type = HookEvent::Type::Overflow;
        if (!getString(d, "op", e.op) || !getInt(d, "step", e.step))
            return fail("overflow without op or step");
        getString(d, "scope", e.scope);
        getString(d, "tensor", e.tensor);
        getInt(d, "seqid", e.seqid);
        int64_t n = 0;
        if (getInt(d, "nan", n)) e.nan = static_cast<uint64_t>(std::max<int64_t>(n, 0));
        if (getInt(d, "posinf", n)) e.posinf = static_cast<uint64_t>(std::max<int64_t>(n, 0));
        if (getInt(d, "neginf", n)) e.neginf = static_cast<uint64_t>(std::max<int64_t>(n, 0));
    } else {
        return fail("unknown event type '" + type + "'");
    }
    return e;
}

}  // namespace ts::run
