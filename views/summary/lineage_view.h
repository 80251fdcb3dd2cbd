#pragma once
// LineageView (view "lineage"): hyper-parameters and final metrics of every run of the
// session (MindSpore lineage files, TensorBoard HParams, optionally the last value of each
// scalar tag) in one table — sortable by any column, filtered by a regular expression over
// the run and its values — and as parallel coordinates over the shown runs, coloured by a
// metric. Selecting a run in either selects it in the other.
#include <QWidget>

#include "core/summary/lineage_table.h"

class ParallelCoordinates;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;
class SessionContext;

class LineageView : public QWidget {
    Q_OBJECT
public:
    explicit LineageView(SessionContext* ctx, QWidget* parent = nullptr);
    QTableView* table() const { return m_table; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    ParallelCoordinates* coordinates() const { return m_coords; }
    QLineEdit* filter() const { return m_filter; }
    QCheckBox* lastScalars() const { return m_last; }
    QComboBox* colourBy() const { return m_colour; }
    const ts::summary::LineageTable& data() const { return m_data; }

signals:
    void loaded();

private:
    void reload();
    void fill();
    void updateCoordinates();

    SessionContext* m_ctx;
    QLineEdit* m_filter;
    QCheckBox* m_last;
    QComboBox* m_colour;
    QLabel* m_status;
    QTableView* m_table;
    QStandardItemModel* m_model;
    QSortFilterProxyModel* m_proxy;
    ParallelCoordinates* m_coords;
    ts::summary::LineageTable m_data;
};
