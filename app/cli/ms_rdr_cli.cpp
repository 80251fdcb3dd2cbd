#include "app/cli/ms_rdr_cli.h"

#include <iostream>

#include "core/debug/rdr/ms_rdr_reader.h"

namespace ts::cli {

int printMsRdr(const Args& args, const std::string& path) {
    auto exp = rdr::readMsRdrExport(path);
    if (!exp) throw CliError{exp.error()};
    const rdr::MsRdrExport& e = exp.value();
    const rdr::MsFailure* failure = nullptr;
    for (const auto& f : e.failures)
        if (!f.op.empty() && !failure) failure = &f;
    if (!failure && !e.failures.empty()) failure = &e.failures.front();
    if (args.json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        kv(w, "format", "mindspore-rdr");
        kv(w, "folder", e.folder);
        kv(w, "rank_id", static_cast<int64_t>(e.rank));
        w.Key("failing_op");
        if (failure && !failure->op.empty())
            json::str(w, failure->op);
        else
            w.Null();
        w.Key("failure");
        if (failure) {
            w.StartObject();
            kv(w, "where", failure->where);
            kv(w, "line", failure->line);
            kv(w, "task_id", failure->taskId);
            kv(w, "stream_id", failure->streamId);
            w.EndObject();
        } else {
            w.Null();
        }
        w.Key("files");
        w.StartArray();
        for (const auto& f : e.files) {
            w.StartObject();
            kv(w, "name", f.name);
            kv(w, "kind", rdr::msRdrKindName(f.kind));
            kv(w, "module", f.module);
            kv(w, "tag", f.tag);
            kv(w, "time", f.timestamp);
            kv(w, "bytes", static_cast<int64_t>(f.bytes));
            if (!f.error.empty()) kv(w, "error", f.error);
            w.EndObject();
        }
        w.EndArray();
        w.Key("execution_orders");
        w.StartArray();
        for (size_t i = 0; i < e.execOrders.size(); ++i) {
            const auto& o = e.execOrders[i];
            w.StartObject();
            kv(w, "file", o.file);
            kv(w, "graph_id", o.graphId);
            kv(w, "ops", static_cast<int64_t>(o.ops.size()));
            kv(w, "failing_index", static_cast<int64_t>(e.failingIndex(i)));
            w.EndObject();
        }
        w.EndArray();
        kv(w, "stream_nodes", static_cast<int64_t>(e.streamOrder.size()));
        kv(w, "memory_kernels", static_cast<int64_t>(e.memory.size()));
        kv(w, "tasks", static_cast<int64_t>(e.tasks.size()));
        kv(w, "problems", e.problems);
        w.EndObject();
        printJson(buf);
        return 0;
    }
    std::cout << "folder      " << e.folder << " (MindSpore RDR, rank " << e.rank << ")\n";
    std::cout << "failing op  "
              << (failure && !failure->op.empty() ? failure->op : std::string("(not named)"));
    if (failure) std::cout << "  [" << failure->where << "]";
    std::cout << "\n";
    for (size_t i = 0; i < e.execOrders.size(); ++i) {
        const auto& o = e.execOrders[i];
        std::cout << "exec order  " << o.file << ": graph " << o.graphId << ", " << o.ops.size()
                  << " ops";
        if (const int f = e.failingIndex(i); f >= 0) std::cout << ", failing op at #" << f;
        std::cout << "\n";
    }
    std::cout << "streams     " << e.streamOrder.size() << " nodes; memory " << e.memory.size()
              << " kernels; tasks " << e.tasks.size() << "\n";
    for (const auto& f : e.files)
        std::cout << "file        " << f.name << "  [" << rdr::msRdrKindName(f.kind) << ", "
                  << f.bytes << " B]" << (f.error.empty() ? "" : "  " + f.error) << "\n";
    for (const auto& p : e.problems) std::cout << "problem     " << p << "\n";
    return 0;
}

}  // namespace ts::cli
