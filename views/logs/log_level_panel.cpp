#include "views/logs/log_level_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cstdlib>

#include "core/log/logger.h"

namespace {

using ts::log::Level;
using ts::log::Logger;
using ts::log::SubModule;

QStringList levelNames() {
    QStringList out;
    for (int i = 0; i < ts::log::kLevelCount; ++i)
        out << QString::number(i) + " " +
                   QString::fromLatin1(ts::log::levelName(static_cast<Level>(i)).data());
    return out;
}

SubModule moduleAt(int row) {
    return ts::log::allSubModules()[static_cast<size_t>(row)];
}

}  // namespace

LogLevelPanel::LogLevelPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Global level (GLOG_v):"), this));
    m_global = new QComboBox(this);
    m_global->addItems(levelNames());
    top->addWidget(m_global, 1);
    layout->addLayout(top);

    m_table = new QTableWidget(ts::log::kSubModuleCount, 2, this);
    m_table->setHorizontalHeaderLabels({tr("Sub-module"), tr("Level")});
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    for (int row = 0; row < ts::log::kSubModuleCount; ++row) {
        auto* name =
            new QTableWidgetItem(QString::fromLatin1(ts::log::subModuleName(moduleAt(row)).data()));
        name->setFlags(Qt::ItemIsEnabled);
        m_table->setItem(row, 0, name);
        auto* combo = new QComboBox(m_table);
        combo->addItem(tr("(global)"));
        combo->addItems(levelNames());
        m_table->setCellWidget(row, 1, combo);
        connect(combo, &QComboBox::currentIndexChanged, this,
                [this, row](int index) { applyModule(row, index); });
    }
    layout->addWidget(m_table, 1);

    auto* buttons = new QHBoxLayout;
    auto* reset = new QPushButton(tr("Reset sub-modules"), this);
    auto* save = new QPushButton(tr("Save as default"), this);
    buttons->addWidget(reset);
    buttons->addStretch(1);
    buttons->addWidget(save);
    layout->addLayout(buttons);

    connect(m_global, &QComboBox::currentIndexChanged, this, &LogLevelPanel::applyGlobal);
    connect(reset, &QPushButton::clicked, this, [this] {
        for (SubModule m : ts::log::allSubModules())
            Logger::instance().setModuleLevel(m, std::nullopt);
        refresh();
        emit levelsChanged();
    });
    connect(save, &QPushButton::clicked, this, [this] {
        QSettings settings;
        saveAsDefault(settings);
    });
    refresh();
}

QComboBox* LogLevelPanel::moduleCombo(int row) const {
    return qobject_cast<QComboBox*>(m_table->cellWidget(row, 1));
}

int LogLevelPanel::moduleRows() const {
    return m_table->rowCount();
}

void LogLevelPanel::refresh() {
    m_updating = true;
    Logger& logger = Logger::instance();
    m_global->setCurrentIndex(static_cast<int>(logger.globalLevel()));
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const auto o = logger.moduleOverride(moduleAt(row));
        moduleCombo(row)->setCurrentIndex(o ? static_cast<int>(*o) + 1 : 0);
    }
    m_updating = false;
}

void LogLevelPanel::applyGlobal(int index) {
    if (m_updating || index < 0) return;
    Logger::instance().setGlobalLevel(static_cast<Level>(index));
    emit levelsChanged();
}

void LogLevelPanel::applyModule(int row, int index) {
    if (m_updating || index < 0) return;
    Logger::instance().setModuleLevel(
        moduleAt(row),
        index == 0 ? std::nullopt : std::optional<Level>(static_cast<Level>(index - 1)));
    emit levelsChanged();
}

void LogLevelPanel::saveAsDefault(QSettings& settings) {
    Logger& logger = Logger::instance();
    settings.beginGroup(QStringLiteral("logging"));
    settings.setValue(QStringLiteral("global"), static_cast<int>(logger.globalLevel()));
    settings.remove(QStringLiteral("modules"));
    for (SubModule m : ts::log::allSubModules())
        if (const auto o = logger.moduleOverride(m))
            settings.setValue(
                QStringLiteral("modules/") + QString::fromLatin1(ts::log::subModuleName(m).data()),
                static_cast<int>(*o));
    settings.endGroup();
    settings.sync();
}

void applySavedLogLevels(QSettings& settings, bool environmentWins) {
    auto envSet = [](const char* name) {
        const char* v = std::getenv(name);
        return v && *v;
    };
    Logger& logger = Logger::instance();
    settings.beginGroup(QStringLiteral("logging"));
    bool ok = false;
    const int global = settings.value(QStringLiteral("global")).toInt(&ok);
    if (ok && global >= 0 && global < ts::log::kLevelCount &&
        !(environmentWins && envSet("GLOG_v")))
        logger.setGlobalLevel(static_cast<Level>(global));
    if (!(environmentWins && envSet("MS_SUBMODULE_LOG_v"))) {
        settings.beginGroup(QStringLiteral("modules"));
        for (const QString& key : settings.childKeys()) {
            const auto module = ts::log::parseSubModule(key.toStdString());
            const int level = settings.value(key).toInt(&ok);
            if (module && ok && level >= 0 && level < ts::log::kLevelCount)
                logger.setModuleLevel(*module, static_cast<Level>(level));
        }
        settings.endGroup();
    }
    settings.endGroup();
}
