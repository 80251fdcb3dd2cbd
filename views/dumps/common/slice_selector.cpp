#include "views/dumps/common/slice_selector.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>

SliceSelector::SliceSelector(QWidget* parent)
    : QWidget(parent),
      m_layout(new QHBoxLayout(this)),
      m_rows(new QComboBox(this)),
      m_cols(new QComboBox(this)),
      m_text(new QLabel(this)) {
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->addWidget(new QLabel(tr("Slice"), this));
    m_layout->addWidget(m_text);
    m_layout->addWidget(new QLabel(tr("rows:"), this));
    m_layout->addWidget(m_rows);
    m_layout->addWidget(new QLabel(tr("columns:"), this));
    m_layout->addWidget(m_cols);
    m_layout->addStretch();
    connect(m_rows, &QComboBox::currentIndexChanged, this, [this] { readControls(); });
    connect(m_cols, &QComboBox::currentIndexChanged, this, [this] { readControls(); });
    setVisible(false);
}

void SliceSelector::setShape(const std::vector<uint64_t>& shape) {
    m_spec = SliceSpec::defaultFor(shape);
    rebuild();
}

void SliceSelector::setSpec(const SliceSpec& spec) {
    m_spec = spec;
    m_spec.normalize();
    rebuild();
    emit sliceChanged(m_spec);
}

void SliceSelector::rebuild() {
    m_updating = true;
    for (QSpinBox* s : m_index) delete s;
    m_index.clear();
    m_rows->clear();
    m_cols->clear();
    const size_t rank = m_spec.shape.size();
    for (size_t k = 0; k < rank; ++k) {
        const QString label = QStringLiteral("dim %1 (%2)").arg(k).arg(m_spec.shape[k]);
        m_rows->addItem(label);
        m_cols->addItem(label);
    }
    m_rows->setCurrentIndex(m_spec.rowDim);
    m_cols->setCurrentIndex(m_spec.colDim);
    for (size_t k = 0; k < rank; ++k) {
        auto* sb = new QSpinBox(this);
        sb->setPrefix(QStringLiteral("[%1] ").arg(k));
        sb->setRange(0, static_cast<int>(std::min<uint64_t>(
                            m_spec.shape[k] > 0 ? m_spec.shape[k] - 1 : 0, INT32_MAX)));
        sb->setValue(static_cast<int>(m_spec.fixed[k]));
        const int d = static_cast<int>(k);
        sb->setVisible(d != m_spec.rowDim && d != m_spec.colDim);
        sb->setToolTip(tr("Index along dimension %1").arg(k));
        connect(sb, &QSpinBox::valueChanged, this, [this] { readControls(); });
        m_layout->insertWidget(m_layout->count() - 1, sb);
        m_index.push_back(sb);
    }
    m_text->setText(m_spec.describe());
    setVisible(rank >= 2);
    m_updating = false;
}

void SliceSelector::readControls() {
    if (m_updating) return;
    SliceSpec s = m_spec;
    s.rowDim = m_rows->currentIndex();
    s.colDim = m_cols->currentIndex();
    if (s.rowDim == s.colDim) {  // swap instead of allowing the same dimension twice
        s.colDim = m_spec.rowDim == s.rowDim ? m_spec.colDim : m_spec.rowDim;
        if (s.colDim == s.rowDim) s.colDim = -1;
    }
    for (size_t k = 0; k < m_index.size(); ++k)
        s.fixed[k] = static_cast<uint64_t>(m_index[k]->value());
    const bool dimsChanged = s.rowDim != m_spec.rowDim || s.colDim != m_spec.colDim;
    m_spec = s;
    m_spec.normalize();
    if (dimsChanged)
        rebuild();
    else
        m_text->setText(m_spec.describe());
    emit sliceChanged(m_spec);
}
