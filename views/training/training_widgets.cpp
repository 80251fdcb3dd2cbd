#include "views/training/training_widgets.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QToolButton>
#include <cmath>

PathEdit::PathEdit(Kind kind, QWidget* parent, QString filter)
    : QWidget(parent), m_kind(kind), m_filter(std::move(filter)), m_edit(new QLineEdit(this)) {
    auto* l = new QHBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->setSpacing(2);
    m_edit->setClearButtonEnabled(true);
    auto* browse = new QToolButton(this);
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(kind == Folder ? tr("Choose a folder") : tr("Choose a file"));
    l->addWidget(m_edit, 1);
    l->addWidget(browse);
    connect(m_edit, &QLineEdit::textChanged, this, [this] { emit pathChanged(path()); });
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString start = path();
        const QString chosen =
            m_kind == Folder
                ? QFileDialog::getExistingDirectory(this, tr("Choose a folder"), start)
                : QFileDialog::getOpenFileName(this, tr("Choose a file"), start, m_filter);
        if (!chosen.isEmpty()) setPath(chosen);
    });
}

QString PathEdit::path() const {
    return m_edit->text().trimmed();
}

void PathEdit::setPath(const QString& path) {
    m_edit->setText(path);
}

void PathEdit::setPlaceholderText(const QString& text) {
    m_edit->setPlaceholderText(text);
}

QSpinBox* spin(QWidget* parent, int lo, int hi) {
    auto* s = new QSpinBox(parent);
    s->setRange(lo, hi);
    s->setFocusPolicy(Qt::StrongFocus);
    s->setGroupSeparatorShown(true);
    return s;
}

QDoubleSpinBox* real(QWidget* parent, double lo, double hi, int decimals) {
    auto* s = new QDoubleSpinBox(parent);
    s->setDecimals(decimals);
    s->setRange(lo, hi);
    s->setSingleStep(std::pow(10.0, -std::min(decimals, 3)));
    s->setFocusPolicy(Qt::StrongFocus);
    return s;
}

void setCurrentData(QComboBox* box, const QString& value) {
    const int i = box->findData(value);
    box->setCurrentIndex(i >= 0 ? i : 0);
}
