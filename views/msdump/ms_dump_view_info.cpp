#include "views/msdump/ms_dump_view_info.h"

#include <QFileInfo>

#include "core/debug/msdump/ms_dump.h"
#include "views/msdump/ms_dump_view.h"

ViewInfo msDumpViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("msdump");
    v.title = QObject::tr("MindSpore dump");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new MsDumpView(ctx, parent);
    };
    v.accepts = [](const QString& path) {
        const QFileInfo fi(path);
        if (!fi.isDir() && fi.suffix() != QLatin1String("npy") &&
            fi.fileName() != QLatin1String("statistic.csv"))
            return false;
        return ts::debug::msdump::looksLikeDump(path.toStdString());
    };
    return v;
}
