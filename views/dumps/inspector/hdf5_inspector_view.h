#pragma once
// Hdf5InspectorView (view "hdf5"): opens any HDF5 file — ours, h5py's, anyone's — as a lazily
// listed tree of groups and datasets beside a DatasetPanel for the selected object. Opening
// happens on a worker; a file that is not HDF5, truncated or damaged gives a message in the
// view, never a crash. `trainscope FILE.h5` lands here (ViewInfo::accepts). On open the
// first dataset reached by descending the first links is selected; the environment
// variable TRAINSCOPE_H5_PATH names another one to select instead (for scripts).
#include <QWidget>
#include <memory>

#include "core/hdf5/h5_file.h"
#include "views/common/view_registry.h"

class DatasetPanel;
class H5TreeModel;
class QComboBox;
class QLabel;
class QLineEdit;
class QTreeView;
class SessionContext;

class Hdf5InspectorView : public QWidget, public FileViewer {
    Q_OBJECT
public:
    explicit Hdf5InspectorView(SessionContext* ctx, QWidget* parent = nullptr);
    void openFile(const QString& path) override;
    /// Opens `path` and selects `dataset` in it.
    void openAt(const QString& path, const QString& dataset);
    /// Expands the tree down to `path` (listing groups as needed) and selects it.
    void selectPath(const QString& path);

    QString currentFile() const { return m_current; }
    QString lastError() const { return m_error; }
    H5TreeModel* model() const { return m_model; }
    QTreeView* tree() const { return m_tree; }
    DatasetPanel* panel() const { return m_panel; }

signals:
    void fileOpened(const QString& path);
    void openFailed(const QString& message);

private:
    void continueSelect();
    void takeRequest();
    void onCurrentChanged();

    SessionContext* m_ctx;
    QComboBox* m_files;
    QLineEdit* m_goto;
    QLabel* m_status;
    QTreeView* m_tree;
    H5TreeModel* m_model;
    DatasetPanel* m_panel;
    QString m_current;
    QString m_error;
    QString m_target;  // path being selected once its groups are listed
    bool m_autoSelect = false;
    QString m_selectAfterOpen;  // openAt()'s dataset
    quint64 m_generation = 0;
};
