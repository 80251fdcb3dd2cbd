#include "core/run/run_names.h"

#include <charconv>
#include <filesystem>

#include "core/store/status.h"
#include "core/store/trace_store.h"

namespace ts::run {

namespace {

std::string fileName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

bool isScript(std::string_view a) {
    for (std::string_view ext : {".py", ".sh", ".pyw", ".ipynb"})
        if (a.size() > ext.size() && a.ends_with(ext)) return true;
    return false;
}

}  // namespace

std::string scriptOf(const LaunchSpec& spec) {
    for (size_t i = 0; i < spec.args.size(); ++i) {
        const std::string& a = spec.args[i];
        if (isScript(a) && !a.starts_with("-")) return fileName(a);
        if (a == "-m" && i + 1 < spec.args.size()) {
            const std::string& module = spec.args[i + 1];
            // A launcher module runs a script named later (python -m torch.distributed.run ...)
            for (size_t j = i + 2; j < spec.args.size(); ++j)
                if (isScript(spec.args[j]) && !spec.args[j].starts_with("-"))
                    return fileName(spec.args[j]);
            return module;
        }
    }
    const std::string program = fileName(spec.program);
    return program.empty() ? std::string("command") : program;
}

Result<std::string> nextRunName(store::TraceStore& store, const std::string& script) {
    const std::string prefix = script + " #";
    store::Statement q =
        store.db().prepare("SELECT name FROM runs WHERE substr(name, 1, length(?1)) = ?1");
    q.bind(1, prefix);
    int64_t highest = 0;
    while (q.step()) {
        const std::string_view name = q.textView(0);
        int64_t n = 0;
        const char* b = name.data() + prefix.size();
        const char* e = name.data() + name.size();
        auto [p, ec] = std::from_chars(b, e, n);
        if (ec == std::errc() && p == e) highest = std::max(highest, n);
    }
    if (!q.error().empty()) return Error{q.error()};
    return prefix + std::to_string(highest + 1);
}

Status renameRun(store::TraceStore& store, int64_t runId, std::string_view name) {
    if (name.find_first_not_of(" \t") == std::string_view::npos) return Error{"a run needs a name"};
    store::Statement q = store.db().prepare("UPDATE runs SET name = ? WHERE id = ?");
    q.bind(1, name).bind(2, runId);
    if (Status s = q.run(); !s) return s;
    auto changed = store.db().queryInt("SELECT changes()");
    if (!changed) return Error{changed.error()};
    if (changed.value() == 0) return Error{"no run " + std::to_string(runId) + " in this session"};
    return {};
}

Status removeRun(store::TraceStore& store, int64_t runId) {
    {
        store::Statement q = store.db().prepare("SELECT status FROM runs WHERE id = ?");
        q.bind(1, runId);
        if (!q.step()) return Error{"no run " + std::to_string(runId) + " in this session"};
        if (store::parseRunStatus(q.textView(0)) == store::RunStatus::Running)
            return Error{"run " + std::to_string(runId) + " is still running: stop it first"};
    }
    std::vector<int64_t> sources;
    {
        store::Statement q = store.db().prepare("SELECT id FROM sources WHERE run_id = ?");
        q.bind(1, runId);
        while (q.step()) sources.push_back(q.int64(0));
        if (!q.error().empty()) return Error{q.error()};
    }
    for (int64_t s : sources)
        if (Status st = store.deleteSource(s); !st) return st;
    if (Status s = store.begin(); !s) return s;
    const std::string id = std::to_string(runId);
    Status s = store.db().exec(
        "DELETE FROM scalars WHERE run_id = " + id + "; DELETE FROM logs WHERE run_id = " + id +
        "; DELETE FROM overflow_findings WHERE run_id = " + id +
        "; DELETE FROM dump_tensors WHERE dump_file_id IN (SELECT id FROM dump_files WHERE "
        "run_id = " +
        id + "); DELETE FROM dump_files WHERE run_id = " + id +
        "; DELETE FROM rdr_records WHERE run_id = " + id + "; DELETE FROM runs WHERE id = " + id +
        ";");
    if (!s) {
        (void)store.rollback();
        return s;
    }
    return store.commit();
}

}  // namespace ts::run
