#include "core/analysis/cluster/rank_summary.h"

#include <cstring>
#include <map>

#include "core/analysis/cluster/cluster_input.h"
#include "core/common/clock.h"
#include "core/store/trace_store.h"
#include "core/store/varint.h"

namespace ts::analysis {
namespace {

using store::Statement;
using store::unzigzag;
using store::wrappingMinus;
using store::wrappingPlus;
using store::zigzag;

constexpr const char* kAscendOrigin = "cluster_step_trace_time.csv";

class Out {
public:
    void u(uint64_t v) { store::putVarint(m_s, v); }
    void s(int64_t v) { u(zigzag(v)); }
    void d(double v) {
        uint64_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        u(bits);
    }
    void str(const std::string& v) {
        u(v.size());
        m_s += v;
    }
    std::string take() { return std::move(m_s); }

private:
    std::string m_s;
};

class In {
public:
    explicit In(std::string_view d)
        : m_p(reinterpret_cast<const uint8_t*>(d.data())), m_end(m_p + d.size()) {}
    bool ok() const { return m_ok; }
    bool atEnd() const { return m_p == m_end; }
    uint64_t u() {
        store::VarintReader r(m_p, m_end);
        const uint64_t v = r.next();
        if (!r.ok()) m_ok = false;
        m_p = r.pos();
        return v;
    }
    int64_t s() { return unzigzag(u()); }
    double d() {
        const uint64_t bits = u();
        double v;
        std::memcpy(&v, &bits, sizeof v);
        return v;
    }
    std::string str() {
        const uint64_t n = u();
        if (!m_ok || n > static_cast<uint64_t>(m_end - m_p)) {
            m_ok = false;
            return {};
        }
        std::string v(reinterpret_cast<const char*>(m_p), n);
        m_p += n;
        return v;
    }
    /// A count of items of at least one byte each: never more than the bytes left.
    size_t count() {
        const uint64_t n = u();
        if (!m_ok || n > static_cast<uint64_t>(m_end - m_p)) {
            m_ok = false;
            return 0;
        }
        return static_cast<size_t>(n);
    }

private:
    const uint8_t* m_p;
    const uint8_t* m_end;
    bool m_ok = true;
};

std::string sourcesKey(const RankInput& input) {
    std::string key;
    for (int64_t id : input.sourceIds) key += (key.empty() ? "" : ",") + std::to_string(id);
    return key;
}

bool hasSummaryTable(store::TraceStore& store) {
    auto n = store.db().queryInt(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'rank_summaries'");
    return n && n.value() > 0;
}

}  // namespace

bool rankSummarizable(const RankInput& input) {
    return !input.sourceIds.empty() && input.rankOrigin != kAscendOrigin;
}

std::string encodeRankProfile(const RankProfile& p) {
    Out o;
    o.u(kRankSummaryVersion);
    o.u(p.device);
    o.str(p.stepMarker);
    o.s(p.slices);
    o.u(p.warnings.size());
    for (const std::string& w : p.warnings) o.str(w);
    o.u(p.steps.size());
    int64_t prevTs = 0;
    for (const RankStep& s : p.steps) {
        o.s(s.number);
        o.s(wrappingMinus(s.ts, prevTs));
        prevTs = s.ts;
        o.s(s.dur);
        o.s(s.sliceId);
        o.s(s.sourceId);
        o.s(s.computeNs);
        o.s(s.commNs);
        o.s(s.overlapNs);
        o.s(s.idleNs);
    }
    o.u(p.deviceFigures.has_value());
    if (const auto& f = p.deviceFigures) {
        o.s(f->hta.idleNs);
        o.s(f->hta.computeNs);
        o.s(f->hta.nonComputeNs);
        o.s(f->hta.kernelTimeNs);
        o.d(f->hta.idlePct);
        o.d(f->hta.computePct);
        o.d(f->hta.nonComputePct);
        o.u(f->htaOverlapPct.has_value());
        if (f->htaOverlapPct) o.d(*f->htaOverlapPct);
        o.u(f->htaFiltered);
        o.s(f->htaRowsKept);
        o.s(f->htaRowsDropped);
        const gpu::StepDeviceFigures& st = f->studio;
        for (int64_t v :
             {st.busy, st.idle, st.compute, st.communication, st.nonCompute, st.overlap, st.memory})
            o.s(v);
        o.s(f->studioSteps);
        o.s(f->studioStepsNs);
        // Collective kernels: their keys once, then (key index, start delta, duration).
        std::map<std::string, size_t> keys;
        for (const auto& c : f->collectives) keys.emplace(c.key, keys.size());
        std::vector<const std::string*> byIndex(keys.size());
        for (const auto& [k, i] : keys) byIndex[i] = &k;
        o.u(byIndex.size());
        for (const std::string* k : byIndex) o.str(*k);
        o.u(f->collectives.size());
        int64_t prev = 0;
        for (const auto& c : f->collectives) {
            o.u(keys[c.key]);
            o.s(wrappingMinus(c.start, prev));
            prev = c.start;
            o.s(wrappingMinus(c.end, c.start));
        }
        // The matched figures are filled by matchCollectives for the ranks of one cluster.
    }
    return o.take();
}

Result<RankProfile> decodeRankProfile(std::string_view data, const RankInput& input) {
    In in(data);
    if (in.u() != static_cast<uint64_t>(kRankSummaryVersion) || !in.ok())
        return Error{"rank summary of another version"};
    RankProfile p;
    p.input = input;
    p.device = in.u() != 0;
    p.stepMarker = in.str();
    p.slices = in.s();
    p.warnings.resize(in.count());
    for (std::string& w : p.warnings) w = in.str();
    p.steps.resize(in.count());
    int64_t prevTs = 0;
    for (RankStep& s : p.steps) {
        s.number = in.s();
        s.ts = wrappingPlus(prevTs, in.s());
        prevTs = s.ts;
        s.dur = in.s();
        s.sliceId = in.s();
        s.sourceId = in.s();
        s.computeNs = in.s();
        s.commNs = in.s();
        s.overlapNs = in.s();
        s.idleNs = in.s();
    }
    if (in.u() != 0) {
        RankDeviceFigures f;
        f.hta.idleNs = in.s();
        f.hta.computeNs = in.s();
        f.hta.nonComputeNs = in.s();
        f.hta.kernelTimeNs = in.s();
        f.hta.idlePct = in.d();
        f.hta.computePct = in.d();
        f.hta.nonComputePct = in.d();
        if (in.u() != 0) f.htaOverlapPct = in.d();
        f.htaFiltered = in.u() != 0;
        f.htaRowsKept = in.s();
        f.htaRowsDropped = in.s();
        gpu::StepDeviceFigures& st = f.studio;
        for (int64_t* v : {&st.busy, &st.idle, &st.compute, &st.communication, &st.nonCompute,
                           &st.overlap, &st.memory})
            *v = in.s();
        f.studioSteps = in.s();
        f.studioStepsNs = in.s();
        std::vector<std::string> keys(in.count());
        for (std::string& k : keys) k = in.str();
        f.collectives.resize(in.count());
        int64_t prev = 0;
        for (auto& c : f.collectives) {
            const uint64_t k = in.u();
            if (k >= keys.size()) return Error{"damaged rank summary"};
            c.key = keys[k];
            c.start = wrappingPlus(prev, in.s());
            prev = c.start;
            c.end = wrappingPlus(c.start, in.s());
        }
        p.deviceFigures = std::move(f);
    }
    if (!in.ok() || !in.atEnd()) return Error{"damaged rank summary"};
    return p;
}

Result<std::string> rankFingerprint(store::TraceStore& store, const RankInput& input) {
    store::SqliteDb& db = store.db();
    Statement src = db.prepare(
        "SELECT status, COALESCE(imported_at, 0), events, slices, skipped, COALESCE(ts_min, 0),"
        " COALESCE(ts_max, 0), kind, path FROM sources WHERE id = ?");
    // Counts and last ids come from the tables' rowids and indexes: no chunk is read.
    Statement tracks =
        db.prepare("SELECT count(*), COALESCE(max(id), 0) FROM tracks WHERE source_id = ?");
    Statement chunks = db.prepare(
        "SELECT count(*), COALESCE(max(id), 0) FROM slice_chunks WHERE track_id IN"
        " (SELECT id FROM tracks WHERE source_id = ?)");
    Statement args =
        db.prepare("SELECT count(*), COALESCE(max(id), 0) FROM arg_chunks WHERE source_id = ?");
    for (Statement* q : {&src, &tracks, &chunks, &args})
        if (!q->ok()) return Error{q->error()};
    std::string fp = "v" + std::to_string(kRankSummaryVersion);
    for (int64_t id : input.sourceIds) {
        fp += ";" + std::to_string(id);
        src.reset();
        src.bind(1, id);
        if (!src.step()) {
            if (!src.error().empty()) return Error{src.error()};
            fp += ":gone";
            continue;
        }
        for (int c = 0; c < 9; ++c) fp += ":" + std::string(src.textView(c));
        for (Statement* q : {&tracks, &chunks, &args}) {
            q->reset();
            q->bind(1, id);
            if (!q->step()) return Error{q->error().empty() ? "no row" : q->error()};
            fp += "|" + std::to_string(q->int64(0)) + "/" + std::to_string(q->int64(1));
        }
    }
    return fp;
}

Result<std::optional<RankProfile>> loadRankSummary(store::TraceStore& store,
                                                   const RankInput& input) {
    if (!rankSummarizable(input) || !hasSummaryTable(store)) return std::optional<RankProfile>{};
    Statement q =
        store.db().prepare("SELECT fingerprint, data FROM rank_summaries WHERE sources = ?");
    if (!q.ok()) return Error{q.error()};
    q.bind(1, sourcesKey(input));
    if (!q.step()) {
        if (!q.error().empty()) return Error{q.error()};
        return std::optional<RankProfile>{};
    }
    auto now = rankFingerprint(store, input);
    if (!now) return Error{now.error()};
    if (q.textView(0) != now.value()) return std::optional<RankProfile>{};  // stale
    auto p = decodeRankProfile(q.blob(1), input);
    if (!p) return std::optional<RankProfile>{};  // another version or damaged: measure again
    return std::optional<RankProfile>{std::move(p.value())};
}

Status saveRankSummaries(store::TraceStore& store, const std::vector<EncodedRank>& ranks) {
    if (ranks.empty()) return {};
    if (!hasSummaryTable(store)) return Error{"the session has no rank_summaries table"};
    if (Status s = store.begin(); !s) return s;
    Status result;
    {
        Statement q = store.db().prepare(
            "INSERT OR REPLACE INTO rank_summaries(sources, fingerprint, computed_at, data)"
            " VALUES(?, ?, ?, ?)");
        if (!q.ok()) result = Error{q.error()};
        for (size_t i = 0; result && i < ranks.size(); ++i) {
            const EncodedRank& r = ranks[i];
            if (!rankSummarizable(r.input)) continue;
            auto fp = rankFingerprint(store, r.input);
            if (!fp) {
                result = Error{fp.error()};
                break;
            }
            q.bind(1, sourcesKey(r.input))
                .bind(2, fp.value())
                .bind(3, nowNs())
                .bindBlob(4, r.data.data(), r.data.size());
            result = q.run();
        }
    }
    if (!result) {
        (void)store.rollback();
        return result;
    }
    return store.commit();
}

Result<size_t> summarizeSessionRanks(store::TraceStore& store, const std::string& sessionPath,
                                     JobControl* job) {
    auto ranks = ranksOfSession(store, sessionPath);
    if (!ranks) return Error{ranks.error()};
    std::vector<EncodedRank> encoded;
    for (const RankInput& in : ranks.value()) {
        if (!rankSummarizable(in)) continue;
        auto p = analyzeRank(store, in, job);
        if (!p) return Error{p.error()};
        encoded.push_back({in, encodeRankProfile(p.value())});
    }
    if (Status s = saveRankSummaries(store, encoded); !s) return Error{s.error()};
    return encoded.size();
}

}  // namespace ts::analysis
