#pragma once
// BytesItem: a table cell that shows a byte count ("4.00 MiB") and sorts by its value.
#include <QLocale>
#include <QTableWidgetItem>
#include <cstdlib>

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
    static QString text(qint64 bytes) {
        return QLocale()
            .formattedDataSize(std::llabs(bytes), 2, QLocale::DataSizeTraditionalFormat)
            .prepend(bytes < 0 ? QStringLiteral("-") : QString());
    }
};
