#include "views/summary/tensors_view.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>

#include "core/debug/dump_writer.h"
#include "core/debug/msdump/tensor_to_h5.h"
#include "core/summary/summary_values.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/dumps/common/dataset_panel.h"

TensorsView::TensorsView(SessionContext* ctx, QWidget* parent)
    : SummaryKindView(ctx, ts::summary::ValueKind::Tensor, parent),
      m_step(new QSlider(Qt::Horizontal, this)),
      m_stepInfo(new QLabel(this)),
      m_panel(new DatasetPanel(ctx->jobs(), this)) {
    auto* w = new QWidget(this);
    auto* lay = new QVBoxLayout(w);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Step:"), w));
    bar->addWidget(m_step, 1);
    bar->addWidget(m_stepInfo);
    lay->addLayout(bar);
    lay->addWidget(m_panel, 1);
    setDisplay(w);
    connect(m_step, &QSlider::valueChanged, this, [this](int i) { showStep(i); });
}

QString TensorsView::stepText() const {
    return m_stepInfo->text();
}

void TensorsView::showNothing(const QString& message) {
    m_values.clear();
    m_step->setRange(0, 0);
    m_stepInfo->clear();
    m_panel->showMessage(message);
}

void TensorsView::showValues(qint64, const QString& tag,
                             std::vector<ts::summary::StoredValue> values) {
    m_tag = tag;
    m_values = std::move(values);
    m_step->blockSignals(true);
    m_step->setRange(0, std::max(0, static_cast<int>(m_values.size()) - 1));
    m_step->setValue(m_step->maximum());
    m_step->blockSignals(false);
    showStep(m_step->value());
}

void TensorsView::showStep(int i) {
    if (i < 0 || static_cast<size_t>(i) >= m_values.size()) {
        m_panel->showMessage(tr("No tensor."));
        emit tensorShown();
        return;
    }
    if (!m_scratch.isValid()) {
        m_panel->showMessage(
            tr("No scratch folder for the tensor: %1").arg(m_scratch.errorString()));
        emit tensorShown();
        return;
    }
    const auto& v = m_values[static_cast<size_t>(i)];
    m_stepInfo->setText(tr("step %1 (%2 of %3)").arg(v.step).arg(i + 1).arg(m_values.size()));
    struct Written {
        QString file, error;
    };
    const QString file = m_scratch.filePath(QStringLiteral("tensor_%1.h5").arg(++m_files));
    context()->jobs()->run<Written>(
        this, QStringLiteral("tensor-scratch"), tr("Decoding %1").arg(m_tag),
        [file, data = v.data, step = v.step, tag = m_tag.toStdString()](ts::JobControl&) {
            Written out;
            auto t = ts::summary::decodeTensor(data);
            if (!t) {
                out.error = QString::fromStdString(t.error());
                return out;
            }
            ts::debug::DumpWriter w;
            if (auto s = w.open(file.toStdString()); !s) {
                out.error = QString::fromStdString(s.error());
                return out;
            }
            ts::debug::DumpTensorAttrs attrs;
            attrs.opType = "summary_tensor";
            attrs.scope = tag;
            attrs.step = step;
            if (auto s = ts::debug::msdump::writeValues(w, "value", step, "output", 0, t->dims,
                                                        t->dtype, t->values, attrs);
                !s) {
                out.error = QString::fromStdString(s.error());
                return out;
            }
            (void)w.close();
            out.file = file;
            return out;
        },
        [this, step = v.step](Written w) {
            if (!w.error.isEmpty()) {
                m_panel->showMessage(
                    tr("Cannot show the tensor of step %1: %2").arg(step).arg(w.error));
                emit tensorShown();
                return;
            }
            auto f = ts::h5::File::open(w.file.toStdString());
            if (!f) {
                m_panel->showMessage(QString::fromStdString(f.error()));
                emit tensorShown();
                return;
            }
            m_panel->showObject(std::make_shared<const ts::h5::File>(std::move(f.value())),
                                QStringLiteral("value/%1/output/0").arg(step));
            emit tensorShown();
        });
}
