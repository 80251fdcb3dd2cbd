#pragma once
// The list of views the main window can show as tabs. Each view folder provides one
// ViewInfo (e.g. timelineViewInfo()) and app/gui/view_list.cpp collects them.
#include <QString>
#include <QWidget>
#include <functional>

class SessionContext;

struct ViewInfo {
    QString name;   // stable id used by --view NAME, e.g. "timeline"
    QString title;  // tab title, e.g. "Timeline"
    std::function<QWidget*(SessionContext* ctx, QWidget* parent)> create;
    /// Optional: true when this view opens `path` itself (an HDF5 file, an RDR folder, a
    /// log file) instead of it being imported into the session.
    std::function<bool(const QString& path)> accepts;
    /// Whether the main window opens this tab when a session is loaded.
    bool openByDefault = false;
};

/// Implemented by views that open files themselves (see ViewInfo::accepts).
class FileViewer {
public:
    virtual ~FileViewer() = default;
    virtual void openFile(const QString& path) = 0;
};
