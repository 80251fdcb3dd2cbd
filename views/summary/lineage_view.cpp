#include "views/summary/lineage_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

#include "core/store/trace_store.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/summary/parallel_coordinates.h"

namespace {
constexpr int kSortRole = Qt::UserRole + 1;
constexpr int kRowRole = Qt::UserRole + 2;  // index into the table's rows

QStandardItem* cell(const ts::summary::ParamValue* v) {
    auto* it = new QStandardItem;
    if (!v) return it;
    if (v->number) {
        it->setText(QString::number(*v->number, 'g', 6));
        it->setData(*v->number, kSortRole);
        it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    } else {
        it->setText(QString::fromStdString(v->text));
        it->setData(QString::fromStdString(v->text), kSortRole);
    }
    return it;
}
}  // namespace

LineageView::LineageView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_filter(new QLineEdit(this)),
      m_last(new QCheckBox(tr("last value of each scalar tag"), this)),
      m_colour(new QComboBox(this)),
      m_status(new QLabel(this)),
      m_table(new QTableView(this)),
      m_model(new QStandardItemModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_coords(new ParallelCoordinates(this)) {
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Filter:"), this));
    m_filter->setPlaceholderText(tr("regular expression over runs and values"));
    m_filter->setClearButtonEnabled(true);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_last);
    bar->addWidget(new QLabel(tr("Colour by:"), this));
    bar->addWidget(m_colour);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(kSortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_coords);
    split->setSizes({260, 300});
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(bar);
    lay->addWidget(split, 1);
    lay->addWidget(m_status);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& t) {
        m_proxy->setFilterRegularExpression(
            QRegularExpression(t, QRegularExpression::CaseInsensitiveOption));
        updateCoordinates();
    });
    connect(m_last, &QCheckBox::toggled, this, [this] { reload(); });
    connect(m_colour, &QComboBox::currentIndexChanged, this, [this] { updateCoordinates(); });
    connect(m_proxy, &QSortFilterProxyModel::layoutChanged, this, [this] { updateCoordinates(); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& cur) {
                if (!cur.isValid()) return;
                m_coords->setSelectedRow(cur.row());
            });
    connect(m_coords, &ParallelCoordinates::rowClicked, this,
            [this](int row) { m_table->selectRow(row); });
    connect(ctx, &SessionContext::sessionChanged, this, [this] { reload(); });
    connect(ctx, &SessionContext::dataChanged, this, [this] { reload(); });
    reload();
}

void LineageView::reload() {
    const QString session = m_ctx->sessionPath();
    if (session.isEmpty()) {
        m_data = {};
        fill();
        return;
    }
    struct Loaded {
        ts::summary::LineageTable table;
        QString error;
    };
    m_ctx->jobs()->run<Loaded>(
        this, QStringLiteral("lineage"), tr("Reading run parameters"),
        [s = session.toStdString(), last = m_last->isChecked()](ts::JobControl&) {
            Loaded out;
            auto st = ts::store::TraceStore::open(s, ts::store::TraceStore::Mode::ReadOnly);
            if (!st) {
                out.error = QString::fromStdString(st.error());
                return out;
            }
            auto t = ts::summary::readLineageTable(*st.value(), last);
            if (!t)
                out.error = QString::fromStdString(t.error());
            else
                out.table = std::move(t.value());
            return out;
        },
        [this](Loaded l) {
            m_data = std::move(l.table);
            fill();
            if (!l.error.isEmpty())
                m_status->setText(tr("Cannot read the session: %1").arg(l.error));
            emit loaded();
        });
}

void LineageView::fill() {
    m_model->clear();
    // Run, the metrics (what the comparison is about, in blue), then the hyper-parameters.
    QStringList headers{tr("Run")};
    for (const auto& k : m_data.metricKeys) headers << QString::fromStdString(k);
    for (const auto& k : m_data.hparamKeys) headers << QString::fromStdString(k);
    m_model->setHorizontalHeaderLabels(headers);
    for (size_t i = 0; i < m_data.rows.size(); ++i) {
        const auto& r = m_data.rows[i];
        QList<QStandardItem*> items;
        auto* run = new QStandardItem(
            QStringLiteral("%1 (%2)").arg(QString::fromStdString(r.run)).arg(r.runId));
        run->setData(QString::fromStdString(r.run), kSortRole);
        run->setData(static_cast<int>(i), kRowRole);
        items << run;
        for (const auto& k : m_data.metricKeys) {
            auto it = r.metrics.find(k);
            QStandardItem* c = cell(it == r.metrics.end() ? nullptr : &it->second);
            c->setForeground(QColor(21, 101, 192));
            items << c;
        }
        for (const auto& k : m_data.hparamKeys) {
            auto it = r.hparams.find(k);
            items << cell(it == r.hparams.end() ? nullptr : &it->second);
        }
        m_model->appendRow(items);
    }
    // Metric headers in blue, as MindInsight marks them.
    for (size_t k = 0; k < m_data.metricKeys.size(); ++k)
        if (auto* h = m_model->horizontalHeaderItem(static_cast<int>(1 + k)))
            h->setForeground(QColor(21, 101, 192));
    const QString keep = m_colour->currentText();
    m_colour->blockSignals(true);
    m_colour->clear();
    for (const auto& k : m_data.metricKeys) m_colour->addItem(QString::fromStdString(k));
    for (const auto& k : m_data.hparamKeys) m_colour->addItem(QString::fromStdString(k));
    const int i = m_colour->findText(keep);
    m_colour->setCurrentIndex(i >= 0 ? i : 0);
    m_colour->blockSignals(false);
    m_status->setText(
        m_data.rows.empty()
            ? tr("No run has hyper-parameters or metrics: import MindSpore lineage files "
                 "(*_lineage), TensorBoard event files with HParams, or tick the scalar tags.")
            : tr("%1 run(s), %2 hyper-parameter(s), %3 metric(s)")
                  .arg(m_data.rows.size())
                  .arg(m_data.hparamKeys.size())
                  .arg(m_data.metricKeys.size()));
    updateCoordinates();
}

void LineageView::updateCoordinates() {
    // Axes: the hyper-parameters that differ between the shown runs (one value everywhere
    // tells nothing on an axis; the table keeps it), the metrics, the colour column last.
    std::vector<int> shownRows;
    for (int pr = 0; pr < m_proxy->rowCount(); ++pr) {
        const int i = m_proxy->index(pr, 0).data(kRowRole).toInt();
        if (i >= 0 && static_cast<size_t>(i) < m_data.rows.size()) shownRows.push_back(i);
    }
    auto varies = [&](bool metric, const std::string& k) {
        if (shownRows.size() < 2) return true;
        std::set<std::string> seen;
        for (int i : shownRows) {
            const auto& m = metric ? m_data.rows[static_cast<size_t>(i)].metrics
                                   : m_data.rows[static_cast<size_t>(i)].hparams;
            auto it = m.find(k);
            seen.insert(it == m.end()       ? std::string("\x01missing")
                        : it->second.number ? std::to_string(*it->second.number)
                                            : it->second.text);
        }
        return seen.size() > 1;
    };
    QStringList columns;
    std::vector<std::pair<bool, std::string>> keys;  // metric?, key
    const std::string colour = m_colour->currentText().toStdString();
    for (const auto& k : m_data.hparamKeys)
        if (k != colour && varies(false, k)) keys.emplace_back(false, k);
    for (const auto& k : m_data.metricKeys)
        if (k != colour) keys.emplace_back(true, k);
    if (!colour.empty()) {
        const bool isMetric = std::find(m_data.metricKeys.begin(), m_data.metricKeys.end(),
                                        colour) != m_data.metricKeys.end();
        keys.emplace_back(isMetric, colour);
    }
    for (const auto& [_, k] : keys) columns << QString::fromStdString(k);
    std::vector<std::vector<ParallelCoordinates::Cell>> rows;
    QStringList labels;
    for (int i : shownRows) {
        const auto& r = m_data.rows[static_cast<size_t>(i)];
        std::vector<ParallelCoordinates::Cell> row;
        for (const auto& [metric, k] : keys) {
            const auto& m = metric ? r.metrics : r.hparams;
            auto it = m.find(k);
            ParallelCoordinates::Cell c;
            if (it != m.end()) {
                c.number = it->second.number;
                c.text = QString::fromStdString(it->second.text);
            }
            row.push_back(c);
        }
        rows.push_back(std::move(row));
        labels << QString::fromStdString(r.run);
    }
    m_coords->setData(columns, std::move(rows), labels);
}
