#pragma once
// Small editors the Training panel's sections share: a path field with a Browse button and
// spin-box helpers.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QWidget>

class QLineEdit;

/// A line edit for a file or folder path with a "…" button that opens the matching dialog.
class PathEdit : public QWidget {
    Q_OBJECT
public:
    enum Kind { OpenFile, Folder };
    PathEdit(Kind kind, QWidget* parent = nullptr, QString filter = {});
    /// The trimmed text ("" when empty).
    QString path() const;
    void setPath(const QString& path);
    void setPlaceholderText(const QString& text);
    QLineEdit* lineEdit() const { return m_edit; }

signals:
    void pathChanged(const QString& path);

private:
    Kind m_kind;
    QString m_filter;
    QLineEdit* m_edit;
};

/// An integer spin box over [lo, hi] with thousands separators.
QSpinBox* spin(QWidget* parent, int lo, int hi);
/// A double spin box over [lo, hi] with `decimals` decimals.
QDoubleSpinBox* real(QWidget* parent, double lo, double hi, int decimals);
/// Selects the item whose data is `value` (the first item when none is).
void setCurrentData(QComboBox* box, const QString& value);
