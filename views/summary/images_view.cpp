#include "views/summary/images_view.h"

#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QSlider>
#include <QVBoxLayout>

#include "core/store/trace_store.h"
#include "core/summary/summary_values.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

namespace {
constexpr int kMaxImagesPerTag = 400;  // evenly picked when a tag has more

}  // namespace

ImageStrip::ImageStrip(const QString& tag, QWidget* parent)
    : QWidget(parent),
      m_tag(tag),
      m_title(new QLabel(this)),
      m_image(new QLabel(this)),
      m_info(new QLabel(this)),
      m_slider(new QSlider(Qt::Horizontal, this)) {
    setObjectName(QStringLiteral("imageStrip"));
    auto* lay = new QVBoxLayout(this);
    m_title->setText(QStringLiteral("<b>%1</b>").arg(tag.toHtmlEscaped()));
    lay->addWidget(m_title);
    m_image->setMinimumSize(160, 120);
    m_image->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_image->setText(tr("loading…"));
    lay->addWidget(m_image);
    lay->addWidget(m_slider);
    lay->addWidget(m_info);
    connect(m_slider, &QSlider::valueChanged, this, [this](int i) { show(i); });
}

void ImageStrip::setImages(std::vector<int64_t> steps, std::vector<QImage> images, int bad) {
    m_steps = std::move(steps);
    m_images = std::move(images);
    m_bad = bad;
    m_slider->blockSignals(true);
    m_slider->setRange(0, std::max(0, static_cast<int>(m_images.size()) - 1));
    m_slider->setValue(m_slider->maximum());
    m_slider->blockSignals(false);
    m_slider->setEnabled(m_images.size() > 1);
    show(m_slider->value());
}

int64_t ImageStrip::shownStep() const {
    const int i = m_slider->value();
    return i >= 0 && static_cast<size_t>(i) < m_steps.size() ? m_steps[static_cast<size_t>(i)] : -1;
}

void ImageStrip::show(int i) {
    if (i < 0 || static_cast<size_t>(i) >= m_images.size()) {
        m_image->setText(m_bad ? tr("%1 image(s) could not be decoded").arg(m_bad)
                               : tr("no image"));
        m_info->clear();
        return;
    }
    const QImage& img = m_images[static_cast<size_t>(i)];
    // Small images (MNIST's 28x28) are scaled up without smoothing so the pixels stay sharp.
    const int target = 240;
    const int scale = std::max(1, target / std::max(1, std::max(img.width(), img.height())));
    const QImage shown = img.width() * scale > 640
                             ? img.scaled(640, 480, Qt::KeepAspectRatio, Qt::SmoothTransformation)
                             : img.scaled(img.width() * scale, img.height() * scale,
                                          Qt::KeepAspectRatio, Qt::FastTransformation);
    m_image->setPixmap(QPixmap::fromImage(shown));
    m_info->setText(tr("step %1 (%2 of %3) — %4×%5%6")
                        .arg(m_steps[static_cast<size_t>(i)])
                        .arg(i + 1)
                        .arg(m_images.size())
                        .arg(img.width())
                        .arg(img.height())
                        .arg(m_bad ? tr(", %1 could not be decoded").arg(m_bad) : QString()));
}

ImagesView::ImagesView(SessionContext* ctx, QWidget* parent)
    : SummaryKindView(ctx, ts::summary::ValueKind::Image, parent),
      m_scroll(new QScrollArea(this)),
      m_inner(new QWidget(m_scroll)),
      m_rows(new QVBoxLayout(m_inner)),
      m_empty(new QLabel(m_inner)) {
    m_rows->addWidget(m_empty);
    m_rows->addStretch(1);
    m_scroll->setWidget(m_inner);
    m_scroll->setWidgetResizable(true);
    setDisplay(m_scroll);
    // Picking a tag in the list scrolls to its strip.
    connect(tagList(), &QListWidget::currentTextChanged, this, [this](const QString& tag) {
        for (ImageStrip* s : strips())
            if (s->tag() == tag) m_scroll->ensureWidgetVisible(s);
    });
}

QList<ImageStrip*> ImagesView::strips() const {
    return m_inner->findChildren<ImageStrip*>(QString(), Qt::FindDirectChildrenOnly);
}

void ImagesView::showValues(qint64, const QString&, std::vector<ts::summary::StoredValue>) {
    // Every tag has its strip (tagsListed); selecting one only scrolls to it.
}

void ImagesView::showNothing(const QString& message) {
    for (ImageStrip* s : strips()) delete s;
    m_empty->setText(message);
    m_empty->show();
}

void ImagesView::tagsListed(qint64 runId, const QStringList& tags) {
    for (ImageStrip* s : strips()) delete s;
    m_empty->setVisible(tags.isEmpty());
    const quint64 gen = ++m_generation;
    m_pending = static_cast<int>(tags.size());
    struct Decoded {
        std::vector<int64_t> steps;
        std::vector<QImage> images;
        int bad = 0;
    };
    for (const QString& tag : tags) {
        auto* strip = new ImageStrip(tag, m_inner);
        m_rows->insertWidget(m_rows->count() - 1, strip);
        QPointer<ImageStrip> guard(strip);
        context()->jobs()->run<Decoded>(
            this, QString(), tr("Decoding images of %1").arg(tag),
            [s = context()->sessionPath().toStdString(), runId,
             t = tag.toStdString()](ts::JobControl& jc) {
                Decoded out;
                auto st = ts::store::TraceStore::open(s, ts::store::TraceStore::Mode::ReadOnly);
                if (!st) return out;
                auto v = ts::summary::summaryValues(*st.value(), runId,
                                                    ts::summary::ValueKind::Image, t);
                if (!v) return out;
                const size_t n = v->size();
                const size_t stride =
                    std::max<size_t>(1, (n + kMaxImagesPerTag - 1) / kMaxImagesPerTag);
                for (size_t i = 0; i < n && !jc.cancelled(); i += stride) {
                    auto img = ts::summary::decodeImage((*v)[i].data);
                    QImage q;
                    if (img)
                        q.loadFromData(reinterpret_cast<const uchar*>(img->encoded.data()),
                                       static_cast<int>(img->encoded.size()));
                    if (q.isNull()) {
                        ++out.bad;
                        continue;
                    }
                    out.steps.push_back((*v)[i].step);
                    out.images.push_back(std::move(q));
                }
                return out;
            },
            [this, guard, gen](Decoded d) {
                if (guard) guard->setImages(std::move(d.steps), std::move(d.images), d.bad);
                if (gen == m_generation && --m_pending == 0) emit stripsLoaded();
            });
    }
    if (tags.isEmpty()) emit stripsLoaded();
}
