#pragma once
// ImagesView (view "images"): the images of a run's summary, a strip per tag (every tag the
// filter lets through): the image at the strip's step, scaled to fit, with a slider over
// the steps that have one and the step and size below. MindSpore's
// ImageSummary / SummaryCollector input_data images and PyTorch's add_image look the same.
// Images decode on a job; the strips are built when the tag list changes.
#include "views/summary/summary_kind_view.h"

#include <QImage>
#include <QPointer>

class QLabel;
class QScrollArea;
class QSlider;
class QVBoxLayout;

class ImageStrip : public QWidget {
    Q_OBJECT
public:
    ImageStrip(const QString& tag, QWidget* parent = nullptr);
    void setImages(std::vector<int64_t> steps, std::vector<QImage> images, int undecodable);
    QSlider* slider() const { return m_slider; }
    QLabel* imageLabel() const { return m_image; }
    const QString& tag() const { return m_tag; }
    int imageCount() const { return static_cast<int>(m_images.size()); }
    /// The step shown.
    int64_t shownStep() const;

private:
    void show(int i);
    QString m_tag;
    QLabel* m_title;
    QLabel* m_image;
    QLabel* m_info;
    QSlider* m_slider;
    std::vector<int64_t> m_steps;
    std::vector<QImage> m_images;
    int m_bad = 0;
};

class ImagesView : public SummaryKindView {
    Q_OBJECT
public:
    explicit ImagesView(SessionContext* ctx, QWidget* parent = nullptr);
    QList<ImageStrip*> strips() const;

signals:
    /// Every strip has its images (after the tag list changed).
    void stripsLoaded();

protected:
    void showValues(qint64 runId, const QString& tag,
                    std::vector<ts::summary::StoredValue> values) override;
    void showNothing(const QString& message) override;
    void tagsListed(qint64 runId, const QStringList& tags) override;

private:
    QScrollArea* m_scroll;
    QWidget* m_inner;
    QVBoxLayout* m_rows;
    QLabel* m_empty;
    int m_pending = 0;
    quint64 m_generation = 0;
};
