#include "views/training/dump_settings_widget.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/common/json.h"
#include "core/debug/dump_config.h"

namespace {
QWidget* withBrowse(QWidget* parent, QLineEdit* edit, bool directory) {
    auto* w = new QWidget(parent);
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    auto* b = new QPushButton(QObject::tr("…"), w);
    b->setMaximumWidth(32);
    l->addWidget(edit, 1);
    l->addWidget(b);
    QObject::connect(b, &QPushButton::clicked, w, [w, edit, directory] {
        const QString p =
            directory
                ? QFileDialog::getExistingDirectory(w, QObject::tr("Dump folder"), edit->text())
                : QFileDialog::getOpenFileName(w, QObject::tr("Dump to load"), edit->text(),
                                               QObject::tr("HDF5 (*.h5 *.hdf5)"));
        if (!p.isEmpty()) edit->setText(p);
    });
    return w;
}
}  // namespace

DumpSettingsWidget::DumpSettingsWidget(QWidget* parent)
    : QWidget(parent),
      m_dump(new QGroupBox(tr("Dump op tensors to HDF5"), this)),
      m_path(new QLineEdit(QStringLiteral("./dump"), this)),
      m_mode(new QComboBox(this)),
      m_list(new QLineEdit(this)),
      m_filter(new QLineEdit(this)),
      m_steps(new QLineEdit(QStringLiteral("1"), this)),
      m_filePer(new QComboBox(this)),
      m_load(new QLineEdit(this)),
      m_overflow(new QCheckBox(tr("Check every op for NaN/Inf (overflow check)"), this)),
      m_stop(new QCheckBox(tr("Stop the run at the first NaN/Inf"), this)) {
    m_dump->setCheckable(true);
    m_dump->setChecked(false);
    m_mode->addItems({QStringLiteral("all"), QStringLiteral("input"), QStringLiteral("output")});
    m_filePer->addItem(tr("one file per step"), QStringLiteral("step"));
    m_filePer->addItem(tr("one file per run"), QStringLiteral("run"));
    m_list->setPlaceholderText(tr("op types or names, comma separated (empty: every op)"));
    m_filter->setPlaceholderText(tr("regular expression on the op's scope name"));
    m_steps->setPlaceholderText(tr("e.g. 1 or 1-3,7 (empty: every step)"));
    m_load->setPlaceholderText(tr("optional: feed ops the inputs recorded in this dump"));
    auto* form = new QFormLayout(m_dump);
    form->addRow(tr("dump_path"), withBrowse(m_dump, m_path, true));
    form->addRow(tr("dump_mode"), m_mode);
    form->addRow(tr("dump_list"), m_list);
    form->addRow(tr("op filter"), m_filter);
    form->addRow(tr("steps"), m_steps);
    form->addRow(tr("files"), m_filePer);
    form->addRow(tr("load_file_path"), withBrowse(m_dump, m_load, false));
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(m_dump);
    lay->addWidget(m_overflow);
    lay->addWidget(m_stop);
    m_stop->setEnabled(false);
    connect(m_overflow, &QCheckBox::toggled, m_stop, &QCheckBox::setEnabled);
}

std::string DumpSettingsWidget::dumpJson() const {
    if (!m_dump->isChecked()) return {};
    rapidjson::StringBuffer buf;
    ts::json::Writer w(buf);
    auto str = [&w](const char* k, const QString& v) {
        const QByteArray u = v.toUtf8();
        ts::json::kv(w, k, std::string_view(u.constData(), static_cast<size_t>(u.size())));
    };
    w.StartObject();
    str("dump_path", m_path->text().trimmed());
    str("dump_mode", m_mode->currentText());
    w.Key("dump_list");
    w.StartArray();
    for (const QString& s : m_list->text().split(',', Qt::SkipEmptyParts)) {
        const QByteArray u = s.trimmed().toUtf8();
        if (!u.isEmpty())
            ts::json::str(w, std::string_view(u.constData(), static_cast<size_t>(u.size())));
    }
    w.EndArray();
    str("dump_op_switch", QStringLiteral("on"));
    if (!m_filter->text().trimmed().isEmpty()) str("op_filter", m_filter->text().trimmed());
    if (!m_steps->text().trimmed().isEmpty()) str("steps", m_steps->text().remove(' '));
    str("file_per", m_filePer->currentData().toString());
    if (!m_load->text().trimmed().isEmpty()) str("load_file_path", m_load->text().trimmed());
    w.EndObject();
    return buf.GetString();
}

bool DumpSettingsWidget::overflowCheck() const {
    return m_overflow->isChecked();
}

bool DumpSettingsWidget::stopOnOverflow() const {
    return m_overflow->isChecked() && m_stop->isChecked();
}

QString DumpSettingsWidget::validate() const {
    const std::string j = dumpJson();
    if (j.empty()) return {};
    if (m_path->text().trimmed().isEmpty()) return tr("dump_path is empty");
    auto c = ts::debug::parseDumpConfig(j);
    return c ? QString() : QString::fromStdString(c.error());
}

void DumpSettingsWidget::applyTo(ts::run::JobOptions& o) const {
    o.dumpConfigJson = dumpJson();
    o.overflowCheck = overflowCheck();
    o.stopOnOverflow = stopOnOverflow();
}

void DumpSettingsWidget::setFrom(const ts::run::JobOptions& o) {
    if (o.dumpConfigJson.empty() || !load(o.dumpConfigJson)) m_dump->setChecked(false);
    m_overflow->setChecked(o.overflowCheck || o.stopOnOverflow);
    m_stop->setChecked(o.stopOnOverflow);
    m_stop->setEnabled(m_overflow->isChecked());
}

bool DumpSettingsWidget::load(const std::string& dumpJson, QString* error) {
    auto c = ts::debug::parseDumpConfig(dumpJson);
    if (!c) {
        if (error) *error = QString::fromStdString(c.error());
        return false;
    }
    m_dump->setChecked(true);
    m_path->setText(QString::fromStdString(c->dumpPath));
    m_mode->setCurrentText(c->mode == ts::debug::DumpMode::Input    ? QStringLiteral("input")
                           : c->mode == ts::debug::DumpMode::Output ? QStringLiteral("output")
                                                                    : QStringLiteral("all"));
    QStringList list;
    for (const auto& s : c->dumpList) list << QString::fromStdString(s);
    m_list->setText(list.join(QStringLiteral(", ")));
    m_filter->setText(QString::fromStdString(c->opFilter));
    QStringList steps;
    for (int64_t s : c->steps) steps << QString::number(s);
    m_steps->setText(steps.join(','));
    m_filePer->setCurrentIndex(c->filePerStep ? 0 : 1);
    m_load->setText(QString::fromStdString(c->loadFilePath));
    if (c->checkOverflow) m_overflow->setChecked(true);
    if (c->stopOnOverflow) m_stop->setChecked(true);
    return true;
}
