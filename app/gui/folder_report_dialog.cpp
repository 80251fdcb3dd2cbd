#include "app/gui/folder_report_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace {
using ts::importers::Fate;

QColor fateColour(Fate fate) {
    if (fate == Fate::Failed) return {255, 205, 210};
    if (fate == Fate::Partial) return {255, 236, 179};
    if (fate == Fate::Skipped) return {238, 238, 238};
    return {};
}

QString fateText(Fate f) {
    return QString::fromLatin1(ts::importers::fateName(f));
}
}  // namespace

FolderReportDialog::FolderReportDialog(const ts::importers::BatchImport& result, QWidget* parent)
    : QDialog(parent),
      m_result(result),
      m_counts(new QLabel(this)),
      m_filter(new QComboBox(this)),
      m_table(new QTableWidget(this)) {
    QStringList folders;
    for (const auto& f : result.folders) folders << QString::fromStdString(f);
    const QString where = folders.join(QStringLiteral(", "));
    setWindowTitle(tr("Folder import: %1").arg(where));
    resize(1100, 560);
    QStringList parts;
    for (const auto& [fate, n] : result.fateCounts())
        parts << tr("%1 %2").arg(n).arg(fateText(fate));
    m_counts->setText(
        tr("<b>%1</b>: %2 file(s) — %3%4")
            .arg(where.toHtmlEscaped())
            .arg(result.files.size())
            .arg(parts.join(QStringLiteral(", ")))
            .arg(result.cancelled ? tr(" — cancelled: nothing was kept") : QString()));
    m_counts->setWordWrap(true);
    m_filter->addItem(tr("all files"), QString());
    for (Fate f : {Fate::Imported, Fate::Partial, Fate::Failed, Fate::Skipped, Fate::Included})
        m_filter->addItem(fateText(f), fateText(f));
    m_table->setColumnCount(4);
    m_table->setHorizontalHeaderLabels({tr("File"), tr("Kind"), tr("Fate"), tr("Why / what")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    // Paths below the folder when there is one, else whole.
    const QDir root(folders.size() == 1 ? folders.front() : QStringLiteral("/"));
    m_table->setRowCount(static_cast<int>(result.files.size()));
    for (size_t i = 0; i < result.files.size(); ++i) {
        const auto& f = result.files[i];
        const QStringList cells = {root.relativeFilePath(QString::fromStdString(f.path)),
                                   QString::fromStdString(f.kind), fateText(f.fate),
                                   QString::fromStdString(f.detail)};
        for (int c = 0; c < 4; ++c) {
            auto* it = new QTableWidgetItem(cells[c]);
            if (fateColour(f.fate).isValid()) it->setBackground(fateColour(f.fate));
            it->setToolTip(cells[c]);
            m_table->setItem(static_cast<int>(i), c, it);
        }
    }
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(0, std::min(m_table->columnWidth(0), 520));
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_counts, 1);
    bar->addWidget(new QLabel(tr("Show:"), this));
    bar->addWidget(m_filter);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(bar);
    lay->addWidget(m_table, 1);
    lay->addWidget(buttons);
    connect(m_filter, &QComboBox::currentIndexChanged, this,
            [this] { setFateFilter(m_filter->currentData().toString()); });
}

void FolderReportDialog::setFateFilter(const QString& fate) {
    for (int r = 0; r < m_table->rowCount(); ++r)
        m_table->setRowHidden(r, !fate.isEmpty() && m_table->item(r, 2)->text() != fate);
}
