#include "views/dumps/overflow/overflow_source.h"

#include <map>

#include "core/debug/dump_scan.h"
#include "core/debug/overflow_store.h"
#include "core/store/sqlite_db.h"
#include "core/store/trace_store.h"

OverflowListing scanDumpFile(const QString& path, ts::JobControl& jc) {
    OverflowListing out;
    auto f = ts::h5::File::open(path.toStdString());
    if (!f) {
        out.error = QString::fromStdString(f.error());
        return out;
    }
    auto rep = ts::debug::scanOverflow(f.value(), &jc);
    if (!rep) {
        out.error = QString::fromStdString(rep.error());
        return out;
    }
    out.order =
        QStringLiteral("%1 (%2)").arg(QString::fromLatin1(ts::debug::orderSourceName(rep->order)),
                                      QString::fromStdString(rep->orderDetail));
    for (const auto& x : rep->findings) {
        OverflowRow r;
        r.path = QString::fromStdString(x.tensor.path);
        r.op = QString::fromStdString(x.tensor.op);
        r.seqid = x.tensor.seqid;
        r.tensor = x.tensor.io.empty() ? QString()
                                       : QStringLiteral("%1/%2")
                                             .arg(QString::fromStdString(x.tensor.io))
                                             .arg(x.tensor.slot);
        r.nan = x.nan;
        r.posinf = x.posinf;
        r.neginf = x.neginf;
        r.file = path;
        r.origin = QStringLiteral("dump");
        out.rows.push_back(std::move(r));
    }
    for (const auto& e : rep->errors) out.problems << QString::fromStdString(e);
    return out;
}

OverflowListing loadRunFindings(const QString& sessionPath, int64_t runId) {
    OverflowListing out;
    out.order = QObject::tr("execution order of the run (step, then op)");
    auto st = ts::store::TraceStore::open(sessionPath.toStdString(),
                                          ts::store::TraceStore::Mode::ReadOnly);
    if (!st) {
        out.error = QString::fromStdString(st.error());
        return out;
    }
    auto rows = ts::debug::readOverflowFindings(*st.value(), runId);
    if (!rows) {
        out.error = QString::fromStdString(rows.error());
        return out;
    }
    std::map<int64_t, QString> fileOfStep;
    if (auto files = ts::debug::readDumpFiles(*st.value(), runId); files) {
        for (const auto& f : files.value()) {
            const QString p = QString::fromStdString(f.path);
            if (p.contains(QStringLiteral("overflow_step"))) fileOfStep[f.step] = p;
        }
    }
    if (auto runs = st.value()->runs(); runs)
        for (const auto& r : runs.value())
            if (r.id == runId) out.runStatus = QString::fromLatin1(ts::store::statusName(r.status));
    for (const auto& x : rows.value()) {
        OverflowRow r;
        r.step = x.step;
        r.op = QString::fromStdString(x.op);
        r.seqid = x.seqid;
        r.tensor = QString::fromStdString(x.tensor);
        r.scope = QString::fromStdString(x.scope);
        r.origin = QString::fromStdString(x.origin);
        r.nan = x.nan;
        r.posinf = x.posinf;
        r.neginf = x.neginf;
        auto it = fileOfStep.find(x.step);
        if (it != fileOfStep.end() && x.origin == "op") {
            r.file = it->second;
            r.path = QString::fromStdString(x.datasetPath());
        }
        out.rows.push_back(std::move(r));
    }
    return out;
}

std::vector<RunChoice> runsWithFindings(const QString& sessionPath, QString* error) {
    std::vector<RunChoice> out;
    if (sessionPath.isEmpty()) return out;
    auto st = ts::store::TraceStore::open(sessionPath.toStdString(),
                                          ts::store::TraceStore::Mode::ReadOnly);
    if (!st) {
        if (error) *error = QString::fromStdString(st.error());
        return out;
    }
    auto stmt = st.value()->db().prepare(
        "SELECT r.id, r.name, r.status, count(f.id) FROM runs r JOIN overflow_findings f "
        "ON f.run_id = r.id GROUP BY r.id ORDER BY r.id DESC");
    if (!stmt.ok()) {
        if (error) *error = QString::fromStdString(stmt.error());
        return out;
    }
    while (stmt.step()) {
        RunChoice c;
        c.id = stmt.int64(0);
        c.name = QString::fromStdString(stmt.text(1));
        c.status = QString::fromStdString(stmt.text(2));
        c.findings = stmt.int64(3);
        out.push_back(std::move(c));
    }
    return out;
}
