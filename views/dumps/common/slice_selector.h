#pragma once
// SliceSelector: picks the 2-D slice of an N-D dataset to show (see SliceSpec): a combo for
// the dimension along the rows, one for the columns, and an index spin box for each other
// dimension. Hidden for scalars and 1-D datasets, which need no choice.
#include <QWidget>
#include <vector>

#include "views/dumps/common/slice_spec.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QSpinBox;

class SliceSelector : public QWidget {
    Q_OBJECT
public:
    explicit SliceSelector(QWidget* parent = nullptr);
    void setShape(const std::vector<uint64_t>& shape);
    const SliceSpec& spec() const { return m_spec; }
    void setSpec(const SliceSpec& spec);

signals:
    void sliceChanged(const SliceSpec& spec);

private:
    void rebuild();
    void readControls();

    SliceSpec m_spec;
    QHBoxLayout* m_layout;
    QComboBox* m_rows;
    QComboBox* m_cols;
    QLabel* m_text;
    std::vector<QSpinBox*> m_index;
    bool m_updating = false;
};
