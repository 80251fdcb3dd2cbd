#include "views/diff/diff_memory_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "views/common/bytes_item.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

using ts::memory::MemoryDiff;
using MemoryDiffResult = ts::Result<MemoryDiff>;

DiffMemoryPanel::DiffMemoryPanel(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_summary(new QLabel(this)),
      m_table(new QTableWidget(0, ColumnCount, this)) {
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setHorizontalHeaderLabels({tr("Op"), tr("Input shapes"), tr("Allocated A"),
                                        tr("Allocated B"), tr("Change"), tr("Net A"), tr("Net B")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(Op, QHeaderView::Stretch);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(m_summary);
    l->addWidget(m_table, 1);
}

void DiffMemoryPanel::compare(const ts::analysis::DiffSideSpec& a,
                              const ts::analysis::DiffSideSpec& b, bool byShape) {
    m_summary->setText(tr("Comparing memory…"));
    m_ctx->jobs()->run<MemoryDiffResult>(
        this, QStringLiteral("diff-memory:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Comparing memory"),
        [a, b, byShape](ts::JobControl& jc) { return ts::memory::diffMemory(a, b, byShape, &jc); },
        [this](MemoryDiffResult r) {
            if (!r) {
                m_diff.reset();
                m_table->setRowCount(0);
                m_summary->setText(tr("Memory: %1").arg(QString::fromStdString(r.error())));
            } else {
                show(r.value());
            }
            emit compared();
        });
}

void DiffMemoryPanel::show(const MemoryDiff& d) {
    m_diff = d;
    auto side = [](const ts::memory::MemoryDiffSide& s) {
        return s.origin.empty() ? tr("no memory data")
                                : tr("peak %1 (pool %2), %3 allocations live at it; from %4")
                                      .arg(BytesItem::text(static_cast<qint64>(s.peakBytes)),
                                           BytesItem::text(static_cast<qint64>(s.poolPeakBytes)))
                                      .arg(s.liveAtPeak)
                                      .arg(QString::fromStdString(s.origin));
    };
    m_summary->setText(tr("<b>%1</b><br>A: %2<br>B: %3<br>Bytes per op %4.")
                           .arg(QString::fromStdString(d.explains).toHtmlEscaped(), side(d.a),
                                side(d.b), d.perStep ? tr("per step") : tr("over each profile")));
    m_table->setSortingEnabled(false);
    m_table->sortByColumn(-1, Qt::AscendingOrder);  // the largest change first, until a click
    m_table->setRowCount(static_cast<int>(d.ops.size()));
    m_table->setColumnHidden(Shapes, std::all_of(d.ops.begin(), d.ops.end(),
                                                 [](const auto& r) { return r.shapes.empty(); }));
    for (int i = 0; i < static_cast<int>(d.ops.size()); ++i) {
        const auto& r = d.ops[static_cast<size_t>(i)];
        m_table->setItem(i, Op, new QTableWidgetItem(QString::fromStdString(r.op)));
        m_table->setItem(i, Shapes, new QTableWidgetItem(QString::fromStdString(r.shapes)));
        auto num = [&](int col, double v) {
            auto* it = new BytesItem(static_cast<qint64>(v));
            if (col == Change && v != 0)
                it->setForeground(v > 0 ? QColor(192, 57, 43) : QColor(39, 174, 96));
            m_table->setItem(i, col, it);
        };
        num(AllocatedA, r.allocated[0]);
        num(AllocatedB, r.allocated[1]);
        num(Change, r.delta());
        num(NetA, r.net[0]);
        num(NetB, r.net[1]);
    }
    m_table->setSortingEnabled(true);
}
