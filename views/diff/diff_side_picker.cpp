#include "views/diff/diff_side_picker.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <map>

#include "core/analysis/profile/profile_data.h"
#include "core/store/trace_store.h"
#include "core/timeline/op_stats.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/diff/session_registry.h"

namespace {

struct Listing {
    std::vector<DiffSidePicker::Entry> entries;
    QStringList errors;
};

/// The profiles of each session, newest first within a session, sessions in order.
Listing listProfiles(const QStringList& sessions) {
    Listing out;
    for (const QString& path : sessions) {
        auto st =
            ts::store::TraceStore::open(path.toStdString(), ts::store::TraceStore::Mode::ReadOnly);
        if (!st) {
            out.errors << QStringLiteral("%1: %2").arg(path, QString::fromStdString(st.error()));
            continue;
        }
        auto list = ts::analysis::listProfileSources(*st.value());
        auto steps = ts::timeline::listProfilerSteps(*st.value());
        auto runs = st.value()->runs();
        if (!list) {
            out.errors << QString::fromStdString(list.error());
            continue;
        }
        std::map<int64_t, std::vector<int64_t>> stepsOf;
        if (steps)
            for (const auto& s : steps.value()) stepsOf[s.sourceId].push_back(s.number);
        for (const auto& p : list.value()) {
            DiffSidePicker::Entry e;
            e.path = path;
            e.sourceId = p.id;
            e.steps = stepsOf[p.id];
            QString run;
            if (runs)
                for (const auto& r : runs.value())
                    if (r.profileSourceId && *r.profileSourceId == p.id)
                        run = QStringLiteral(" (run %1)").arg(r.id);
            e.label = QStringLiteral("%1 · source %2: %3%4 · %5 steps")
                          .arg(QFileInfo(path).fileName())
                          .arg(p.id)
                          .arg(QString::fromStdString(p.label), run)
                          .arg(p.steps);
            out.entries.push_back(std::move(e));
        }
    }
    return out;
}

}  // namespace

DiffSidePicker::DiffSidePicker(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_a(new QComboBox(this)),
      m_stepA(new QComboBox(this)),
      m_b(new QComboBox(this)),
      m_stepB(new QComboBox(this)),
      m_add(new QPushButton(tr("Add session…"), this)) {
    auto* lay = new QHBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    for (QComboBox* c : {m_a, m_b}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(28);
    }
    for (QComboBox* c : {m_stepA, m_stepB}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    }
    m_a->setToolTip(tr("A: the baseline (the last commit, the GPU run, rank 0, before)"));
    m_b->setToolTip(tr("B: compared with A (this commit, the NPU run, rank 3, after)"));
    lay->addWidget(new QLabel(tr("A:"), this));
    lay->addWidget(m_a, 2);
    lay->addWidget(m_stepA);
    lay->addSpacing(8);
    lay->addWidget(new QLabel(tr("B:"), this));
    lay->addWidget(m_b, 2);
    lay->addWidget(m_stepB);
    lay->addWidget(m_add);

    auto changed = [this] {
        if (m_filling) return;
        m_chosen = true;
        emit selectionChanged();
    };
    connect(m_a, &QComboBox::currentIndexChanged, this, [this, changed](int i) {
        if (!m_filling) fillSteps(m_stepA, i, -1);
        changed();
    });
    connect(m_b, &QComboBox::currentIndexChanged, this, [this, changed](int i) {
        if (!m_filling) fillSteps(m_stepB, i, -1);
        changed();
    });
    connect(m_stepA, &QComboBox::currentIndexChanged, this, changed);
    connect(m_stepB, &QComboBox::currentIndexChanged, this, changed);
    connect(m_add, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getOpenFileName(this, tr("Add a session to compare"),
                                                       QString(), tr("Sessions (*.tscope)"));
        if (!p.isEmpty()) addSession(p);
    });
    // Sessions opened in this window stay listed ("this run against the last one"), the open
    // one last: `trainscope a.tscope b.tscope --view diff` compares a with b.
    auto follow = [this] {
        for (const QString& s : SessionRegistry::instance()->sessions())
            if (!m_sessions.contains(s)) m_sessions << s;
        const QString p = m_ctx->sessionPath();
        if (!p.isEmpty()) {
            m_sessions.removeAll(p);
            m_sessions << p;
        }
        if (m_sessions.isEmpty()) return;
        m_chosen = false;
        reload();
    };
    connect(ctx, &SessionContext::sessionChanged, this, follow);
    connect(SessionRegistry::instance(), &SessionRegistry::sessionsChanged, this, follow);
    connect(ctx, &SessionContext::dataChanged, this, &DiffSidePicker::reload);
    follow();
}

void DiffSidePicker::addSession(const QString& path) {
    const QString p = QFileInfo(path).absoluteFilePath();
    m_sessions.removeAll(p);
    m_sessions.insert(m_sessions.isEmpty() ? 0 : m_sessions.size() - 1, p);
    reload();
}

void DiffSidePicker::reload() {
    if (m_sessions.isEmpty()) return;
    const QStringList sessions = m_sessions;
    m_ctx->jobs()->run<Listing>(
        this, QStringLiteral("diff-sides:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Listing profiles"), [sessions](ts::JobControl&) { return listProfiles(sessions); },
        [this](Listing l) { fill(std::move(l.entries), l.errors); });
}

void DiffSidePicker::fill(std::vector<Entry> entries, const QStringList& errors) {
    const auto previous = selection();
    m_filling = true;
    m_entries = std::move(entries);
    for (QComboBox* c : {m_a, m_b}) {
        c->clear();
        for (const auto& e : m_entries) c->addItem(e.label);
    }
    m_filling = false;
    if (!errors.isEmpty()) emit problem(errors.join(QStringLiteral("; ")));
    auto indexOf = [this](const ts::analysis::DiffSideSpec& s) {
        for (size_t i = 0; i < m_entries.size(); ++i)
            if (m_entries[i].path.toStdString() == s.path && s.sourceId &&
                m_entries[i].sourceId == *s.sourceId)
                return static_cast<int>(i);
        return -1;
    };
    if (m_entries.empty()) {
        emit problem(
            tr("No profile to compare: the sessions hold no run profile and no trace "
               "with ProfilerStep#N slices."));
        return;
    }
    if (m_chosen && previous) {
        const int a = indexOf(previous->first), b = indexOf(previous->second);
        if (a >= 0 && b >= 0)
            return select(a, b, previous->first.step.value_or(-1),
                          previous->second.step.value_or(-1));
    }
    // Defaults: the open session's two newest profiles, else the newest of the session before.
    const QString open = m_sessions.back();
    std::vector<int> inOpen, before;
    for (size_t i = 0; i < m_entries.size(); ++i)
        (m_entries[i].path == open ? inOpen : before).push_back(static_cast<int>(i));
    int a = -1, b = inOpen.empty() ? 0 : inOpen.front();
    if (inOpen.size() >= 2)
        a = inOpen[1];
    else if (!before.empty())
        a = before.back();
    if (a < 0) {  // one profile in all: two of its steps
        const auto& steps = m_entries[static_cast<size_t>(b)].steps;
        select(b, b, steps.size() >= 2 ? steps[steps.size() - 2] : -1,
               steps.empty() ? -1 : steps.back());
    } else {
        select(a, b);
    }
    m_chosen = false;
}

void DiffSidePicker::fillSteps(QComboBox* steps, int entry, int64_t step) {
    const bool was = m_filling;
    m_filling = true;
    steps->clear();
    steps->addItem(tr("steady steps"), QVariant::fromValue<qint64>(-1));
    if (entry >= 0 && entry < static_cast<int>(m_entries.size()))
        for (int64_t n : m_entries[static_cast<size_t>(entry)].steps)
            steps->addItem(tr("step %1").arg(n), QVariant::fromValue<qint64>(n));
    const int at = steps->findData(QVariant::fromValue<qint64>(step));
    steps->setCurrentIndex(at < 0 ? 0 : at);
    m_filling = was;
}

void DiffSidePicker::select(int a, int b, int64_t stepA, int64_t stepB) {
    m_filling = true;
    m_a->setCurrentIndex(a);
    m_b->setCurrentIndex(b);
    fillSteps(m_stepA, a, stepA);
    fillSteps(m_stepB, b, stepB);
    m_filling = false;
    emit selectionChanged();
}

std::optional<std::pair<ts::analysis::DiffSideSpec, ts::analysis::DiffSideSpec>>
DiffSidePicker::selection() const {
    const int a = m_a->currentIndex(), b = m_b->currentIndex();
    if (a < 0 || b < 0 || a >= static_cast<int>(m_entries.size()) ||
        b >= static_cast<int>(m_entries.size()))
        return std::nullopt;
    auto spec = [](const Entry& e, const QComboBox* steps) {
        ts::analysis::DiffSideSpec s;
        s.path = e.path.toStdString();
        s.sourceId = e.sourceId;
        const qint64 n = steps->currentData().toLongLong();
        if (steps->currentIndex() > 0) s.step = n;
        return s;
    };
    return std::make_pair(spec(m_entries[static_cast<size_t>(a)], m_stepA),
                          spec(m_entries[static_cast<size_t>(b)], m_stepB));
}
