#include "views/curves/curves_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPixmap>
#include <QRegularExpression>
#include <QSlider>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "core/curves/scalar_csv.h"
#include "views/common/run_colour.h"
#include "views/common/session_context.h"
#include "views/curves/curves_chart.h"
#include "views/curves/curves_loader.h"

namespace {

QIcon swatch(const QColor& colour) {
    QPixmap pm(12, 12);
    pm.fill(colour);
    return QIcon(pm);
}

QString runLabel(const ts::curves::RunEntry& r) {
    const QString name = r.name.empty() ? QObject::tr("run") : QString::fromStdString(r.name);
    return QStringLiteral("%1  #%2  · %3")
        .arg(name)
        .arg(r.id)
        .arg(QString::fromLatin1(ts::store::statusName(r.status)));
}

}  // namespace

CurvesView::CurvesView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_chart(new CurvesChart(this)),
      m_loader(new CurvesLoader(ctx, this)),
      m_runList(new QListWidget(this)),
      m_smoothing(new QSlider(Qt::Horizontal, this)),
      m_smoothingLabel(new QLabel(this)),
      m_log(new QCheckBox(tr("Log scale"), this)),
      m_difference(new QCheckBox(tr("Difference B − A"), this)),
      m_xAxis(new QComboBox(this)),
      m_filter(new QLineEdit(this)),
      m_runFilter(new QLineEdit(this)),
      m_status(new QLabel(this)) {
    m_smoothing->setRange(0, 99);
    m_smoothing->setToolTip(tr("Smoothing: TensorBoard's exponential moving average (debiased)"));
    m_smoothing->setMaximumWidth(180);
    m_smoothing->setMinimumWidth(60);
    m_xAxis->addItem(tr("Step"));
    m_xAxis->addItem(tr("Wall time"));
    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("Export…"));
    exportButton->setToolTip(tr("Save the plots as PNG or PDF, or the shown runs' scalars as CSV"));
    connect(exportButton, &QToolButton::clicked, this, &CurvesView::onExportClicked);

    // Two rows, so that the view fits beside the Training panel's form on a 1280-pixel screen.
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Smoothing"), this));
    bar->addWidget(m_smoothing, 1);
    bar->addWidget(m_smoothingLabel);
    bar->addSpacing(8);
    bar->addWidget(m_log);
    bar->addSpacing(8);
    m_difference->setToolTip(
        tr("With two runs ticked: the newer minus the older at every step "
           "both logged, dashed, on each panel's right axis"));
    bar->addWidget(m_difference);
    bar->addStretch(1);
    auto* bar2 = new QHBoxLayout;
    bar2->addWidget(new QLabel(tr("X axis"), this));
    bar2->addWidget(m_xAxis);
    bar2->addSpacing(8);
    bar2->addWidget(exportButton);
    bar2->addSpacing(8);
    m_filter->setPlaceholderText(tr("Filter tags (regex)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMaximumWidth(240);
    m_filter->setToolTip(tr("Show only the panels whose tag matches, e.g. loss|accuracy"));
    bar2->addWidget(m_filter, 1);
    m_status->setWordWrap(true);
    m_status->setMinimumWidth(80);
    bar2->addWidget(m_status, 1);

    m_runList->setMinimumWidth(160);
    m_runFilter->setPlaceholderText(tr("Filter runs (regex)"));
    m_runFilter->setClearButtonEnabled(true);
    m_runFilter->setToolTip(tr("List and draw only the runs whose name matches, e.g. run_(1|3)"));
    auto* runs = new QWidget(this);
    auto* runsLayout = new QVBoxLayout(runs);
    runsLayout->setContentsMargins(0, 0, 0, 0);
    runsLayout->addWidget(m_runFilter);
    runsLayout->addWidget(m_runList, 1);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(runs);
    split->addWidget(m_chart);
    split->setStretchFactor(1, 1);
    split->setSizes({300, 800});  // room for "name  #id · status" of a run
    m_split = split;

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addLayout(bar2);
    layout->addWidget(split, 1);

    connect(m_smoothing, &QSlider::valueChanged, this, [this](int v) {
        m_smoothingLabel->setText(QString::number(v / 100.0, 'f', 2));
        m_chart->setSmoothing(v / 100.0);
    });
    connect(m_log, &QCheckBox::toggled, m_chart, &CurvesChart::setLogScale);
    connect(m_difference, &QCheckBox::toggled, m_chart, &CurvesChart::setDifference);
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_chart->setXAxis(i == 1 ? CurvesChart::XAxis::WallTime : CurvesChart::XAxis::Step);
    });
    connect(m_filter, &QLineEdit::textChanged, m_chart, &CurvesChart::setTagFilter);
    connect(m_runFilter, &QLineEdit::textChanged, this, [this] { applyShownRuns(); });
    connect(m_runList, &QListWidget::itemChanged, this, &CurvesView::onItemChanged);
    connect(m_loader, &CurvesLoader::runsListed, this, &CurvesView::onRunsListed);
    connect(m_loader, &CurvesLoader::scalarsRead, this,
            [this](const std::vector<ts::curves::RunScalars>& pieces) {
                for (const auto& p : pieces) m_chart->addScalars(p);
                m_lastError.clear();
                updateStatus();
            });
    connect(m_loader, &CurvesLoader::failed, this, [this](const QString& msg) {
        m_lastError = msg;
        updateStatus();
    });
    connect(m_loader, &CurvesLoader::runStatusChanged, this, &CurvesView::onRunStatusChanged);
    connect(m_loader, &CurvesLoader::liveChanged, this, &CurvesView::updateStatus);
    connect(ctx, &SessionContext::sessionChanged, this, &CurvesView::onSessionChanged);
    connect(ctx, &SessionContext::dataChanged, m_loader, &CurvesLoader::reloadRuns);

    setSmoothing(m_chart->smoothing());
    onSessionChanged();
}

void CurvesView::setSmoothing(double weight) {
    m_smoothing->setValue(qBound(0, qRound(weight * 100), 99));
    m_smoothingLabel->setText(QString::number(m_smoothing->value() / 100.0, 'f', 2));
    m_chart->setSmoothing(m_smoothing->value() / 100.0);
}

void CurvesView::setLogScale(bool on) {
    m_log->setChecked(on);
}

void CurvesView::setDifference(bool on) {
    m_difference->setChecked(on);
}

void CurvesView::setWallTimeAxis(bool on) {
    m_xAxis->setCurrentIndex(on ? 1 : 0);
}

void CurvesView::setRunListWidth(int px) {
    m_runList->setMinimumWidth(std::min(px, 160));
    m_split->setSizes({px, std::max(400, width() - px)});
}

void CurvesView::setTagFilter(const QString& regex) {
    m_filter->setText(regex);
}

void CurvesView::setRunFilter(const QString& regex) {
    m_runFilter->setText(regex);
}

void CurvesView::onSessionChanged() {
    m_loader->reset();
    m_chart->clearRuns();
    m_updatingList = true;
    m_runList->clear();
    m_entries.clear();
    m_updatingList = false;
    m_lastError.clear();
    updateStatus();
    m_loader->reloadRuns();
}

void CurvesView::onRunsListed(const std::vector<ts::curves::RunEntry>& runs) {
    m_updatingList = true;
    QHash<qint64, QListWidgetItem*> existing;
    for (int i = 0; i < m_runList->count(); ++i)
        existing.insert(m_runList->item(i)->data(Qt::UserRole).toLongLong(), m_runList->item(i));
    QSet<qint64> listed;
    // On open, the newest kInitiallyShown runs are ticked; runs that appear later always are.
    const bool initial = existing.isEmpty();
    const size_t firstShown = runs.size() > kInitiallyShown ? runs.size() - kInitiallyShown : 0;
    for (size_t i = 0; i < runs.size(); ++i) {
        const auto& r = runs[i];
        listed.insert(r.id);
        QListWidgetItem* item = existing.value(r.id);
        if (!item) {
            // A run just started is what the user wants to watch: show it at once.
            item = new QListWidgetItem(swatch(runColour(r.id)), QString(), m_runList);
            item->setData(Qt::UserRole, QVariant::fromValue<qint64>(r.id));
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(!initial || i >= firstShown ? Qt::Checked : Qt::Unchecked);
        }
        item->setText(runLabel(r));
        m_entries.insert(r.id, r);
        QString tip = QString::fromStdString(r.reason);
        if (!r.tags.empty()) {
            QStringList tags;
            for (const auto& t : r.tags) tags << QString::fromStdString(t);
            tip += (tip.isEmpty() ? QString() : QStringLiteral("\n")) + tr("Scalars: ") +
                   tags.join(QStringLiteral(", "));
        }
        item->setToolTip(tip);
    }
    for (auto it = existing.begin(); it != existing.end(); ++it) {
        if (listed.contains(it.key())) continue;
        m_entries.remove(it.key());
        delete it.value();
    }
    m_updatingList = false;
    applyShownRuns();
    updateStatus();
}

void CurvesView::onRunStatusChanged(qint64 runId, ts::store::RunStatus status) {
    auto entry = m_entries.find(runId);
    if (entry == m_entries.end()) return;
    entry->status = status;
    m_updatingList = true;
    for (int i = 0; i < m_runList->count(); ++i)
        if (m_runList->item(i)->data(Qt::UserRole).toLongLong() == runId)
            m_runList->item(i)->setText(runLabel(*entry));
    m_updatingList = false;
}

void CurvesView::onItemChanged(QListWidgetItem*) {
    if (!m_updatingList) applyShownRuns();
}

void CurvesView::applyShownRuns() {
    QSet<qint64> shown;
    const QRegularExpression runRe(m_runFilter->text());
    for (int i = 0; i < m_runList->count(); ++i) {
        QListWidgetItem* item = m_runList->item(i);
        const qint64 id = item->data(Qt::UserRole).toLongLong();
        const bool passes = !runRe.isValid() || runRe.match(item->text()).hasMatch();
        item->setHidden(!passes);
        if (passes && item->checkState() == Qt::Checked)
            shown.insert(id);
        else if (m_chart->hasRun(id))
            m_chart->removeRun(id);
    }
    for (qint64 id : m_chart->runIds())
        if (!shown.contains(id)) m_chart->removeRun(id);
    m_loader->setShownRuns(shown);
}

void CurvesView::updateStatus() {
    if (!m_lastError.isEmpty()) {
        m_status->setText(tr("Cannot read scalars: %1").arg(m_lastError));
        return;
    }
    if (m_ctx->sessionPath().isEmpty())
        m_status->setText(tr("No session"));
    else if (m_runList->count() == 0)
        m_status->setText(
            tr("No runs yet: start one in the Training panel, or open "
               "TensorBoard event files"));
    else
        m_status->setText(m_loader->live() ? tr("Live") : QString());
}

bool CurvesView::exportTo(const QString& path, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    bool ok = false;
    QString why;
    if (suffix == QLatin1String("csv")) {
        const auto data = m_chart->data();
        const auto s = ts::curves::writeScalarsCsv(path.toStdString(), data, m_chart->smoothing(),
                                                   {m_ctx->sessionPath().toStdString()});
        ok = s.ok();
        why = QString::fromStdString(s.error());
    } else if (suffix == QLatin1String("png")) {
        ok = m_chart->savePng(path, m_chart->width(), m_chart->height(), 2.0);
        why = tr("cannot write '%1'").arg(path);
    } else if (suffix == QLatin1String("pdf")) {
        ok = m_chart->savePdf(path);
        why = tr("cannot write '%1'").arg(path);
    } else {
        why = tr("unknown export format '%1' (use .png, .pdf or .csv)").arg(suffix);
    }
    if (!ok && error) *error = why;
    return ok;
}

void CurvesView::onExportClicked() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export curves"), QString(),
        tr("PNG image (*.png);;PDF document (*.pdf);;CSV table (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportTo(path, &error)) {
        m_lastError = error;
        updateStatus();
    }
}
