#include "app/gui/onnx_export_action.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>
#include <QWidget>

#include "core/engine/model/models.h"
#include "core/export/onnx/onnx_export.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

OnnxExportAction::OnnxExportAction(SessionContext* ctx, QWidget* dialogParent)
    : QObject(dialogParent), m_ctx(ctx), m_parent(dialogParent) {}

QString OnnxExportAction::checkpointFolder(const QString& sessionPath) {
    if (sessionPath.isEmpty()) return {};
    // Where TrainingJob keeps a run's checkpoints: "<session>-checkpoints/run-<id>".
    const QFileInfo s(sessionPath);
    QDir dir(s.absolutePath() + '/' + s.completeBaseName() + QStringLiteral("-checkpoints"));
    if (!dir.exists()) return {};
    QFileInfoList runs = dir.entryInfoList({QStringLiteral("run-*")}, QDir::Dirs, QDir::Time);
    return runs.isEmpty() ? dir.absolutePath() : runs.front().absoluteFilePath();
}

void OnnxExportAction::ask() {
    const QString folder = checkpointFolder(m_ctx->sessionPath());
    const QString title =
        folder.isEmpty()
            ? tr("Export ONNX: a trained checkpoint (*.ckpt; the Training panel writes them when "
                 "“Save the end state” or checkpoints are on)")
            : tr("Export ONNX: a trained checkpoint (this session's runs keep theirs in %1)")
                  .arg(QFileInfo(folder).absolutePath());
    const QString ckpt = QFileDialog::getOpenFileName(m_parent, title, folder,
                                                      tr("Checkpoints (*.ckpt);;All files (*)"));
    if (ckpt.isEmpty()) return;
    auto named = ts::onnx_export::checkpointModel(ckpt.toStdString());
    if (!named) {
        QMessageBox::warning(m_parent, tr("Export ONNX"), QString::fromStdString(named.error()));
        return;
    }
    QString model = QString::fromStdString(named.value());
    if (model.isEmpty()) {
        QStringList names;
        for (const auto& n : ts::engine::modelNames()) names << QString::fromStdString(n);
        bool ok = false;
        model = QInputDialog::getItem(m_parent, tr("Export ONNX"),
                                      tr("The checkpoint does not say which model it holds:"),
                                      names, 0, false, &ok);
        if (!ok) return;
    }
    const QFileInfo fi(ckpt);
    const QString out = QFileDialog::getSaveFileName(
        m_parent, tr("Export ONNX: write %1 as").arg(model),
        fi.dir().filePath(fi.completeBaseName() + QStringLiteral(".onnx")),
        tr("ONNX models (*.onnx)"));
    if (out.isEmpty()) return;
    exportCheckpoint(ckpt, model, out);
}

void OnnxExportAction::exportCheckpoint(const QString& checkpoint, const QString& model,
                                        const QString& out) {
    using Report = ts::Result<ts::onnx_export::ExportReport>;
    const std::string c = checkpoint.toStdString(), m = model.toStdString(), o = out.toStdString();
    m_ctx->jobs()->run<Report>(
        this, QStringLiteral("export-onnx"),
        tr("Exporting %1 to ONNX").arg(QFileInfo(out).fileName()),
        [c, m, o](ts::JobControl&) { return ts::onnx_export::exportCheckpoint(c, m, o); },
        [this](Report r) {
            if (!r) {
                const QString msg =
                    tr("ONNX export failed: %1").arg(QString::fromStdString(r.error()));
                emit finished(false, msg);
                return;
            }
            const auto& rep = r.value();
            emit finished(
                true, tr("Exported %1 to\n%2\n(ONNX opset %3, %4 nodes, %5 parameters)")
                          .arg(QString::fromStdString(rep.model), QString::fromStdString(rep.path))
                          .arg(rep.opset)
                          .arg(rep.nodes)
                          .arg(rep.parameters));
        });
}
