#pragma once
// BytesItem: a table cell that shows a byte count ("4 MiB", units_text.h) and sorts by its value.
#include <QTableWidgetItem>

#include "views/common/units_text.h"

class BytesItem : public QTableWidgetItem {
public:
    explicit BytesItem(qint64 bytes) : QTableWidgetItem(text(bytes)) {
        setData(Qt::UserRole, bytes);
        setToolTip(QString::number(bytes) + QStringLiteral(" bytes"));
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& o) const override {
        return data(Qt::UserRole).toLongLong() < o.data(Qt::UserRole).toLongLong();
    }
    static QString text(qint64 bytes) { return bytesText(static_cast<double>(bytes)); }
};
