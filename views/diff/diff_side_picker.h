#pragma once
// DiffSidePicker: the bar that picks A and B of a run diff — each a profile (a run's or an
// imported trace's source) of any session the view knows (the open one, sessions opened
// before it, files added with "Add session…"), and optionally one of its steps. The profiles
// are listed on a job. By default B is the newest profile of the open session and A the one
// before it (or the newest of the session opened before, when the open one has one profile).
#include <QStringList>
#include <QWidget>
#include <optional>
#include <utility>
#include <vector>

#include "core/analysis/diff/run_diff.h"

class QComboBox;
class QPushButton;
class SessionContext;

class DiffSidePicker : public QWidget {
    Q_OBJECT
public:
    struct Entry {
        QString path;
        qint64 sourceId = 0;
        QString label;  // "s.tscope · source 2: run 1 profile (mlp) · 20 steps"
        std::vector<int64_t> steps;
    };

    explicit DiffSidePicker(SessionContext* ctx, QWidget* parent = nullptr);

    /// Adds a session file to the ones listed (and lists again).
    void addSession(const QString& path);
    QStringList sessions() const { return m_sessions; }
    const std::vector<Entry>& entries() const { return m_entries; }
    /// The chosen sides, nullopt while nothing is listed.
    std::optional<std::pair<ts::analysis::DiffSideSpec, ts::analysis::DiffSideSpec>> selection()
        const;
    /// Picks entries (indexes into entries()) and steps (-1: the steady steps).
    void select(int a, int b, int64_t stepA = -1, int64_t stepB = -1);
    QComboBox* comboA() const { return m_a; }
    QComboBox* comboB() const { return m_b; }

signals:
    /// The user (or select()) changed A, B or a step.
    void selectionChanged();
    /// Listing the profiles failed or found fewer than one.
    void problem(const QString& message);

private:
    void reload();
    void fill(std::vector<Entry> entries, const QStringList& errors);
    void fillSteps(QComboBox* steps, int entry, int64_t step);

    SessionContext* m_ctx;
    QStringList m_sessions;  // oldest first; the open session last
    std::vector<Entry> m_entries;
    QComboBox* m_a;
    QComboBox* m_stepA;
    QComboBox* m_b;
    QComboBox* m_stepB;
    QPushButton* m_add;
    bool m_filling = false;
    bool m_chosen = false;  // the user picked sides: keep them across reloads
};
