#pragma once
// FolderReportDialog: what File > Open Folder did with every file of the folder — a table
// of path, kind, fate (imported, partial, failed, skipped, included) and the reason, the
// counts by fate above it, filterable by fate. Skipped and failed files are never hidden.
#include <QDialog>

#include "importers/batch_import.h"

class QComboBox;
class QLabel;
class QTableWidget;

class FolderReportDialog : public QDialog {
    Q_OBJECT
public:
    explicit FolderReportDialog(const ts::importers::BatchImport& result,
                                QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }
    QLabel* counts() const { return m_counts; }
    /// Shows only files of this fate ("" all).
    void setFateFilter(const QString& fate);

private:
    ts::importers::BatchImport m_result;
    QLabel* m_counts;
    QComboBox* m_filter;
    QTableWidget* m_table;
};
