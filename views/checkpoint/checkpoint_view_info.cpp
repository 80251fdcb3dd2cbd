#include "views/checkpoint/checkpoint_view_info.h"

#include <QFileInfo>

#include "views/checkpoint/checkpoint_view.h"

ViewInfo checkpointViewInfo() {
    ViewInfo info;
    info.name = QStringLiteral("checkpoint");
    info.title = QObject::tr("Checkpoint");
    info.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new CheckpointView(ctx, parent);
    };
    info.accepts = [](const QString& path) {
        const QFileInfo fi(path);
        return fi.isFile() && fi.suffix().compare(QLatin1String("ckpt"), Qt::CaseInsensitive) == 0;
    };
    info.openByDefault = false;
    return info;
}
