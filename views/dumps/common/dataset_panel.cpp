#include "views/dumps/common/dataset_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "views/common/job_tracker.h"
#include "views/common/units_text.h"
#include "views/dumps/common/heatmap_widget.h"
#include "views/dumps/common/line_plot_widget.h"
#include "views/dumps/common/slice_selector.h"
#include "views/dumps/common/stats_widget.h"
#include "views/dumps/common/values_table_model.h"

namespace {

struct ObjectInfo {
    bool ok = false, isDataset = false;
    QString error;
    ts::h5::DatasetInfo info;
    std::vector<ts::h5::Attribute> attrs;
};

ObjectInfo describe(const ts::h5::File& f, const std::string& path) {
    ObjectInfo o;
    auto attrs = f.attributes(path);
    if (attrs) o.attrs = attrs.value();
    auto info = f.datasetInfo(path);
    if (info) {
        o.isDataset = true;
        o.info = info.value();
        o.ok = true;
        return o;
    }
    o.ok = attrs.ok();
    if (!attrs) o.error = QString::fromStdString(attrs.error());
    return o;
}

QString bytes(uint64_t b) {
    return bytesText(static_cast<double>(b));
}

QString describeHtml(const QString& path, const ObjectInfo& o) {
    QString html = QStringLiteral("<b>/%1</b>").arg(path.toHtmlEscaped());
    if (!o.ok)
        return html + QStringLiteral("<br><span style='color:#c0392b'>%1</span>")
                          .arg(o.error.toHtmlEscaped());
    if (!o.isDataset) return html + QObject::tr("<br>group");
    const auto& i = o.info;
    QStringList dims;
    for (auto d : i.shape) dims << QString::number(d);
    QString rows;
    auto row = [&rows](const QString& k, const QString& v) {
        rows += QStringLiteral(
                    "<tr><td style='padding-right:10px;color:palette(mid)'>%1</td><td>%2</td></tr>")
                    .arg(k, v);
    };
    row(QObject::tr("shape"), i.shape.empty()
                                  ? QObject::tr("scalar")
                                  : QStringLiteral("(%1)").arg(dims.join(QStringLiteral(", "))));
    row(QObject::tr("elements"), QLocale().toString(static_cast<qulonglong>(i.count)));
    QString type = QString::fromStdString(i.dtype).toHtmlEscaped();
    if (!i.typeDetail.empty())
        type += QStringLiteral(" ") + QString::fromStdString(i.typeDetail).toHtmlEscaped();
    row(QObject::tr("dtype"), type + QObject::tr(" (%1 bytes each)").arg(i.elementSize));
    QString layout = QString::fromStdString(i.layout);
    if (!i.chunks.empty()) {
        QStringList c;
        for (auto d : i.chunks) c << QString::number(d);
        layout += QObject::tr(", chunks (%1)").arg(c.join(QStringLiteral(", ")));
    }
    row(QObject::tr("layout"), layout);
    QStringList filters;
    for (const auto& f : i.filters) filters << QString::fromStdString(f).toHtmlEscaped();
    row(QObject::tr("filters"),
        filters.isEmpty() ? QObject::tr("none") : filters.join(QStringLiteral(", ")));
    const uint64_t raw = i.count * i.elementSize;
    QString storage = bytes(i.storageBytes);
    if (i.storageBytes > 0 && raw > 0 && i.storageBytes != raw)
        storage +=
            QObject::tr(" (%1 raw, ratio %2)")
                .arg(bytes(raw))
                .arg(static_cast<double>(raw) / static_cast<double>(i.storageBytes), 0, 'f', 2);
    row(QObject::tr("storage"), storage);
    return html + QStringLiteral("<table>%1</table>").arg(rows);
}

}  // namespace

DatasetPanel::DatasetPanel(JobTracker* jobs, QWidget* parent)
    : QWidget(parent),
      m_jobs(jobs),
      m_desc(new QLabel(this)),
      m_attrs(new QTableWidget(0, 3, this)),
      m_stats(new StatsWidget(jobs, this)),
      m_slice(new SliceSelector(this)),
      m_tabs(new QTabWidget(this)),
      m_table(new QTableView(this)),
      m_values(new ValuesTableModel(jobs, this)),
      m_heatmap(new HeatmapWidget(jobs, this)),
      m_line(new LinePlotWidget(jobs, this)) {
    m_desc->setTextFormat(Qt::RichText);
    m_desc->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_desc->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_desc->setWordWrap(true);
    m_desc->setMinimumWidth(320);
    m_attrs->setHorizontalHeaderLabels({tr("Attribute"), tr("Type"), tr("Value")});
    m_attrs->horizontalHeader()->setStretchLastSection(true);
    m_attrs->verticalHeader()->setVisible(false);
    m_attrs->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_attrs->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_attrs->setWordWrap(false);
    m_table->setModel(m_values);
    m_table->horizontalHeader()->setDefaultSectionSize(92);
    m_table->verticalHeader()->setDefaultSectionSize(22);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_tabs->addTab(m_table, tr("Values"));
    m_tabs->addTab(m_heatmap, tr("Heatmap"));
    m_tabs->addTab(m_line, tr("Plot"));

    auto* top = new QWidget(this);
    auto* topLay = new QHBoxLayout(top);
    topLay->setContentsMargins(0, 0, 0, 0);
    topLay->addWidget(m_desc, 2);
    topLay->addWidget(m_attrs, 3);
    auto* bottom = new QWidget(this);
    auto* bottomLay = new QVBoxLayout(bottom);
    bottomLay->setContentsMargins(0, 0, 0, 0);
    bottomLay->addWidget(m_slice);
    bottomLay->addWidget(m_tabs, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(m_stats);
    split->addWidget(bottom);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setStretchFactor(2, 2);
    split->setSizes({150, 250, 420});
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(split);

    connect(m_slice, &SliceSelector::sliceChanged, this, &DatasetPanel::onSlice);
    connect(m_tabs, &QTabWidget::currentChanged, this, &DatasetPanel::refreshVisibleTab);
    showObject(nullptr, {});
}

void DatasetPanel::showMessage(const QString& message) {
    showObject(nullptr, {});
    m_desc->setText(message.toHtmlEscaped());
    m_stats->setDataset(nullptr, {});
}

void DatasetPanel::showObject(std::shared_ptr<const ts::h5::File> file, const QString& path) {
    m_file = std::move(file);
    m_path = path;
    m_isDataset = false;
    m_info = {};
    const quint64 gen = ++m_generation;
    m_attrs->setRowCount(0);
    m_values->setDataset(nullptr, {}, {});
    m_slice->setShape({});
    m_heatmap->clear();
    m_line->clear();
    if (!m_file || path.isEmpty()) {
        m_desc->setText(tr("Select a group or a dataset."));
        m_stats->setDataset(nullptr, {});
        return;
    }
    m_desc->setText(tr("Reading /%1…").arg(path.toHtmlEscaped()));
    auto file2 = m_file;
    m_jobs->run<ObjectInfo>(
        this, QStringLiteral("h5object:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Describing %1").arg(path),
        [file2, p = path.toStdString()](ts::JobControl&) { return describe(*file2, p); },
        [this, gen, path](ObjectInfo o) {
            if (gen != m_generation) return;
            m_desc->setText(describeHtml(path, o));
            m_attrs->setRowCount(static_cast<int>(o.attrs.size()));
            for (int r = 0; r < static_cast<int>(o.attrs.size()); ++r) {
                const auto& a = o.attrs[static_cast<size_t>(r)];
                m_attrs->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(a.name)));
                m_attrs->setItem(r, 1, new QTableWidgetItem(QString::fromStdString(a.dtype)));
                auto* v = new QTableWidgetItem(QString::fromStdString(a.value));
                v->setToolTip(QString::fromStdString(a.value));
                m_attrs->setItem(r, 2, v);
            }
            m_attrs->resizeColumnToContents(0);
            m_attrs->resizeColumnToContents(1);
            m_isDataset = o.isDataset;
            m_info = o.info;
            if (!o.isDataset) {
                m_stats->setDataset(nullptr, {});
                m_heatmap->clear(tr("A group has no values."));
                m_line->clear(tr("A group has no values."));
                return;
            }
            m_stats->setDataset(m_file, path);
            const size_t rank = m_info.shape.size();
            const bool numeric = m_info.numeric();
            m_tabs->setTabEnabled(HeatmapTab, numeric && rank >= 2);
            m_tabs->setTabEnabled(PlotTab, numeric && rank == 1);
            // The most telling view first: a heatmap for 2-D and up, a line for 1-D.
            if (numeric && rank >= 2 && m_info.count > 0)
                m_tabs->setCurrentIndex(HeatmapTab);
            else if (numeric && rank == 1 && m_info.count > 0)
                m_tabs->setCurrentIndex(PlotTab);
            else
                m_tabs->setCurrentIndex(ValuesTab);
            m_slice->setShape(m_info.shape);
            onSlice(m_slice->spec());
        });
}

void DatasetPanel::onSlice(const SliceSpec& spec) {
    if (!m_isDataset) return;
    m_values->setDataset(m_file, m_path, spec);
    m_heatmapStale = m_lineStale = true;
    refreshVisibleTab();
}

void DatasetPanel::refreshVisibleTab() {
    if (!m_isDataset || m_info.count == 0) {
        if (m_isDataset) {
            m_heatmap->clear(tr("The dataset is empty."));
            m_line->clear(tr("The dataset is empty."));
        }
        return;
    }
    const SliceSpec& spec = m_slice->spec();
    if (m_tabs->currentIndex() == HeatmapTab && m_heatmapStale) {
        m_heatmapStale = false;
        m_heatmap->setSlice(m_file, m_path, spec);
    } else if (m_tabs->currentIndex() == PlotTab && m_lineStale) {
        m_lineStale = false;
        m_line->setSeries(m_file, m_path, spec);
    }
}
