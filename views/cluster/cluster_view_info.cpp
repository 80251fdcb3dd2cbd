#include "views/cluster/cluster_view_info.h"

#include <QFileInfo>

#include "core/analysis/cluster/cluster_input.h"
#include "views/cluster/cluster_view.h"

ViewInfo clusterViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("cluster");
    v.title = QObject::tr("Cluster");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new ClusterView(ctx, parent);
    };
    v.accepts = [](const QString& path) {
        return QFileInfo(path).isDir() &&
               !ts::analysis::rankSessionFiles(path.toStdString()).empty();
    };
    v.openByDefault = false;
    return v;
}
