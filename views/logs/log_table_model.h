#pragma once
// LogTableModel: log records as table rows (time, level, module, location, pid, tid,
// message), filtered by a ts::log::LogFilter. Holds at most maxRecords() records; the
// oldest are dropped when more arrive (rows removed from the top, not a reset: a view
// following a command run's 100,000 lines a second keeps its place and stays fluid).
#include <QAbstractTableModel>
#include <QString>
#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <vector>

#include "core/log/log_filter.h"
#include "core/log/log_record.h"

class LogTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        TimeCol,
        LevelCol,
        ModuleCol,
        LocationCol,
        PidCol,
        TidCol,
        MessageCol,
        ColumnCount
    };
    /// Role carrying a record's Unix ns time (qint64), or an invalid QVariant without time.
    static constexpr int TimeNsRole = Qt::UserRole + 1;

    explicit LogTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    /// Adds records at the end (shown when they match the filter).
    void append(std::vector<ts::log::LogRecord> records);
    void clear();
    /// Applies a filter; returns "" or the error (bad regex; the old filter then stays).
    QString setFilter(const ts::log::LogFilter& filter);
    const ts::log::LogFilter& filter() const { return m_matcher.filter(); }

    /// The record shown in `row`.
    const ts::log::LogRecord& record(int row) const;
    /// Records held, shown or not.
    int totalRecords() const { return static_cast<int>(m_records.size()); }
    /// Distinct modules seen, sorted.
    QStringList modules() const;
    static int maxRecords() { return 200000; }

    /// Colours used for a level (text, background; background invalid = none).
    static QColor levelColor(ts::log::Level level);

private:
    void rebuild();
    void dropOldest(size_t n);
    std::deque<ts::log::LogRecord> m_records;
    std::deque<int64_t> m_visible;  // logical indexes: m_first is m_records[0]'s
    int64_t m_first = 0;
    ts::log::LogMatcher m_matcher;
    QStringList m_modules;
    std::set<std::string> m_moduleSet;  // the same, to test a record's module cheaply
};
