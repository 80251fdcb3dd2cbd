#include "views/logs/logs_view_info.h"

#include <QFileInfo>

#include "views/logs/log_view.h"

ViewInfo logsViewInfo() {
    ViewInfo info;
    info.name = QStringLiteral("logs");
    info.title = QObject::tr("Logs");
    info.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new LogView(ctx, parent);
    };
    info.accepts = [](const QString& path) {
        const QFileInfo fi(path);
        if (!fi.isFile()) return false;
        const QString name = fi.fileName().toLower();
        return name.endsWith(QLatin1String(".log")) || name.endsWith(QLatin1String(".txt")) ||
               name.contains(QLatin1String(".log.")) || name.startsWith(QLatin1String("plog"));
    };
    info.openByDefault = false;
    return info;
}
