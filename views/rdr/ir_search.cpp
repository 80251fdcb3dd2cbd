#include "views/rdr/ir_search.h"

#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextCursor>

bool findInIrText(QPlainTextEdit* ir, const QString& text) {
    if (text.isEmpty()) return false;
    if (ir->find(text)) return true;
    ir->moveCursor(QTextCursor::Start);
    return ir->find(text);
}

void connectIrSearch(QLineEdit* search, QLabel* status, QPlainTextEdit* ir) {
    QObject::connect(search, &QLineEdit::returnPressed, search, [search, status, ir] {
        const QString t = search->text();
        const bool found = findInIrText(ir, t);
        status->setText(t.isEmpty() ? QString()
                        : found     ? QObject::tr("%1 matches").arg(ir->toPlainText().count(t))
                                    : QObject::tr("not found"));
    });
}
