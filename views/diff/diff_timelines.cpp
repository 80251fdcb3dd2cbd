#include "views/diff/diff_timelines.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/timeline/time_axis.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/diff/diff_link_strip.h"
#include "views/diff/source_timeline.h"
#include "views/timeline/timeline_canvas.h"

using ts::analysis::AlignedOp;
using ts::analysis::RunDiff;
using ts::timeline::SliceRef;
using ts::timeline::TimelineModel;
using ModelPtr = std::shared_ptr<const TimelineModel>;

namespace {

struct Loaded {
    ModelPtr model[2];
    SliceRef ref[2];
    QString error;
};

}  // namespace

DiffTimelines::DiffTimelines(SessionContext* ctx, QWidget* parent)
    : QWidget(parent), m_ctx(ctx), m_links(new DiffLinkStrip(this)), m_status(new QLabel(this)) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(0);
    m_status->setWordWrap(true);
    m_status->setContentsMargins(4, 2, 4, 2);
    lay->addWidget(m_status);
    for (int k = 0; k < 2; ++k) {
        m_title[k] = new QLabel(this);
        m_title[k]->setContentsMargins(4, 2, 4, 2);
        m_canvas[k] = new TimelineCanvas(this);
        m_canvas[k]->setMinimumHeight(90);  // both fit a 720-pixel screen with the table
    }
    lay->addWidget(m_title[0]);
    lay->addWidget(m_canvas[0], 1);
    lay->addWidget(m_links);
    lay->addWidget(m_canvas[1], 1);
    lay->addWidget(m_title[1]);
    for (int k = 0; k < 2; ++k)
        connect(m_canvas[k], &TimelineCanvas::viewChanged, this, [this, k] { follow(k); });
    // A session's content changed (an import, a run's profile written): read its models anew.
    connect(ctx, &SessionContext::dataChanged, this, [this] { m_models.clear(); });
    clear();
}

void DiffTimelines::clear() {
    m_diff.reset();
    m_focusPair = -1;
    for (auto* c : m_canvas) c->setModel(nullptr);
    m_links->setSource(nullptr, nullptr, nullptr, 0, 0, -1);
    m_title[0]->setText(tr("A"));
    m_title[1]->setText(tr("B"));
    m_status->setText(tr("Double-click an op to see it in both runs' timelines, aligned."));
}

DiffTimelines::Focus DiffTimelines::focusOf(const RunDiff& d, const std::string& name) const {
    const auto& al = d.aligned;
    Focus f;
    auto set = [&](int side, const AlignedOp& op) {
        f.sliceId[side] = op.sliceId;
        f.ts[side] = op.ts;
        f.dur[side] = op.dur;
    };
    f.pair = al.firstPairNamed(name);
    if (f.pair >= 0) {
        set(0, al.ops[0][al.pairs[static_cast<size_t>(f.pair)].first]);
        set(1, al.ops[1][al.pairs[static_cast<size_t>(f.pair)].second]);
        return f;
    }
    // One side only: the op, and its place on the other side after the pair before it.
    for (int side = 0; side < 2; ++side) {
        const auto& lone = side == 0 ? al.deleted : al.inserted;
        for (uint32_t i : lone) {
            const AlignedOp& op = al.ops[side][i];
            if (al.names[op.name] != name) continue;
            set(side, op);
            const int other = 1 - side;
            f.ts[other] = other == 0 ? d.a.alignedTs : d.b.alignedTs;
            for (const auto& p : al.pairs) {
                const uint32_t mine = side == 0 ? p.first : p.second;
                if (mine > i) break;
                const AlignedOp& here = al.ops[side][mine];
                const AlignedOp& there = al.ops[other][side == 0 ? p.second : p.first];
                if (here.lane != op.lane) continue;
                f.ts[other] = there.ts + (op.ts - here.ts);
            }
            f.note = side == 0 ? tr("only in A: B's timeline is shown where it would run")
                               : tr("only in B: A's timeline is shown where it would run");
            return f;
        }
    }
    f.ts[0] = d.a.alignedTs;
    f.ts[1] = d.b.alignedTs;
    f.dur[0] = d.a.alignedDur;
    f.dur[1] = d.b.alignedDur;
    f.note = tr("%1 does not run in the aligned steps: they are shown from their start")
                 .arg(QString::fromStdString(name));
    return f;
}

void DiffTimelines::showOp(std::shared_ptr<const RunDiff> diff, const QString& name) {
    if (!diff) return;
    const Focus f = focusOf(*diff, name.toStdString());
    const quint64 gen = ++m_generation;
    m_status->setText(tr("Loading the timelines of %1…").arg(name));
    const std::pair<std::string, int64_t> keys[2] = {{diff->a.path, diff->a.sourceId},
                                                     {diff->b.path, diff->b.sourceId}};
    auto cache = m_models;
    const int64_t ids[2] = {f.sliceId[0], f.sliceId[1]};
    m_ctx->jobs()->run<Loaded>(
        this, QStringLiteral("diff-timelines:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Loading timelines"),
        [keys0 = keys[0], keys1 = keys[1], cache, id0 = ids[0], id1 = ids[1]](ts::JobControl& jc) {
            Loaded out;
            std::map<std::string, ModelPtr> sessions;
            const std::pair<std::string, int64_t> keys[2] = {keys0, keys1};
            const int64_t sliceIds[2] = {id0, id1};
            for (int k = 0; k < 2; ++k) {
                auto hit = cache.find(keys[k]);
                if (hit != cache.end()) {
                    out.model[k] = hit->second;
                } else {
                    auto& full = sessions[keys[k].first];
                    if (!full) {
                        auto m = ts::timeline::loadTimelineModel(keys[k].first, &jc);
                        if (!m) {
                            out.error = QString::fromStdString(m.error());
                            return out;
                        }
                        full = m.value();
                    }
                    out.model[k] = sourceTimeline(*full, keys[k].second);
                }
                if (sliceIds[k]) out.ref[k] = out.model[k]->find(sliceIds[k]);
            }
            return out;
        },
        [this, gen, diff, f, keys0 = keys[0], keys1 = keys[1], name](Loaded l) {
            if (gen != m_generation) return;
            if (!l.error.isEmpty()) {
                m_status->setText(tr("Cannot load the timelines: %1").arg(l.error));
                emit shown();
                return;
            }
            m_models[keys0] = l.model[0];
            m_models[keys1] = l.model[1];
            m_diff = diff;
            m_focusPair = f.pair;
            // One scale for both: no wider than the shorter timeline lets an axis show (1.2x
            // its extent; see TimeAxis::clamp).
            const double shortest = static_cast<double>(std::min(
                l.model[0]->endNs - l.model[0]->startNs, l.model[1]->endNs - l.model[1]->startNs));
            const double width = std::min(
                std::max<double>(static_cast<double>(std::max(f.dur[0], f.dur[1])) * 8, 2000),
                shortest * 1.15);
            for (int k = 0; k < 2; ++k) {
                if (m_canvas[k]->model() != l.model[k].get()) m_canvas[k]->setModel(l.model[k]);
                m_origin[k] = l.model[k]->originNs;
                const double start = static_cast<double>(f.ts[k] - m_origin[k]) - width / 4;
                m_canvas[k]->setTimeWindow(start, start + width);
                m_canvas[k]->selectSlice(l.ref[k]);
                if (l.ref[k].valid()) m_canvas[k]->revealTrack(l.ref[k].track);
            }
            m_offset = static_cast<double>(f.ts[1] - m_origin[1]) -
                       static_cast<double>(f.ts[0] - m_origin[0]);
            const auto& a = diff->a;
            const auto& b = diff->b;
            m_title[0]->setText(tr("A: %1, step %2 — %3 %4")
                                    .arg(QString::fromStdString(a.label))
                                    .arg(a.alignedStep)
                                    .arg(name)
                                    .arg(QString::fromStdString(ts::timeline::formatDuration(
                                        static_cast<double>(f.dur[0])))));
            m_title[1]->setText(tr("B: %1, step %2 — %3 %4")
                                    .arg(QString::fromStdString(b.label))
                                    .arg(b.alignedStep)
                                    .arg(name)
                                    .arg(QString::fromStdString(ts::timeline::formatDuration(
                                        static_cast<double>(f.dur[1])))));
            m_links->setSource(&m_diff->aligned, m_canvas[0], m_canvas[1], m_origin[0], m_origin[1],
                               m_focusPair);
            m_status->setText(f.note.isEmpty()
                                  ? tr("%1: aligned pair %2 of %3; zoom or pan either timeline, "
                                       "the other follows on the same scale.")
                                        .arg(name)
                                        .arg(f.pair + 1)
                                        .arg(diff->aligned.pairs.size())
                                  : f.note);
            emit shown();
        });
}

void DiffTimelines::follow(int from) {
    if (m_following || !m_canvas[0]->model() || !m_canvas[1]->model()) return;
    m_following = true;
    const int to = 1 - from;
    const auto& axis = m_canvas[from]->axis();
    const double shift = from == 0 ? m_offset : -m_offset;
    m_canvas[to]->setTimeWindow(axis.start() + shift, axis.end() + shift);
    // The other side could not show that much (its timeline is shorter): both take its scale.
    const auto& other = m_canvas[to]->axis();
    if (std::abs(other.nsPerPixel() - axis.nsPerPixel()) > 1e-9 * axis.nsPerPixel()) {
        const double mid = (axis.start() + axis.end()) / 2,
                     half = (other.end() - other.start()) / 2;
        m_canvas[from]->setTimeWindow(mid - half, mid + half);
    }
    m_links->update();
    m_following = false;
}
