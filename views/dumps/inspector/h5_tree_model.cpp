#include "views/dumps/inspector/h5_tree_model.h"

#include <QFont>
#include <QStringList>

#include "views/common/job_tracker.h"

struct H5TreeModel::Item {
    Entry e;
    Item* parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Item>> children;
    bool fetched = false;
    bool fetching = false;
};

namespace {

QString kindName(const H5TreeModel::Entry& e) {
    switch (e.kind) {
        case ts::h5::NodeKind::Group:
            return QStringLiteral("group (%1)").arg(e.childCount);
        case ts::h5::NodeKind::NamedType:
            return QStringLiteral("named type");
        case ts::h5::NodeKind::Link:
            return QStringLiteral("link");
        case ts::h5::NodeKind::Dataset:
            return e.type;
        default:
            return QStringLiteral("?");
    }
}

struct Listing {
    std::vector<H5TreeModel::Entry> entries;
    QString error;
};

// Lists one group (names and kinds only: one pass over its links).
Listing listGroup(const ts::h5::File& f, const QString& path, ts::JobControl& jc) {
    Listing out;
    auto kids = f.children(path.toStdString());
    if (!kids) {
        out.error = QString::fromStdString(kids.error());
        return out;
    }
    jc.setTotal(kids->size());
    for (const auto& k : kids.value()) {
        H5TreeModel::Entry e;
        e.name = QString::fromStdString(k.name);
        e.path = QString::fromStdString(k.path);
        e.kind = k.kind;
        e.childCount = k.childCount;
        out.entries.push_back(std::move(e));
    }
    jc.setDone(kids->size());
    return out;
}

struct Described {
    std::vector<std::pair<int, std::pair<QString, QString>>> rows;  // row, (type, shape)
};

// dtype and shape of the datasets among `paths` (row, path); no data is read.
Described describeDatasets(const ts::h5::File& f, const std::vector<std::pair<int, QString>>& paths,
                           ts::JobControl& jc) {
    Described out;
    jc.setTotal(paths.size());
    for (const auto& [row, path] : paths) {
        if (jc.cancelled()) break;
        auto info = f.datasetInfo(path.toStdString());
        QString type = QStringLiteral("unreadable"), shape;
        if (info) {
            type = QString::fromStdString(info->dtype);
            QStringList dims;
            for (auto d : info->shape) dims << QString::number(d);
            shape =
                info->shape.empty() ? QStringLiteral("scalar") : dims.join(QStringLiteral(" × "));
        }
        out.rows.push_back({row, {type, shape}});
        jc.addDone(1);
    }
    return out;
}

}  // namespace

H5TreeModel::H5TreeModel(JobTracker* jobs, QObject* parent)
    : QAbstractItemModel(parent), m_jobs(jobs), m_root(std::make_unique<Item>()) {}

H5TreeModel::~H5TreeModel() = default;

void H5TreeModel::setFile(std::shared_ptr<const ts::h5::File> file) {
    beginResetModel();
    m_file = std::move(file);
    m_root = std::make_unique<Item>();
    m_root->e.kind = ts::h5::NodeKind::Group;
    ++m_generation;
    m_pending = 0;
    endResetModel();
    if (m_file) startFetch(m_root.get());
}

H5TreeModel::Item* H5TreeModel::itemOf(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Item*>(index.internalPointer()) : m_root.get();
}

QModelIndex H5TreeModel::indexOf(Item* item) const {
    if (!item || item == m_root.get()) return {};
    return createIndex(item->row, 0, item);
}

QModelIndex H5TreeModel::index(int row, int column, const QModelIndex& parent) const {
    Item* p = itemOf(parent);
    if (row < 0 || column < 0 || column >= 3 || row >= static_cast<int>(p->children.size()))
        return {};
    return createIndex(row, column, p->children[static_cast<size_t>(row)].get());
}

QModelIndex H5TreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    return indexOf(itemOf(child)->parent);
}

int H5TreeModel::rowCount(const QModelIndex& parent) const {
    if (parent.column() > 0) return 0;
    return static_cast<int>(itemOf(parent)->children.size());
}

int H5TreeModel::columnCount(const QModelIndex&) const {
    return 3;
}

QVariant H5TreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const Item* it = itemOf(index);
    switch (role) {
        case Qt::DisplayRole:
            if (index.column() == 0) return it->e.name;
            if (index.column() == 1) return kindName(it->e);
            return it->e.shape;
        case Qt::ToolTipRole:
            return QStringLiteral("/%1").arg(it->e.path);
        case PathRole:
            return it->e.path;
        case KindRole:
            return static_cast<int>(it->e.kind);
        case Qt::FontRole:
            if (index.column() == 0 && it->e.kind == ts::h5::NodeKind::Group) {
                QFont f;
                f.setBold(true);
                return f;
            }
            return {};
        default:
            return {};
    }
}

QVariant H5TreeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case 0:
            return tr("Name");
        case 1:
            return tr("Type");
        default:
            return tr("Shape");
    }
}

bool H5TreeModel::hasChildren(const QModelIndex& parent) const {
    const Item* it = itemOf(parent);
    if (it == m_root.get()) return !it->children.empty() || !it->fetched;
    if (it->e.kind != ts::h5::NodeKind::Group) return false;
    return it->fetched ? !it->children.empty() : it->e.childCount > 0;
}

bool H5TreeModel::canFetchMore(const QModelIndex& parent) const {
    const Item* it = itemOf(parent);
    return m_file && it->e.kind == ts::h5::NodeKind::Group && !it->fetched && !it->fetching;
}

void H5TreeModel::fetchMore(const QModelIndex& parent) {
    if (canFetchMore(parent)) startFetch(itemOf(parent));
}

void H5TreeModel::startFetch(Item* item) {
    item->fetching = true;
    ++m_pending;
    const quint64 gen = m_generation;
    auto file = m_file;
    const QString path = item->e.path;
    m_jobs->run<Listing>(
        this, QStringLiteral("h5tree:%1:%2").arg(gen).arg(path),
        tr("Listing %1").arg(path.isEmpty() ? QStringLiteral("/") : path),
        [file, path](ts::JobControl& jc) { return listGroup(*file, path, jc); },
        [this, gen, item](Listing l) {
            if (gen != m_generation) return;  // another file since
            --m_pending;
            item->fetching = false;
            item->fetched = true;
            const QModelIndex parentIndex = indexOf(item);
            if (!l.error.isEmpty()) emit loadFailed(l.error);
            if (!l.entries.empty()) {
                beginInsertRows(parentIndex, 0, static_cast<int>(l.entries.size()) - 1);
                for (auto& e : l.entries) {
                    auto child = std::make_unique<Item>();
                    child->e = std::move(e);
                    child->parent = item;
                    child->row = static_cast<int>(item->children.size());
                    item->children.push_back(std::move(child));
                }
                endInsertRows();
            } else {
                // No rows: let views redraw the expander.
                emit dataChanged(parentIndex, parentIndex);
            }
            emit childrenLoaded(parentIndex);
            describe(item);
        });
}

void H5TreeModel::describe(Item* item) {
    // Second phase, so names show at once: types and shapes of the datasets listed.
    std::vector<std::pair<int, QString>> paths;
    for (const auto& c : item->children)
        if (c->e.kind == ts::h5::NodeKind::Dataset) paths.emplace_back(c->row, c->e.path);
    if (paths.empty()) return;
    const quint64 gen = m_generation;
    auto file = m_file;
    m_jobs->run<Described>(
        this, QStringLiteral("h5describe:%1:%2").arg(gen).arg(item->e.path),
        tr("Describing the datasets of %1")
            .arg(item->e.path.isEmpty() ? QStringLiteral("/") : item->e.path),
        [file, paths](ts::JobControl& jc) { return describeDatasets(*file, paths, jc); },
        [this, gen, item](Described d) {
            if (gen != m_generation || d.rows.empty()) return;
            int lo = INT32_MAX, hi = -1;
            for (const auto& [row, ts] : d.rows) {
                if (row < 0 || row >= static_cast<int>(item->children.size())) continue;
                item->children[static_cast<size_t>(row)]->e.type = ts.first;
                item->children[static_cast<size_t>(row)]->e.shape = ts.second;
                lo = std::min(lo, row);
                hi = std::max(hi, row);
            }
            if (hi >= 0)
                emit dataChanged(createIndex(lo, 1, item->children[static_cast<size_t>(lo)].get()),
                                 createIndex(hi, 2, item->children[static_cast<size_t>(hi)].get()));
        });
}

QModelIndex H5TreeModel::indexOfPath(const QString& path) const {
    const Item* it = m_root.get();
    QString prefix;
    for (const QString& part : path.split('/', Qt::SkipEmptyParts)) {
        prefix = prefix.isEmpty() ? part : prefix + '/' + part;
        const Item* next = nullptr;
        for (const auto& c : it->children)
            if (c->e.path == prefix) next = c.get();
        if (!next) return {};
        it = next;
    }
    return it == m_root.get() ? QModelIndex() : createIndex(it->row, 0, const_cast<Item*>(it));
}
