#include "app/gui/shortcut_sheet.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

const std::vector<ShortcutSheet::Key>& ShortcutSheet::keys() {
    static const std::vector<Key> k = {
        {tr("Studio"), QStringLiteral("Ctrl+Shift+P, Ctrl+K"),
         tr("Go to any view, action or recent file by name")},
        {tr("Studio"), QStringLiteral("F1, ?"), tr("This sheet")},
        {tr("Studio"), QStringLiteral("Ctrl+O"), tr("Open a session, trace, dump or log")},
        {tr("Studio"), QStringLiteral("Ctrl+I"), tr("Import files into the open session")},
        {tr("Studio"), QStringLiteral("Ctrl+Shift+S"), tr("Save the session as…")},
        {tr("Studio"), QStringLiteral("Ctrl+F"),
         tr("Find: the timeline's search (or the view's filter)")},
        {tr("Studio"), QStringLiteral("Ctrl+Q"), tr("Quit")},
        {tr("Timeline"), QStringLiteral("W / S"), tr("Zoom in / out at the mouse")},
        {tr("Timeline"), QStringLiteral("A / D"), tr("Pan left / right")},
        {tr("Timeline"), tr("Wheel"), tr("Zoom at the mouse")},
        {tr("Timeline"), tr("Shift+Wheel"), tr("Scroll the tracks")},
        {tr("Timeline"), tr("Alt+Wheel"), tr("Pan")},
        {tr("Timeline"), tr("Drag"), tr("Pan the view")},
        {tr("Timeline"), tr("Shift+Drag"), tr("Select an area: its ops are aggregated")},
        {tr("Timeline"), tr("Click"),
         tr("Select a slice (details below); a process header folds it")},
        {tr("Timeline"), tr("Drag the names' edge"), tr("Widen or narrow the track-name column")},
        {tr("Timeline"), QStringLiteral("F"), tr("Frame the selected slice")},
        {tr("Timeline"), QStringLiteral("Z"), tr("Zoom to the area selection")},
        {tr("Timeline"), QStringLiteral("0, Home"), tr("Show everything")},
        {tr("Timeline"), QStringLiteral("Esc"), tr("Clear the selection and the search")},
        {tr("Timeline search"), QStringLiteral("Enter"), tr("Zoom to the next match")},
        {tr("Timeline search"), QStringLiteral("Shift+Enter"), tr("Zoom to the previous match")},
        {tr("Timeline search"), QStringLiteral("Esc"), tr("Clear the search")},
    };
    return k;
}

ShortcutSheet::ShortcutSheet(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("shortcutSheet"));
    setWindowTitle(tr("Keyboard shortcuts"));
    auto* layout = new QVBoxLayout(this);
    auto* table = new QTableWidget(static_cast<int>(keys().size()), 3, this);
    table->setHorizontalHeaderLabels({tr("Where"), tr("Keys"), tr("What it does")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->setAlternatingRowColors(true);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    for (int i = 0; i < static_cast<int>(keys().size()); ++i) {
        const Key& k = keys()[static_cast<size_t>(i)];
        table->setItem(i, 0, new QTableWidgetItem(k.group));
        auto* keysItem = new QTableWidgetItem(k.keys);
        QFont bold = keysItem->font();
        bold.setBold(true);
        keysItem->setFont(bold);
        table->setItem(i, 1, keysItem);
        table->setItem(i, 2, new QTableWidgetItem(k.what));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(table);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(720, 560);
}
