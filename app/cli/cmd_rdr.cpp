// trainscope-cli rdr DIR: summary of a Running Data Recorder export (what failed, where):
// {"reason","failing_op","failing_seqid","failing_step","detail","epoch","step","time",
//  "rank_id","signal","folder","files","problems"} with --json.
// DIR is the rdr folder, its rdr_index.json, or any parent holding rank_*/rdr; MindSpore's
// own RDR folders are read as MindSpore writes them (ms_rdr_cli.h).
#include <iostream>

#include "app/cli/command.h"
#include "app/cli/ms_rdr_cli.h"
#include "core/debug/rdr/ms_rdr_reader.h"
#include "core/debug/rdr/rdr_reader.h"

namespace ts::cli {
namespace {

int runRdr(const Args& args) {
    // MindSpore's own export (rank_*/rdr of <MODULE>_<tag>_<time> files) has no index file.
    if (rdr::findRdrFolders(args.positional[0]).empty() &&
        !rdr::findMsRdrFolders(args.positional[0]).empty())
        return printMsRdr(args, args.positional[0]);
    auto exp = rdr::readRdrExport(args.positional[0]);
    if (!exp) throw CliError{exp.error()};
    const rdr::RdrExport& e = exp.value();
    if (args.json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        kv(w, "reason", e.reason);
        kv(w, "failing_op", e.failingOp);
        kv(w, "failing_seqid", e.failingSeqid);
        kv(w, "failing_step", e.failingStep);
        kv(w, "detail", e.detail);
        kv(w, "epoch", e.epoch);
        kv(w, "step", e.step);
        kv(w, "time", e.time);
        kv(w, "rank_id", e.rankId);
        w.Key("signal");
        if (e.signal)
            w.Int64(e.signal);
        else
            w.Null();
        kv(w, "folder", e.folder);
        kv(w, "files", e.files);
        kv(w, "problems", e.problems);
        w.EndObject();
        printJson(buf);
        return 0;
    }
    std::cout << "folder      " << e.folder << "\n";
    std::cout << "reason      " << e.reason << "\n";
    std::cout << "failing op  " << (e.failingOp.empty() ? "(unknown)" : e.failingOp);
    if (e.failingSeqid >= 0) std::cout << " (seqid " << e.failingSeqid << ")";
    if (e.failingStep >= 0) std::cout << " in step " << e.failingStep;
    std::cout << "\nepoch/step  " << e.epoch << " / " << e.step << "\n";
    if (!e.detail.empty()) std::cout << "detail      " << e.detail << "\n";
    std::cout << "time        " << e.time << "  rank " << e.rankId << "\n";
    std::cout << "ops         " << e.current.rows.size() << " in current step, "
              << e.previous.rows.size() << " in previous\n";
    std::cout << "allocations " << e.allocations.size() << ", pool in use " << e.poolInUse
              << " B, peak " << e.poolPeak << " B\n";
    std::cout << "files      ";
    for (const auto& f : e.files) std::cout << " " << f;
    std::cout << "\n";
    for (const auto& p : e.problems) std::cout << "problem     " << p << "\n";
    return 0;
}

TS_CLI_COMMAND("rdr",
               "summarize a Running Data Recorder export, the studio's or MindSpore's (reason, "
               "failing op, files)",
               "DIR [--json]", {}, &runRdr, 1, 1);

}  // namespace
}  // namespace ts::cli
