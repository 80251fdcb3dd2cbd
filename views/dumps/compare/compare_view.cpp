#include "views/dumps/compare/compare_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "core/common/file_io.h"
#include "core/debug/dump_source.h"
#include "core/debug/tensor_difference.h"
#include "views/common/job_tracker.h"
#include "views/common/plot_theme.h"
#include "views/common/session_context.h"
#include "views/common/units_text.h"
#include "views/dumps/common/h5_file_registry.h"
#include "views/dumps/compare/compare_table_model.h"

namespace {
struct CompareResult {
    ts::debug::CompareReport report;
    QString error;
};

CompareResult runCompare(const QString& a, const QString& b, const ts::debug::CompareThresholds& t,
                         const ts::debug::DumpPairOptions& how, ts::JobControl& jc) {
    CompareResult out;
    // HDF5 dumps and MindSpore dump folders (or .npy files), in any combination.
    auto rep = ts::debug::compareAnyDumps(a.toStdString(), b.toStdString(), t, how, &jc);
    if (!rep)
        out.error = QString::fromStdString(rep.error());
    else
        out.report = std::move(rep.value());
    return out;
}

QPushButton* browseButton(QWidget* parent, QLineEdit* target) {
    auto* b = new QPushButton(QObject::tr("…"), parent);
    b->setMaximumWidth(32);
    QObject::connect(b, &QPushButton::clicked, parent, [parent, target] {
        // An HDF5 file, or a MindSpore dump folder (Cancel on the file dialog asks for one).
        QString p =
            QFileDialog::getOpenFileName(parent, QObject::tr("Choose a dump"), target->text(),
                                         QObject::tr("HDF5 (*.h5 *.hdf5);;All files (*)"));
        if (p.isEmpty())
            p = QFileDialog::getExistingDirectory(
                parent,
                QObject::tr("Choose a MindSpore dump folder (rank_*/<net>/<graph>/<iteration>)"),
                target->text());
        if (!p.isEmpty()) target->setText(p);
    });
    return b;
}
}  // namespace

CompareView::CompareView(SessionContext* ctx, QWidget* parent)
    : QWidget(parent),
      m_ctx(ctx),
      m_a(new QLineEdit(this)),
      m_b(new QLineEdit(this)),
      m_cos(new QDoubleSpinBox(this)),
      m_useRel(new QCheckBox(tr("max rel ≤"), this)),
      m_rel(new QDoubleSpinBox(this)),
      m_useAbs(new QCheckBox(tr("max abs ≤"), this)),
      m_abs(new QDoubleSpinBox(this)),
      m_rule(new QComboBox(this)),
      m_pairing(new QComboBox(this)),
      m_run(new QPushButton(tr("Compare"), this)),
      m_csv(new QPushButton(tr("Export CSV…"), this)),
      m_summary(new QLabel(this)),
      m_table(new QTableView(this)),
      m_unmatched(new QListWidget(this)),
      m_failuresOnly(new QCheckBox(tr("Failures only"), this)),
      m_bottom(new QTabWidget(this)),
      m_diffPlot(new QCustomPlot(this)),
      m_diffLabel(new QLabel(this)),
      m_model(new CompareTableModel(this)) {
    m_a->setPlaceholderText(tr("A: the dump to check (msaccucmp -m), e.g. the NPU / fp16 run"));
    m_b->setPlaceholderText(tr("B: the golden dump (msaccucmp -g), e.g. the GPU / fp32 run"));
    m_cos->setRange(0, 1);
    m_cos->setDecimals(6);
    m_cos->setSingleStep(0.001);
    m_cos->setValue(0.99);
    m_cos->setPrefix(tr("cosine ≥ "));
    for (QDoubleSpinBox* s : {m_rel, m_abs}) {
        s->setDecimals(8);
        s->setRange(0, 1e12);
        s->setEnabled(false);
    }
    m_rel->setValue(0.01);
    m_abs->setValue(0.001);
    m_rule->addItem(tr("rule: cosine"));
    m_rule->addItem(tr("rule: combined"));
    m_rule->setToolTip(
        tr("Combined: also the share of elements within 0.1 % relative error "
           "(0.5 % when either side is float16/bfloat16), which sees a wrong "
           "scale that cosine cannot (docs/DUMPS.md)"));
    m_rule->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_pairing->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_pairing->addItem(tr("pair by path"));
    m_pairing->addItem(tr("align ops by name"));
    m_pairing->addItem(tr("align ops by scope layer"));
    m_pairing->setToolTip(
        tr("By path: the same <op>/<seqid>/<io>/<slot> (msaccucmp). Aligned: "
           "ops paired in order by name (numbering ignored) or by the layer "
           "their scope names, for dumps of two frameworks or runs whose op "
           "counts differ"));
    m_csv->setEnabled(false);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);

    auto* grid = new QGridLayout;
    grid->addWidget(new QLabel(tr("A (checked):"), this), 0, 0);
    grid->addWidget(m_a, 0, 1);
    grid->addWidget(browseButton(this, m_a), 0, 2);
    grid->addWidget(new QLabel(tr("B (golden):"), this), 1, 0);
    grid->addWidget(m_b, 1, 1);
    grid->addWidget(browseButton(this, m_b), 1, 2);
    auto* th = new QHBoxLayout;
    th->addWidget(new QLabel(tr("Pass when:"), this));
    th->addWidget(m_cos);
    th->addWidget(m_useRel);
    th->addWidget(m_rel);
    th->addWidget(m_useAbs);
    th->addWidget(m_abs);
    th->addWidget(new QLabel(tr("and NaN/Inf at the same positions"), this));
    th->addStretch();
    // The rule, pairing and actions on a row of their own: the view fits 1280 pixels.
    auto* actions = new QHBoxLayout;
    actions->addWidget(m_rule);
    actions->addWidget(m_pairing);
    actions->addStretch();
    actions->addWidget(m_failuresOnly);
    actions->addWidget(m_run);
    actions->addWidget(m_csv);

    m_table->setModel(m_model);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(22);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(CompareTableModel::Path,
                                                      QHeaderView::Stretch);
    auto* diffBox = new QWidget(this);
    auto* dl = new QVBoxLayout(diffBox);
    dl->setContentsMargins(0, 0, 0, 0);
    m_diffLabel->setWordWrap(true);
    m_diffLabel->setText(tr("Select a pair to plot A − B by element."));
    m_diffPlot->xAxis->setLabel(tr("element (flat index, C order)"));
    m_diffPlot->yAxis->setLabel(tr("A − B"));
    m_diffPlot->setMinimumHeight(120);
    dl->addWidget(m_diffLabel);
    dl->addWidget(m_diffPlot, 1);
    m_bottom->addTab(diffBox, tr("A − B"));
    m_bottom->addTab(m_unmatched, tr("Unmatched tensors"));
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(m_bottom);
    split->setSizes({600, 260});
    m_failuresOnly->setToolTip(tr("Hide the pairs that pass"));
    m_summary->setOpenExternalLinks(false);
    connect(m_summary, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link == QLatin1String("first-divergent")) openFirstDivergent();
    });
    connect(m_failuresOnly, &QCheckBox::toggled, this, &CompareView::applyFailuresOnly);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& cur) {
                if (cur.isValid()) showDifference(cur.row());
            });
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(grid);
    lay->addLayout(th);
    lay->addLayout(actions);
    lay->addWidget(m_summary);
    lay->addWidget(split, 1);

    connect(m_run, &QPushButton::clicked, this, [this] { compare(m_a->text(), m_b->text()); });
    // Double-click: A's tensor in the HDF5 inspector (statistics, histogram, values).
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& idx) {
        const auto& pairs = m_model->report().pairs;
        if (!idx.isValid() || idx.row() >= static_cast<int>(pairs.size())) return;
        H5FileRegistry::instance()->requestInspect(
            m_a->text(), QString::fromStdString(pairs[static_cast<size_t>(idx.row())].tensor.path));
        m_ctx->requestView(QStringLiteral("hdf5"));
    });
    m_table->setToolTip(tr("Double-click a pair to open A's tensor in the HDF5 view"));
    connect(m_cos, &QDoubleSpinBox::valueChanged, this, &CompareView::applyThresholds);
    connect(m_rel, &QDoubleSpinBox::valueChanged, this, &CompareView::applyThresholds);
    connect(m_abs, &QDoubleSpinBox::valueChanged, this, &CompareView::applyThresholds);
    connect(m_useRel, &QCheckBox::toggled, this, [this](bool on) {
        m_rel->setEnabled(on);
        applyThresholds();
    });
    connect(m_useAbs, &QCheckBox::toggled, this, [this](bool on) {
        m_abs->setEnabled(on);
        applyThresholds();
    });
    connect(m_rule, &QComboBox::currentIndexChanged, this, &CompareView::applyThresholds);
    connect(m_pairing, &QComboBox::currentIndexChanged, this, [this] {
        if (m_generation > 0) compare(m_a->text(), m_b->text());
    });
    connect(m_csv, &QPushButton::clicked, this, [this] {
        const QString p = QFileDialog::getSaveFileName(
            this, tr("Export comparison"), QStringLiteral("compare.csv"), tr("CSV (*.csv)"));
        QString err;
        if (!p.isEmpty() && !exportCsv(p, &err)) m_summary->setText(err.toHtmlEscaped());
    });
    m_summary->setText(tr("Choose two dumps and press Compare."));
    // Until the user picks inputs: the last two HDF5 files opened in the studio, in the
    // order they were opened (`trainscope a.h5 b.h5` compares a with golden b).
    auto prefill = [this] {
        const QStringList files = H5FileRegistry::instance()->files();
        if (m_generation == 0 && m_a->text().isEmpty() && m_b->text().isEmpty() &&
            files.size() >= 2)
            compare(files[files.size() - 2], files.back());
    };
    connect(H5FileRegistry::instance(), &H5FileRegistry::filesChanged, this, prefill);
    prefill();
    followPalette(m_diffPlot);
}

ts::debug::CompareThresholds CompareView::thresholds() const {
    ts::debug::CompareThresholds t;
    t.minCosine = m_cos->value();
    if (m_useRel->isChecked()) t.maxRel = m_rel->value();
    if (m_useAbs->isChecked()) t.maxAbs = m_abs->value();
    t.rule =
        m_rule->currentIndex() == 1 ? ts::debug::PassRule::Combined : ts::debug::PassRule::Cosine;
    return t;
}

ts::debug::DumpPairOptions CompareView::pairing() const {
    ts::debug::DumpPairOptions how;
    how.aligned = m_pairing->currentIndex() > 0;
    how.align.key =
        m_pairing->currentIndex() == 2 ? ts::debug::DumpKey::Scope : ts::debug::DumpKey::Op;
    return how;
}

void CompareView::setPairing(const ts::debug::DumpPairOptions& how) {
    m_pairing->setCurrentIndex(!how.aligned                                 ? 0
                               : how.align.key == ts::debug::DumpKey::Scope ? 2
                                                                            : 1);
}

void CompareView::setThresholds(const ts::debug::CompareThresholds& t) {
    const QSignalBlocker b1(m_cos), b2(m_rel), b3(m_abs), b4(m_useRel), b5(m_useAbs), b6(m_rule);
    m_rule->setCurrentIndex(t.rule == ts::debug::PassRule::Combined ? 1 : 0);
    m_cos->setValue(t.minCosine);
    m_useRel->setChecked(t.maxRel.has_value());
    m_rel->setEnabled(t.maxRel.has_value());
    if (t.maxRel) m_rel->setValue(*t.maxRel);
    m_useAbs->setChecked(t.maxAbs.has_value());
    m_abs->setEnabled(t.maxAbs.has_value());
    if (t.maxAbs) m_abs->setValue(*t.maxAbs);
    applyThresholds();
}

void CompareView::compare(const QString& a, const QString& b) {
    m_a->setText(a);
    m_b->setText(b);
    if (a.isEmpty() || b.isEmpty()) {
        m_summary->setText(tr("Choose two dumps."));
        return;
    }
    const quint64 gen = ++m_generation;
    m_error.clear();
    m_summary->setText(
        tr("Comparing %1 with %2…").arg(QFileInfo(a).fileName(), QFileInfo(b).fileName()));
    m_run->setEnabled(false);
    const auto t = thresholds();
    const auto how = pairing();
    m_ctx->jobs()->run<CompareResult>(
        this, QStringLiteral("compare:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("Comparing %1 with %2").arg(QFileInfo(a).fileName(), QFileInfo(b).fileName()),
        [a, b, t, how](ts::JobControl& jc) { return runCompare(a, b, t, how, jc); },
        [this, gen](CompareResult r) {
            if (gen != m_generation) return;
            m_run->setEnabled(true);
            if (!r.error.isEmpty()) {
                m_error = r.error;
                m_model->setReport({});
                m_unmatched->clear();
                m_csv->setEnabled(false);
                m_summary->setText(QStringLiteral("<span style='color:#c0392b'>%1</span>")
                                       .arg(r.error.toHtmlEscaped()));
                emit compared();
                return;
            }
            m_model->setReport(std::move(r.report));
            m_model->setThresholds(thresholds());
            m_unmatched->clear();
            for (const auto& u : m_model->report().unmatchedA)
                m_unmatched->addItem(tr("only in A: %1").arg(QString::fromStdString(u)));
            for (const auto& u : m_model->report().unmatchedB)
                m_unmatched->addItem(tr("only in B: %1").arg(QString::fromStdString(u)));
            if (m_unmatched->count() == 0)
                m_unmatched->addItem(tr("(none: every tensor has a partner)"));
            m_csv->setEnabled(true);
            m_table->resizeColumnsToContents();
            m_table->horizontalHeader()->setSectionResizeMode(CompareTableModel::Path,
                                                              QHeaderView::Stretch);
            updateSummary();
            applyFailuresOnly();
            // The first divergent pair is selected: its A − B shows below.
            if (const int first = m_model->firstDivergentRow(); first >= 0)
                m_table->selectRow(first);
            emit compared();
        });
}

void CompareView::applyThresholds() {
    if (m_model->rowCount() == 0) return;
    m_model->setThresholds(thresholds());
    updateSummary();
    applyFailuresOnly();
}

void CompareView::applyFailuresOnly() {
    const auto& pairs = m_model->report().pairs;
    const bool only = m_failuresOnly->isChecked();
    for (int r = 0; r < static_cast<int>(pairs.size()); ++r)
        m_table->setRowHidden(r, only && pairs[static_cast<size_t>(r)].pass);
}

bool CompareView::openFirstDivergent() {
    const int first = m_model->firstDivergentRow();
    if (first < 0) return false;
    m_table->selectRow(first);
    m_table->scrollTo(m_model->index(first, 0), QAbstractItemView::PositionAtCenter);
    showDifference(first);
    H5FileRegistry::instance()->requestInspect(
        m_a->text(),
        QString::fromStdString(m_model->report().pairs[static_cast<size_t>(first)].tensor.path));
    m_ctx->requestView(QStringLiteral("hdf5"));
    return true;
}

void CompareView::showDifference(int row) {
    const auto& pairs = m_model->report().pairs;
    if (row < 0 || row >= static_cast<int>(pairs.size())) return;
    const auto& p = pairs[static_cast<size_t>(row)];
    const std::string pathA = p.tensor.path, pathB = p.pathB.empty() ? p.tensor.path : p.pathB;
    m_diffLabel->setText(tr("Computing A − B of %1…").arg(QString::fromStdString(pathA)));
    using Diff = ts::Result<ts::debug::TensorDifference>;
    m_ctx->jobs()->run<Diff>(
        this, QStringLiteral("compare-diff:%1").arg(reinterpret_cast<quintptr>(this)),
        tr("A − B of %1").arg(QString::fromStdString(pathA)),
        [a = m_a->text().toStdString(), b = m_b->text().toStdString(), pathA,
         pathB](ts::JobControl& jc) {
            return ts::debug::tensorDifference(a, pathA, b, pathB, 2000, &jc);
        },
        [this, pathA](Diff r) {
            m_diffPlot->clearGraphs();
            if (!r) {
                m_diffLabel->setText(
                    tr("A − B of %1: %2")
                        .arg(QString::fromStdString(pathA), QString::fromStdString(r.error())));
                m_diffPlot->replot();
                emit differenceShown();
                return;
            }
            const auto& d = r.value();
            QVector<double> x, y;
            for (size_t i = 0; i < d.series.size(); ++i) {
                x << static_cast<double>(i * d.bucketSize);
                y << d.series[i];
            }
            QCPGraph* g = m_diffPlot->addGraph();
            g->setData(x, y, true);
            g->setLineStyle(d.bucketSize > 1 ? QCPGraph::lsImpulse : QCPGraph::lsLine);
            g->setPen(QPen(QColor(0xd6, 0x27, 0x28)));
            m_diffPlot->rescaleAxes();
            m_diffPlot->replot();
            QString text =
                tr("<b>A − B of %1</b>: max |A − B| %2 at element %L3 (A %4, B %5); "
                   "mean %6, RMS %7 over %L8 elements")
                    .arg(QString::fromStdString(pathA).toHtmlEscaped(), numberText(d.maxAbs, 6))
                    .arg(d.maxAt)
                    .arg(numberText(d.aAtMax, 7), numberText(d.bAtMax, 7), numberText(d.mean, 4),
                         numberText(d.rms, 4))
                    .arg(d.count);
            if (d.nonFinite > 0)
                text += tr("; %L1 with NaN/Inf on a side left out").arg(d.nonFinite);
            if (d.bucketSize > 1)
                text += tr(" (each point: the largest of %L1 elements)").arg(d.bucketSize);
            m_diffLabel->setText(text);
            emit differenceShown();
        });
}

void CompareView::updateSummary() {
    const auto& r = m_model->report();
    int pass = 0;
    for (const auto& p : r.pairs) pass += p.pass ? 1 : 0;
    QString s = tr("<b>%1</b> pairs, %2 pass, %3 fail")
                    .arg(r.pairs.size())
                    .arg(pass)
                    .arg(static_cast<int>(r.pairs.size()) - pass);
    const int first = m_model->firstDivergentRow();
    if (first >= 0)
        s += tr(" &nbsp;·&nbsp; First divergent: <a href='first-divergent' "
                "style='color:#c0392b'><b>%1</b></a>")
                 .arg(QString::fromStdString(r.pairs[static_cast<size_t>(first)].tensor.path)
                          .toHtmlEscaped());
    else
        s += tr(" &nbsp;·&nbsp; <b>no pair past the thresholds</b>");
    const auto& rc = r.rootCause;
    if (rc.unit)
        s += tr(" &nbsp;·&nbsp; Root cause: <b style='color:#1f5f99'>%1</b> (inputs agree, an "
                "output disagrees)")
                 .arg(QString::fromStdString(r.unitNamesA[*rc.unit]).toHtmlEscaped());
    else if (!rc.note.empty())
        s += tr("<br>Root cause: none — %1").arg(QString::fromStdString(rc.note).toHtmlEscaped());
    s += tr(" &nbsp;·&nbsp; %1 unmatched").arg(r.unmatchedA.size() + r.unmatchedB.size());
    if (r.pairing == "aligned") s += tr(" &nbsp;·&nbsp; %1 ops paired by alignment").arg(r.units);
    s += tr(" &nbsp;·&nbsp; Order: %1 (%2)")
             .arg(QString::fromLatin1(ts::debug::orderSourceName(r.order)),
                  QString::fromStdString(r.orderDetail).toHtmlEscaped());
    m_summary->setText(s);
    if (first >= 0)
        m_table->scrollTo(m_model->index(first, 0), QAbstractItemView::PositionAtCenter);
}

bool CompareView::exportCsv(const QString& path, QString* error) const {
    // Whole or not at all, and never over one of the dump files compared.
    const auto s =
        ts::writeFileAtomically(path.toStdString(), ts::debug::compareCsv(m_model->report()),
                                {m_a->text().toStdString(), m_b->text().toStdString()});
    if (!s && error) *error = QString::fromStdString(s.error());
    return s.ok();
}
