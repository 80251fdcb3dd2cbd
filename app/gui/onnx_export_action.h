#pragma once
// File > Export ONNX…: asks for a trained checkpoint, its model when the checkpoint's train
// state does not name it, and the .onnx file to write, then exports as a JobTracker job
// (core/export/onnx traces the model off the UI thread). The checkpoint dialog opens where
// the session's runs keep their checkpoints and says so; the result is reported in the
// status bar and, for a success, in a dialog with the written file's path (MainWindow).
#include <QObject>
#include <QPointer>
#include <QString>

class QWidget;
class SessionContext;

class OnnxExportAction : public QObject {
    Q_OBJECT
public:
    OnnxExportAction(SessionContext* ctx, QWidget* dialogParent);

    /// The dialogs, then exportCheckpoint(); nothing happens when the user cancels one.
    void ask();
    /// Exports `checkpoint` as model `model` ("" = the one the checkpoint names) to `out`, as
    /// a job; finished() reports the result on the UI thread.
    void exportCheckpoint(const QString& checkpoint, const QString& model, const QString& out);
    /// Where the runs of session `sessionPath` keep their checkpoints (the newest run's
    /// folder), "" when it has none.
    static QString checkpointFolder(const QString& sessionPath);

signals:
    /// `message`: what was written (path, model, opset, nodes, parameters) or why not.
    void finished(bool ok, const QString& message);

private:
    SessionContext* m_ctx;
    QPointer<QWidget> m_parent;
};
