#pragma once
// Finding text in an RDR graph IR pane, for the studio's RDR view and MindSpore's: the next
// match from the cursor, wrapping to the top once; Enter in the search field steps on.
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QString;

/// Selects the next `text` in `ir` after the cursor, wrapping once. False when empty or absent.
bool findInIrText(QPlainTextEdit* ir, const QString& text);

/// Enter in `search` finds the next match in `ir`; `status` says how many or "not found".
void connectIrSearch(QLineEdit* search, QLabel* status, QPlainTextEdit* ir);
