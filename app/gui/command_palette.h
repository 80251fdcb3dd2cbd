#pragma once
// CommandPalette: Ctrl+Shift+P / Ctrl+K (VS Code's and Perfetto's key): one box that finds
// any view, menu action or recent file by name — every word typed must appear in the entry
// (case ignored), entries whose words start with what was typed first. Enter runs the
// selected entry, Esc closes. The main window fills it each time it opens.
#include <QDialog>
#include <functional>
#include <vector>

class QLineEdit;
class QListWidget;

class CommandPalette : public QDialog {
    Q_OBJECT
public:
    struct Entry {
        QString kind;      // "View", "Action", "Recent file"
        QString text;      // what is matched and shown
        QString shortcut;  // shown at the right, may be ""
        std::function<void()> run;
    };

    explicit CommandPalette(QWidget* parent = nullptr);
    void setEntries(std::vector<Entry> entries);
    /// Filters by `query` (what typing does).
    void setQuery(const QString& query);
    /// Texts of the entries shown, best first (tests).
    QStringList shownTexts() const;
    /// Runs the selected entry and closes; false when none is shown.
    bool runSelected();
    QLineEdit* queryBox() const { return m_query; }

    /// How well `text` matches `query`: < 0 no match, higher is better.
    static int score(const QString& query, const QString& text);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refill();

    QLineEdit* m_query;
    QListWidget* m_list;
    std::vector<Entry> m_entries;
};
