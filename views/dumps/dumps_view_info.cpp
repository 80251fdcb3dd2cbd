#include "views/dumps/dumps_view_info.h"

#include <QFile>
#include <QFileInfo>

#include "views/dumps/compare/compare_view.h"
#include "views/dumps/inspector/hdf5_inspector_view.h"
#include "views/dumps/overflow/overflow_view.h"

bool looksLikeHdf5(const QString& path) {
    const QFileInfo fi(path);
    if (!fi.isFile()) return false;
    const QString ext = fi.suffix().toLower();
    if (ext == QLatin1String("h5") || ext == QLatin1String("hdf5") || ext == QLatin1String("he5"))
        return true;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return false;
    static const QByteArray sig("\x89HDF\r\n\x1a\n", 8);
    for (qint64 off = 0; off < 8 * 1024 && off < f.size(); off = off ? off * 2 : 512) {
        if (!f.seek(off)) break;
        if (f.read(8) == sig) return true;
    }
    return false;
}

ViewInfo hdf5InspectorViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("hdf5");
    v.title = QObject::tr("HDF5");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new Hdf5InspectorView(ctx, parent);
    };
    v.accepts = &looksLikeHdf5;
    return v;
}

ViewInfo overflowViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("overflow");
    v.title = QObject::tr("Overflow");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new OverflowView(ctx, parent);
    };
    return v;
}

ViewInfo compareViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("compare");
    v.title = QObject::tr("Compare dumps");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new CompareView(ctx, parent);
    };
    return v;
}
