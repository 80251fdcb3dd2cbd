#pragma once
// QueryResultModel: the rows a user's SQL query returned, as a read-only table (column names
// as headers; NULL shown as "NULL", blobs by their size). Numbers stay numbers for sorting.
#include <QAbstractTableModel>
#include <QColor>
#include <QStringList>
#include <QVariant>
#include <vector>

struct QueryRows {
    QStringList columns;
    std::vector<std::vector<QVariant>> rows;  // a null QVariant is SQL NULL
};

class QueryResultModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit QueryResultModel(QObject* parent = nullptr);

    void setRows(QueryRows rows);
    const QueryRows& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QueryRows m_rows;
};
