#pragma once
// EmptyState: what a view shows when it has nothing to show (issue 26, item 13): in the
// user's words what would fill it, and buttons that do it ("Open a PyTorch trace…",
// "Launch a script with the profiler on"), each asking the main window through
// SessionContext::requestAction. Views put it in a QStackedWidget page of their own.
#include <QString>
#include <QWidget>
#include <utility>
#include <vector>

class QLabel;
class QHBoxLayout;
class QStackedWidget;
class SessionContext;

class EmptyState : public QWidget {
    Q_OBJECT
public:
    /// A button: its text and the action it requests ("open", "demo", "launch-profiled", ...).
    using Button = std::pair<QString, QString>;
    EmptyState(SessionContext* ctx, QWidget* parent = nullptr);

    /// Shows `title` (one line), `text` (what would fill the view) and `buttons`.
    void setContent(const QString& title, const QString& text, const std::vector<Button>& buttons);
    QString title() const;
    QString text() const;
    /// The buttons' texts, for tests.
    QStringList buttonTexts() const;
    /// Clicks the button whose text is `text` (tests); false when there is none.
    bool click(const QString& text);

    /// The usual buttons of a view that needs a profile or a trace.
    static std::vector<Button> profileButtons();

private:
    SessionContext* m_ctx;
    QLabel* m_title;
    QLabel* m_text;
    QHBoxLayout* m_buttons;
};

/// A view's two pages: an EmptyState and the widget that holds its content. `view` gets a
/// layout holding the stack; the caller lays its content out in `content`.
struct EmptyStatePages {
    QStackedWidget* stack = nullptr;
    EmptyState* empty = nullptr;
    QWidget* content = nullptr;
    /// Shows the empty state (true) or the content (false).
    void showEmpty(bool empty) const;
};
EmptyStatePages addEmptyStatePages(SessionContext* ctx, QWidget* view);

/// Whether `error` is core's "no profile in this session" (a profile view has nothing to show).
bool isNoProfileError(const QString& error);
/// Shows what a profile view (Steps, Memory, Advice) would show with a profile, and the
/// buttons that make one; `what` names the view's content ("step times").
void showNoProfile(EmptyState* empty, const QString& what);
