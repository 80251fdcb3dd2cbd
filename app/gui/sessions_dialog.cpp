#include "app/gui/sessions_dialog.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "views/common/units_text.h"

namespace {
bool confirm(QWidget* parent, const QString& text) {
    if (qApp->property("trainscope_headless").toBool()) return true;
    return QMessageBox::question(parent, QObject::tr("Remove sessions"), text) == QMessageBox::Yes;
}
}  // namespace

SessionsDialog::SessionsDialog(const QString& openSession, QWidget* parent)
    : QDialog(parent), m_open(QFileInfo(openSession).absoluteFilePath()) {
    setObjectName(QStringLiteral("sessionsDialog"));
    setWindowTitle(tr("Sessions the studio made"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("Opening a trace makes a session: these are those kept in the data folder (%1) and "
           "the temporary folder. Sessions you saved elsewhere are not listed.")
            .arg(sessionsFolder()),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_table = new QTableWidget(0, 4, this);
    m_table->setHorizontalHeaderLabels({tr("Session"), tr("Size"), tr("Modified"), tr("Where")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 1);
    m_total = new QLabel(this);
    layout->addWidget(m_total);
    auto* buttons = new QHBoxLayout;
    auto* open = new QPushButton(tr("Open"), this);
    auto* remove = new QPushButton(tr("Remove selected…"), this);
    auto* old = new QPushButton(tr("Remove those older than 30 days…"), this);
    auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addWidget(open);
    buttons->addWidget(remove);
    buttons->addWidget(old);
    buttons->addStretch(1);
    buttons->addWidget(close);
    layout->addLayout(buttons);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(open, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentRow();
        if (row < 0 || row >= static_cast<int>(m_entries.size())) return;
        emit openRequested(m_entries[static_cast<size_t>(row)].path);
        accept();
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        QList<int> rows;
        for (const QModelIndex& i : m_table->selectionModel()->selectedRows()) rows << i.row();
        if (rows.isEmpty()) return;
        if (confirm(this, tr("Remove %n session(s) and their files for good?", nullptr,
                             static_cast<int>(rows.size()))))
            removeRows(rows);
    });
    connect(old, &QPushButton::clicked, this, [this] {
        if (confirm(this, tr("Remove every session not changed for 30 days, for good?")))
            removeOlderThan(30);
    });
    resize(820, 440);
    refresh();
}

void SessionsDialog::refresh() {
    m_entries = listStudioSessions();
    m_table->setRowCount(static_cast<int>(m_entries.size()));
    qint64 total = 0;
    for (int i = 0; i < static_cast<int>(m_entries.size()); ++i) {
        const SessionFileEntry& e = m_entries[static_cast<size_t>(i)];
        total += e.bytes;
        QString name = QFileInfo(e.path).fileName();
        if (e.path == m_open) name += tr(" (open)");
        auto* nameItem = new QTableWidgetItem(name);
        nameItem->setToolTip(e.path);
        m_table->setItem(i, 0, nameItem);
        auto* size = new QTableWidgetItem(bytesText(static_cast<double>(e.bytes)));
        size->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(i, 1, size);
        m_table->setItem(
            i, 2, new QTableWidgetItem(QLocale().toString(e.modified, QLocale::ShortFormat)));
        m_table->setItem(i, 3, new QTableWidgetItem(describeSessionPlace(e.path)));
    }
    m_table->resizeColumnsToContents();
    m_total->setText(tr("%n session(s), %1 in all.", nullptr, static_cast<int>(m_entries.size()))
                         .arg(bytesText(static_cast<double>(total))));
}

int SessionsDialog::removeRows(const QList<int>& rows) {
    int removed = 0;
    for (int row : rows) {
        if (row < 0 || row >= static_cast<int>(m_entries.size())) continue;
        const QString& path = m_entries[static_cast<size_t>(row)].path;
        if (path == m_open) continue;
        removed += removeSessionFiles(path) ? 1 : 0;
    }
    refresh();
    return removed;
}

int SessionsDialog::removeOlderThan(int days) {
    const QDateTime limit = QDateTime::currentDateTime().addDays(-days);
    QList<int> rows;
    for (int i = 0; i < static_cast<int>(m_entries.size()); ++i)
        if (m_entries[static_cast<size_t>(i)].modified < limit) rows << i;
    return removeRows(rows);
}
