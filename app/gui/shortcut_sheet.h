#pragma once
// ShortcutSheet: every key of the studio on one page (F1, or ? anywhere but a text box), as
// Perfetto's help sheet: the main window's keys and the timeline's, in groups.
#include <QDialog>
#include <QString>
#include <vector>

class ShortcutSheet : public QDialog {
    Q_OBJECT
public:
    struct Key {
        QString group, keys, what;
    };
    explicit ShortcutSheet(QWidget* parent = nullptr);
    /// Every key listed (what the sheet shows).
    static const std::vector<Key>& keys();
};
