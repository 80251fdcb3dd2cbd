#pragma once
// ParallelCoordinates: one vertical axis per column (numeric: min to max; text: its
// distinct values evenly spaced), one polyline per row across them, coloured by the last
// column (a metric: low blue to high red), as TensorBoard's HParams and MindInsight's
// lineage comparison draw them. Clicking near a line selects its row.
#include <QWidget>
#include <optional>
#include <vector>

class ParallelCoordinates : public QWidget {
    Q_OBJECT
public:
    struct Cell {
        std::optional<double> number;
        QString text;  // used when number is empty ("" = missing)
    };
    explicit ParallelCoordinates(QWidget* parent = nullptr);
    /// `columns` names the axes; rows[r][c] is row r's value on axis c. `labels` name rows.
    void setData(QStringList columns, std::vector<std::vector<Cell>> rows, QStringList labels);
    void setSelectedRow(int row);
    int selectedRow() const { return m_selected; }
    int axisCount() const { return static_cast<int>(m_columns.size()); }
    /// Where row `row` crosses axis `axis` (widget coordinates); for tests.
    QPointF pointOf(int row, int axis) const;

signals:
    void rowClicked(int row);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent* e) override;
    QSize sizeHint() const override { return {640, 300}; }

private:
    struct Axis {
        bool numeric = true;
        double lo = 0, hi = 1;
        QStringList categories;
    };
    double position(int axis, const Cell& c) const;  // 0 (bottom) .. 1 (top), NaN missing
    QRectF plotRect() const;
    QStringList m_columns, m_labels;
    std::vector<std::vector<Cell>> m_rows;
    std::vector<Axis> m_axes;
    int m_selected = -1;
};
