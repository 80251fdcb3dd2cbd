#include "app/gui/command_palette.h"

#include <QKeyEvent>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>
#include <algorithm>

CommandPalette::CommandPalette(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("commandPalette"));
    setWindowTitle(tr("Go to a view, action or recent file"));
    setModal(true);
    auto* layout = new QVBoxLayout(this);
    m_query = new QLineEdit(this);
    m_query->setPlaceholderText(tr("Type a view, an action or a file name (Enter runs it)"));
    m_list = new QListWidget(this);
    m_list->setUniformItemSizes(true);
    layout->addWidget(m_query);
    layout->addWidget(m_list, 1);
    resize(560, 380);
    m_query->installEventFilter(this);
    connect(m_query, &QLineEdit::textChanged, this, &CommandPalette::refill);
    connect(m_list, &QListWidget::itemActivated, this, [this] { runSelected(); });
}

void CommandPalette::setEntries(std::vector<Entry> entries) {
    m_entries = std::move(entries);
    m_query->clear();
    refill();
}

void CommandPalette::setQuery(const QString& query) {
    m_query->setText(query);
    refill();
}

int CommandPalette::score(const QString& query, const QString& text) {
    const QStringList words = query.simplified().split(' ', Qt::SkipEmptyParts);
    if (words.isEmpty()) return 0;
    const QString hay = QString(text).remove('&');
    int total = 0;
    for (const QString& w : words) {
        const int at = hay.indexOf(w, 0, Qt::CaseInsensitive);
        if (at < 0) return -1;
        const bool wordStart = at == 0 || !hay.at(at - 1).isLetterOrNumber();
        total += wordStart ? 10 : 3;
        if (at == 0) total += 5;
    }
    return total;
}

void CommandPalette::refill() {
    m_list->clear();
    const QString q = m_query->text();
    std::vector<std::pair<int, size_t>> order;
    for (size_t i = 0; i < m_entries.size(); ++i) {
        const int s = score(q, m_entries[i].text);
        if (s >= 0) order.emplace_back(s, i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [s, i] : order) {
        const Entry& e = m_entries[i];
        QString line = e.kind + QStringLiteral(": ") + QString(e.text).remove('&');
        if (!e.shortcut.isEmpty()) line += QStringLiteral("    (") + e.shortcut + ')';
        auto* item = new QListWidgetItem(line, m_list);
        item->setData(Qt::UserRole, static_cast<qulonglong>(i));
    }
    if (m_list->count() > 0) m_list->setCurrentRow(0);
}

QStringList CommandPalette::shownTexts() const {
    QStringList out;
    for (int i = 0; i < m_list->count(); ++i) {
        const auto idx = m_list->item(i)->data(Qt::UserRole).toULongLong();
        out << QString(m_entries[idx].text).remove('&');
    }
    return out;
}

bool CommandPalette::runSelected() {
    QListWidgetItem* item = m_list->currentItem();
    if (!item) return false;
    const auto idx = item->data(Qt::UserRole).toULongLong();
    const std::function<void()> run = m_entries[idx].run;
    accept();
    if (run) run();
    return true;
}

bool CommandPalette::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_query && event->type() == QEvent::KeyPress) {
        auto* k = static_cast<QKeyEvent*>(event);
        const int row = m_list->currentRow();
        if (k->key() == Qt::Key_Down) {
            m_list->setCurrentRow(std::min(row + 1, m_list->count() - 1));
            return true;
        }
        if (k->key() == Qt::Key_Up) {
            m_list->setCurrentRow(std::max(row - 1, 0));
            return true;
        }
        if (k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) {
            runSelected();
            return true;
        }
    }
    return QDialog::eventFilter(watched, event);
}
