#include "app/gui/screenshot.h"

#include <QComboBox>
#include <QDialog>
#include <QPainter>
#include <QPixmap>
#include <QTabWidget>
#include <QTimer>

#include "app/gui/main_window.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

namespace {
constexpr int kPollMs = 100;
constexpr int kIdlePollsNeeded = 5;  // idle for half a second: follow-up jobs have started
}  // namespace

ScreenshotTaker::ScreenshotTaker(MainWindow* window, QString outPath, QString viewName,
                                 QObject* parent)
    : QObject(parent), m_window(window), m_out(std::move(outPath)), m_view(std::move(viewName)) {}

void ScreenshotTaker::start(int timeoutMs) {
    m_timeoutMs = timeoutMs;
    QTimer::singleShot(kPollMs, this, &ScreenshotTaker::poll);
}

void ScreenshotTaker::poll() {
    m_elapsedMs += kPollMs;
    if (!m_view.isEmpty() && m_window->showView(m_view) == nullptr) {
        emit done(false, QStringLiteral("unknown view '%1'").arg(m_view));
        return;
    }
    const bool idle = m_window->context()->jobs()->idle();
    m_idlePolls = idle ? m_idlePolls + 1 : 0;
    if (m_idlePolls >= kIdlePollsNeeded && !m_tab.isEmpty() && !m_tabShown) {
        showTab();  // then wait for idle again: the page lays itself out and may load
        m_tabShown = true;
        m_idlePolls = 0;
    }
    const bool delayed = m_minDelayMs > 0;
    if ((delayed && m_elapsedMs >= m_minDelayMs) || (!delayed && m_idlePolls >= kIdlePollsNeeded) ||
        m_elapsedMs >= m_timeoutMs) {
        QString message;
        const bool ok = save(&message);
        if (ok && m_elapsedMs >= m_timeoutMs && !idle)
            message += QStringLiteral(" (saved after a %1 s timeout with jobs still running)")
                           .arg(m_timeoutMs / 1000);
        emit done(ok, message);
        return;
    }
    QTimer::singleShot(kPollMs, this, &ScreenshotTaker::poll);
}

void ScreenshotTaker::showTab() {
    QWidget* target = m_view.isEmpty() ? m_window : m_window->showView(m_view);
    const QString want = QString(m_tab).remove(QLatin1Char('&'));
    for (QTabWidget* tabs : target->findChildren<QTabWidget*>()) {
        if (tabs == m_window->tabs()) continue;
        for (int i = 0; i < tabs->count(); ++i) {
            if (tabs->tabText(i).remove(QLatin1Char('&')).compare(want, Qt::CaseInsensitive) == 0) {
                tabs->setCurrentIndex(i);
                return;
            }
        }
    }
    // Else a mode box's entry (the op statistics' "Stack samples").
    for (QComboBox* box : target->findChildren<QComboBox*>()) {
        const int i = box->findText(want, Qt::MatchFixedString);
        if (i >= 0) {
            box->setCurrentIndex(i);
            return;
        }
    }
}

bool ScreenshotTaker::save(QString* message) {
    QWidget* target = m_window;
    if (!m_view.isEmpty()) target = m_window->showView(m_view);
    QPixmap pix = target->grab();
    if (target == m_window) {
        // Dialogs open over the window (the command palette, the shortcut sheet, Manage
        // Sessions) are drawn where they stand, as the user sees them.
        QPainter p(&pix);
        for (QDialog* d : m_window->findChildren<QDialog*>()) {
            if (!d->isVisible() || !d->isWindow()) continue;
            const QPoint at = d->frameGeometry().topLeft() - m_window->frameGeometry().topLeft();
            p.drawPixmap(at, d->grab());
        }
    }
    if (pix.isNull() || !pix.save(m_out, "PNG")) {
        *message = QStringLiteral("cannot write %1").arg(m_out);
        return false;
    }
    *message = QStringLiteral("saved %1 (%2x%3)").arg(m_out).arg(pix.width()).arg(pix.height());
    return true;
}
