#pragma once
// CheckpointView: the parameters of a checkpoint file (*.ckpt): a sortable, filterable
// table of names, shapes, dtypes and counts, with the totals (all and trainable) and any
// warnings above it. The file is read on a job; bad files show the error, never crash.
#include <QWidget>

#include "views/common/view_registry.h"

class CheckpointTableModel;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class SessionContext;

class CheckpointView : public QWidget, public FileViewer {
    Q_OBJECT
public:
    explicit CheckpointView(SessionContext* ctx, QWidget* parent = nullptr);

    void openFile(const QString& path) override;

    CheckpointTableModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    /// Totals line, or the error of the last open.
    QString summary() const;
    QString path() const { return m_path; }

signals:
    /// A file was read (ok) or failed (the summary holds the error).
    void loaded(bool ok);

private:
    SessionContext* m_ctx;
    CheckpointTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLineEdit* m_filter;
    QLabel* m_summary;
    QString m_path;
};
