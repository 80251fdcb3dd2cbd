#include "views/dumps/common/h5_file_registry.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPointer>
#include <utility>

H5FileRegistry* H5FileRegistry::instance() {
    static QPointer<H5FileRegistry> r;
    if (!r) r = new H5FileRegistry(QCoreApplication::instance());
    return r;
}

void H5FileRegistry::add(const QString& path) {
    const QString abs = QFileInfo(path).absoluteFilePath();
    m_files.removeAll(abs);
    m_files.append(abs);
    emit filesChanged();
}

void H5FileRegistry::requestInspect(const QString& file, const QString& dataset) {
    m_inspect = {QFileInfo(file).absoluteFilePath(), dataset};
    emit inspectRequested();
}

QPair<QString, QString> H5FileRegistry::takeInspectRequest() {
    return std::exchange(m_inspect, {});
}
