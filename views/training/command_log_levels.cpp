#include "views/training/command_log_levels.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace {

using ts::log::Level;

// Combo index 0 = not set (the framework's own default), 1..5 = DEBUG..CRITICAL.
std::optional<Level> levelAt(const QComboBox* c) {
    if (!c || c->currentIndex() <= 0) return std::nullopt;
    return static_cast<Level>(c->currentIndex() - 1);
}

void setLevel(QComboBox* c, std::optional<Level> l) {
    c->setCurrentIndex(l ? static_cast<int>(*l) + 1 : 0);
}

}  // namespace

const QStringList& CommandLogLevels::mindsporeSubModules() {
    static const QStringList names = {
        QStringLiteral("ME"),       QStringLiteral("KERNEL"),    QStringLiteral("DEVICE"),
        QStringLiteral("SESSION"),  QStringLiteral("PIPELINE"),  QStringLiteral("PARSER"),
        QStringLiteral("ANALYZER"), QStringLiteral("OPTIMIZER"), QStringLiteral("PRE_ACT"),
        QStringLiteral("PARALLEL"), QStringLiteral("MD"),        QStringLiteral("PYNATIVE"),
        QStringLiteral("PROFILER"), QStringLiteral("DEBUG"),     QStringLiteral("GE_ADPT"),
        QStringLiteral("EXPRESS"),  QStringLiteral("UTILS"),     QStringLiteral("VM"),
        QStringLiteral("COMMON"),   QStringLiteral("CORE")};
    return names;
}

QComboBox* CommandLogLevels::levelCombo() {
    auto* c = new QComboBox(this);
    c->addItem(tr("(framework default)"));
    for (int i = 0; i < ts::log::kLevelCount; ++i)
        c->addItem(QString::number(i) + " " +
                   QString::fromLatin1(ts::log::levelName(static_cast<Level>(i)).data()));
    connect(c, &QComboBox::currentIndexChanged, this, &CommandLogLevels::changed);
    return c;
}

CommandLogLevels::CommandLogLevels(QWidget* parent)
    : QWidget(parent), m_modules(new QTableWidget(0, 2, this)) {
    m_global = levelCombo();
    m_torch = levelCombo();
    m_ascend = levelCombo();
    m_events = new QCheckBox(tr("Ascend event logs"), this);
    m_global->setToolTip(
        tr("GLOG_v and GLOG_stderrthreshold (MindSpore), ASCEND_GLOBAL_LOG_LEVEL, "
           "TORCH_CPP_LOG_LEVEL"));
    m_torch->setToolTip(tr("TORCH_CPP_LOG_LEVEL: PyTorch's C++ messages (c10d, gloo, NCCL)"));
    m_ascend->setToolTip(tr("ASCEND_GLOBAL_LOG_LEVEL: CANN's host logs (plog), printed to stdout"));
    m_events->setToolTip(tr("ASCEND_GLOBAL_EVENT_ENABLE"));
    connect(m_events, &QCheckBox::toggled, this, &CommandLogLevels::changed);
    auto* form = new QFormLayout;
    form->addRow(tr("Global"), m_global);
    form->addRow(tr("PyTorch C++"), m_torch);
    form->addRow(tr("Ascend"), m_ascend);
    form->addRow(QString(), m_events);
    m_modules->setHorizontalHeaderLabels({tr("MindSpore sub-module"), tr("Level")});
    m_modules->verticalHeader()->hide();
    m_modules->verticalHeader()->setDefaultSectionSize(22);
    m_modules->horizontalHeader()->setStretchLastSection(true);
    m_modules->setSelectionMode(QAbstractItemView::NoSelection);
    m_modules->setToolTip(tr("MS_SUBMODULE_LOG_v: a level per sub-module over the global one"));
    m_modules->setMinimumHeight(120);
    for (const QString& m : mindsporeSubModules()) addModuleRow(m);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addLayout(form);
    l->addWidget(m_modules, 1);
}

int CommandLogLevels::addModuleRow(const QString& name) {
    const int row = m_modules->rowCount();
    m_modules->insertRow(row);
    auto* item = new QTableWidgetItem(name);
    item->setFlags(Qt::ItemIsEnabled);
    m_modules->setItem(row, 0, item);
    m_modules->setCellWidget(row, 1, levelCombo());
    return row;
}

QComboBox* CommandLogLevels::moduleCombo(const QString& name) const {
    for (int r = 0; r < m_modules->rowCount(); ++r)
        if (m_modules->item(r, 0)->text() == name)
            return qobject_cast<QComboBox*>(m_modules->cellWidget(r, 1));
    return nullptr;
}

std::vector<ts::run::LogLevelSetting> CommandLogLevels::settings() const {
    std::vector<ts::run::LogLevelSetting> out;
    auto add = [&](const std::string& module, const QComboBox* c) {
        if (auto l = levelAt(c)) out.push_back({module, *l, false});
    };
    add("", m_global);
    add("TORCH", m_torch);
    add("ASCEND", m_ascend);
    if (m_events->isChecked()) out.push_back({"EVENT", Level::Info, true});
    for (int r = 0; r < m_modules->rowCount(); ++r)
        add(m_modules->item(r, 0)->text().toStdString(),
            qobject_cast<QComboBox*>(m_modules->cellWidget(r, 1)));
    return out;
}

void CommandLogLevels::setSettings(const std::vector<ts::run::LogLevelSetting>& levels) {
    {
        const QSignalBlocker block(this);
        apply(levels);
    }
    emit changed();
}

void CommandLogLevels::apply(const std::vector<ts::run::LogLevelSetting>& levels) {
    for (QComboBox* c : {m_global, m_torch, m_ascend}) c->setCurrentIndex(0);
    m_events->setChecked(false);
    for (int r = 0; r < m_modules->rowCount(); ++r)
        qobject_cast<QComboBox*>(m_modules->cellWidget(r, 1))->setCurrentIndex(0);
    for (const auto& s : levels) {
        if (s.module.empty())
            setLevel(m_global, s.level);
        else if (s.module == "TORCH")
            setLevel(m_torch, s.level);
        else if (s.module == "ASCEND")
            setLevel(m_ascend, s.level);
        else if (s.module == "EVENT")
            m_events->setChecked(s.eventsOn);
        else {
            const QString name = QString::fromStdString(s.module);
            QComboBox* c = moduleCombo(name);
            if (!c) c = qobject_cast<QComboBox*>(m_modules->cellWidget(addModuleRow(name), 1));
            setLevel(c, s.level);
        }
    }
}
