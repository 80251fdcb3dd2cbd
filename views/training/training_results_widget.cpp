#include "views/training/training_results_widget.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "views/common/units_text.h"
#include "views/training/training_progress_widget.h"

namespace {

QTableWidgetItem* cell(const QString& text,
                       Qt::Alignment align = Qt::AlignRight | Qt::AlignVCenter) {
    auto* it = new QTableWidgetItem(text);
    it->setTextAlignment(align);
    it->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    return it;
}

}  // namespace

TrainingResultsWidget::TrainingResultsWidget(QWidget* parent)
    : QWidget(parent),
      m_head(new QLabel(this)),
      m_detail(new QLabel(this)),
      m_perClass(new QTableWidget(this)),
      m_confusion(new QTableWidget(this)),
      m_checkpoints(new QListWidget(this)) {
    QFont bold = m_head->font();
    bold.setBold(true);
    m_head->setFont(bold);
    m_head->setWordWrap(true);
    m_detail->setWordWrap(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    for (QTableWidget* t : {m_perClass, m_confusion}) {
        t->setEditTriggers(QAbstractItemView::NoEditTriggers);
        t->verticalHeader()->setDefaultSectionSize(20);
        t->horizontalHeader()->setMinimumSectionSize(24);
    }
    m_perClass->setColumnCount(3);
    m_perClass->setHorizontalHeaderLabels({tr("Precision"), tr("Recall"), tr("F1")});
    m_perClass->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_confusion->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_confusion->setToolTip(tr("Rows: true class; columns: predicted class"));
    m_checkpoints->setToolTip(tr("Double-click to list a checkpoint's parameters"));
    m_checkpoints->setMaximumHeight(70);
    connect(m_checkpoints, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem* item) {
        emit openCheckpoint(item->data(Qt::UserRole).toString());
    });

    // One table at a time, each with the whole width: a 10-class confusion matrix beside the
    // per-class table did not fit next to the runs list.
    auto* tables = new QTabWidget(this);
    m_tables = tables;
    tables->setDocumentMode(true);
    tables->addTab(m_confusion, tr("Confusion matrix"));
    tables->addTab(m_perClass, tr("Per class"));
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(m_head);
    l->addWidget(m_detail);
    l->addWidget(tables, 1);
    l->addWidget(m_checkpoints);
    l->addStretch(0);  // takes the room of the tables when a command run hides them
    clear(tr("Select a run to see its results."));
}

QStringList TrainingResultsWidget::classNames(const std::string& dataset, int classes) {
    static const QStringList fashion = {QObject::tr("T-shirt/top"), QObject::tr("Trouser"),
                                        QObject::tr("Pullover"),    QObject::tr("Dress"),
                                        QObject::tr("Coat"),        QObject::tr("Sandal"),
                                        QObject::tr("Shirt"),       QObject::tr("Sneaker"),
                                        QObject::tr("Bag"),         QObject::tr("Ankle boot")};
    QStringList out;
    for (int c = 0; c < classes; ++c)
        out << (dataset == "fashion-mnist" && c < fashion.size() ? fashion[c] : QString::number(c));
    return out;
}

QString TrainingResultsWidget::headline() const {
    return m_head->text();
}

void TrainingResultsWidget::clear(const QString& message) {
    m_head->setText(message);
    m_detail->clear();
    m_perClass->setRowCount(0);
    m_confusion->setRowCount(0);
    m_confusion->setColumnCount(0);
    m_checkpoints->clear();
    m_checkpoints->hide();
    m_tables->show();
}

void TrainingResultsWidget::showCommandRun(const ts::run::RunSummary& r) {
    const QLocale loc;
    QStringList parts;
    parts << tr("Command: %1").arg(QString::fromStdString(r.commandLine));
    if (r.hasSummary) {
        const QString end = r.signal     ? tr("ended by signal %1").arg(*r.signal)
                            : r.exitCode ? tr("exit code %1").arg(*r.exitCode)
                                         : tr("did not start");
        QString line = tr("%1 after %2, %3 lines")
                           .arg(end, TrainingProgressWidget::duration(r.durationS),
                                loc.toString(static_cast<qlonglong>(r.logLines)));
        if (r.processes > 1) line += tr(" from %1 processes").arg(r.processes);
        parts << line;
        QStringList traces;
        for (const auto& t : r.traces) traces << QFileInfo(QString::fromStdString(t)).fileName();
        if (!traces.isEmpty())
            parts << tr("traces imported (Timeline, Op statistics, Steps): %1")
                         .arg(traces.join(QStringLiteral(", ")));
        if (r.overflowFindings > 0)
            parts << tr("NaN/Inf findings: %1 (Overflow view)").arg(r.overflowFindings);
    } else if (r.status == ts::store::RunStatus::Running) {
        parts << tr("still running");
    }
    for (const auto& w : r.warnings) parts << QStringLiteral("⚠ ") + QString::fromStdString(w);
    m_detail->setText(parts.join('\n'));
    m_tables->hide();
    auto add = [&](const std::string& path, const QString& what) {
        const QString p = QString::fromStdString(path);
        auto* item = new QListWidgetItem(what + QStringLiteral(": ") + QFileInfo(p).fileName(),
                                         m_checkpoints);
        item->setData(Qt::UserRole, p);
        item->setToolTip(p);
    };
    for (const auto& d : r.dumps) add(d, tr("dump"));
    for (const auto& c : r.crashRecords) add(c, tr("crash record"));
    m_checkpoints->setMaximumHeight(std::min(160, 24 + 20 * m_checkpoints->count()));
    m_checkpoints->setVisible(m_checkpoints->count() > 0);
}

void TrainingResultsWidget::showRun(const ts::run::RunSummary& r) {
    clear({});
    QString head = tr("Run #%1 %2: %3")
                       .arg(r.id)
                       .arg(QString::fromStdString(r.name),
                            QString::fromLatin1(ts::store::statusName(r.status)));
    if (!r.reason.empty()) head += QStringLiteral(" — ") + QString::fromStdString(r.reason);
    m_head->setText(head);
    if (r.isCommand()) {
        showCommandRun(r);
        return;
    }
    m_checkpoints->setMaximumHeight(70);
    const QLocale loc;
    QStringList parts;
    auto ev = [&](const char* k) { return r.eval.count(k) ? r.eval.at(k) : -1.0; };
    if (ev("accuracy") >= 0)
        parts << tr("test accuracy %1, loss %2, macro precision %3, recall %4, F1 %5")
                     .arg(shareText(ev("accuracy")), QString::number(ev("loss"), 'f', 4),
                          shareText(ev("precision")), shareText(ev("recall")), shareText(ev("f1")));
    if (r.hasSummary)
        parts << tr("%1 steps in %2, %3 samples/s, final loss %4, memory peak %5")
                     .arg(loc.toString(static_cast<qlonglong>(r.steps)),
                          TrainingProgressWidget::duration(r.trainSeconds),
                          loc.toString(r.samplesPerS, 'f', 0), QString::number(r.finalLoss, 'g', 5),
                          TrainingProgressWidget::bytes(r.peakBytes));
    if (r.overflowSteps > 0)
        parts << tr("%1 steps skipped after a loss-scale overflow").arg(r.overflowSteps);
    for (const auto& w : r.warnings) parts << QStringLiteral("⚠ ") + QString::fromStdString(w);
    if (!r.hasSummary && r.status == ts::store::RunStatus::Running) parts << tr("still running");
    m_detail->setText(parts.join('\n'));

    const int classes = static_cast<int>(r.f1.size());
    const QStringList names = classNames(r.config.dataset, classes);
    m_perClass->setRowCount(classes);
    m_perClass->setVerticalHeaderLabels(names);
    for (int c = 0; c < classes; ++c) {
        const auto &p = r.precision, &rc = r.recall, &f = r.f1;
        m_perClass->setItem(
            c, 0,
            cell(c < static_cast<int>(p.size()) ? shareText(p[static_cast<size_t>(c)])
                                                : QString()));
        m_perClass->setItem(
            c, 1,
            cell(c < static_cast<int>(rc.size()) ? shareText(rc[static_cast<size_t>(c)])
                                                 : QString()));
        m_perClass->setItem(c, 2, cell(shareText(f[static_cast<size_t>(c)])));
    }
    const int n = static_cast<int>(r.confusion.size());
    m_confusion->setRowCount(n);
    m_confusion->setColumnCount(n);
    const QStringList cm = classNames(r.config.dataset, n);
    m_confusion->setVerticalHeaderLabels(cm);
    QStringList shortNames;
    for (int c = 0; c < n; ++c) shortNames << QString::number(c);
    m_confusion->setHorizontalHeaderLabels(shortNames);
    int64_t most = 1;
    for (const auto& row : r.confusion)
        for (int64_t v : row) most = std::max(most, v);
    for (int t = 0; t < n; ++t) {
        const auto& row = r.confusion[static_cast<size_t>(t)];
        for (int p = 0; p < n && p < static_cast<int>(row.size()); ++p) {
            const int64_t v = row[static_cast<size_t>(p)];
            auto* it = cell(QString::number(v), Qt::AlignCenter);
            const double share = static_cast<double>(v) / static_cast<double>(most);
            // Diagonal (right) in blue, confusions in red; darker = more samples.
            const QColor base = t == p ? QColor(40, 110, 200) : QColor(210, 60, 50);
            QColor bg = base;
            bg.setAlphaF(v == 0 ? 0.0 : 0.12 + 0.75 * share);
            it->setBackground(bg);
            if (share > 0.55) it->setForeground(Qt::white);
            m_confusion->setItem(t, p, it);
        }
    }
    for (const auto& c : r.checkpoints) {
        auto* item =
            new QListWidgetItem(QFileInfo(QString::fromStdString(c)).fileName(), m_checkpoints);
        item->setData(Qt::UserRole, QString::fromStdString(c));
        item->setToolTip(QString::fromStdString(c));
    }
    m_checkpoints->setVisible(m_checkpoints->count() > 0);
}
