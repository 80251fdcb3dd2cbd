#include "views/memory/snapshot_view_info.h"

#include <QFileInfo>

#include "views/memory/snapshot_view.h"

bool looksLikeMemorySnapshot(const QString& path) {
    const QFileInfo fi(path);
    if (!fi.isFile()) return false;
    const QString name = fi.fileName().toLower();
    return name.endsWith(QLatin1String(".pickle")) || name.endsWith(QLatin1String(".pkl")) ||
           name.endsWith(QLatin1String(".pickle.gz")) || name.endsWith(QLatin1String(".pkl.gz"));
}

ViewInfo memorySnapshotViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("memory-snapshot");
    v.title = QObject::tr("Memory snapshot");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new SnapshotView(ctx, parent);
    };
    v.accepts = &looksLikeMemorySnapshot;
    v.openByDefault = false;
    return v;
}
