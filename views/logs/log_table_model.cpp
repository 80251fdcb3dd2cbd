#include "views/logs/log_table_model.h"

#include <QColor>
#include <QDateTime>
#include <algorithm>

namespace {
ts::log::LogMatcher defaultMatcher() {
    return ts::log::LogMatcher::create({}).value();
}
}  // namespace

LogTableModel::LogTableModel(QObject* parent)
    : QAbstractTableModel(parent), m_matcher(defaultMatcher()) {}

int LogTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_visible.size());
}

int LogTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

const ts::log::LogRecord& LogTableModel::record(int row) const {
    return m_records[static_cast<size_t>(m_visible[static_cast<size_t>(row)] - m_first)];
}

QColor LogTableModel::levelColor(ts::log::Level level) {
    switch (level) {
        case ts::log::Level::Debug:
            return QColor(128, 128, 128);
        case ts::log::Level::Info:
            return QColor();
        case ts::log::Level::Warning:
            return QColor(200, 120, 0);
        case ts::log::Level::Error:
            return QColor(210, 30, 30);
        case ts::log::Level::Critical:
            return QColor(160, 0, 120);
    }
    return QColor();
}

QVariant LogTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= rowCount()) return {};
    const ts::log::LogRecord& r = record(index.row());
    if (role == TimeNsRole) return r.tsNs ? QVariant(qint64(*r.tsNs)) : QVariant();
    if (role == Qt::ForegroundRole) {
        const QColor c = levelColor(r.level);
        return c.isValid() ? QVariant(c) : QVariant();
    }
    if (role == Qt::ToolTipRole && index.column() == MessageCol)
        return QString::fromStdString(r.message);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case TimeCol:
            return r.tsNs ? QString::fromStdString(ts::log::formatLogTime(*r.tsNs)) : QString();
        case LevelCol:
            return QString::fromLatin1(ts::log::levelName(r.level).data());
        case ModuleCol:
            return QString::fromStdString(r.module);
        case LocationCol:
            if (r.file.empty()) return QString();
            return QString::fromStdString(r.file) +
                   (r.line ? ":" + QString::number(r.line) : QString());
        case PidCol:
            return r.pid ? QVariant(qint64(r.pid)) : QVariant();
        case TidCol:
            return r.tid ? QVariant(qint64(r.tid)) : QVariant();
        case MessageCol: {
            const size_t nl = r.message.find('\n');
            QString text = QString::fromStdString(r.message.substr(0, nl));
            if (nl != std::string::npos) text += QStringLiteral("  …");
            return text;
        }
    }
    return {};
}

QVariant LogTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case TimeCol:
            return tr("Time");
        case LevelCol:
            return tr("Level");
        case ModuleCol:
            return tr("Module");
        case LocationCol:
            return tr("Location");
        case PidCol:
            return tr("PID");
        case TidCol:
            return tr("TID");
        case MessageCol:
            return tr("Message");
    }
    return {};
}

void LogTableModel::dropOldest(size_t n) {
    n = std::min(n, m_records.size());
    if (n == 0) return;
    const int64_t end = m_first + static_cast<int64_t>(n);
    const auto cut = std::lower_bound(m_visible.begin(), m_visible.end(), end);
    const int rows = static_cast<int>(cut - m_visible.begin());
    if (rows > 0) beginRemoveRows({}, 0, rows - 1);
    m_visible.erase(m_visible.begin(), cut);
    m_records.erase(m_records.begin(), m_records.begin() + static_cast<ptrdiff_t>(n));
    m_first = end;
    if (rows > 0) endRemoveRows();
}

void LogTableModel::append(std::vector<ts::log::LogRecord> records) {
    if (records.empty()) return;
    for (const auto& r : records) {
        if (r.module.empty() || m_moduleSet.count(r.module)) continue;
        m_moduleSet.insert(r.module);
        m_modules.append(QString::fromStdString(r.module));
        m_modules.sort();
    }
    const size_t limit = static_cast<size_t>(maxRecords());
    if (records.size() > limit)
        records.erase(records.begin(), records.end() - static_cast<ptrdiff_t>(limit));
    if (m_records.size() + records.size() > limit)
        dropOldest(m_records.size() + records.size() - limit);
    std::vector<int64_t> added;
    const int64_t base = m_first + static_cast<int64_t>(m_records.size());
    for (size_t i = 0; i < records.size(); ++i)
        if (m_matcher.matches(records[i])) added.push_back(base + static_cast<int64_t>(i));
    for (auto& r : records) m_records.push_back(std::move(r));
    if (added.empty()) return;
    const int first = rowCount();
    beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
    m_visible.insert(m_visible.end(), added.begin(), added.end());
    endInsertRows();
}

void LogTableModel::clear() {
    beginResetModel();
    m_records.clear();
    m_visible.clear();
    m_first = 0;
    m_modules.clear();
    m_moduleSet.clear();
    endResetModel();
}

QString LogTableModel::setFilter(const ts::log::LogFilter& filter) {
    auto matcher = ts::log::LogMatcher::create(filter);
    if (!matcher) return QString::fromStdString(matcher.error());
    m_matcher = std::move(matcher.value());
    rebuild();
    return {};
}

void LogTableModel::rebuild() {
    beginResetModel();
    m_visible.clear();
    for (size_t i = 0; i < m_records.size(); ++i)
        if (m_matcher.matches(m_records[i])) m_visible.push_back(m_first + static_cast<int64_t>(i));
    endResetModel();
}

QStringList LogTableModel::modules() const {
    return m_modules;
}
