#pragma once
// DiffTimelines: A's and B's timelines one above the other in the Diff view, on one time
// scale (the same ns per pixel; zoom or pan either and the other follows, kept on the aligned
// op), with the aligned pairs linked in the band between them (DiffLinkStrip). showOp() zooms
// both to an op in the aligned steps: its first aligned pair, or for an op one side lacks, the
// op and the place of its partner's neighbours. Each side shows only its own source's tracks;
// the session models are loaded on a job and kept per session.
#include <QWidget>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "core/analysis/diff/run_diff.h"
#include "core/timeline/timeline_model.h"

class DiffLinkStrip;
class QLabel;
class SessionContext;
class TimelineCanvas;

class DiffTimelines : public QWidget {
    Q_OBJECT
public:
    explicit DiffTimelines(SessionContext* ctx, QWidget* parent = nullptr);

    /// Shows the op named `name` (a row of the op table) of `diff` in both timelines.
    void showOp(std::shared_ptr<const ts::analysis::RunDiff> diff, const QString& name);
    void clear();

    TimelineCanvas* canvasA() const { return m_canvas[0]; }
    TimelineCanvas* canvasB() const { return m_canvas[1]; }
    DiffLinkStrip* links() const { return m_links; }
    QLabel* status() const { return m_status; }
    /// The pair zoomed to (index into diff.aligned.pairs), -1 when none.
    int64_t focusPair() const { return m_focusPair; }

signals:
    /// Both timelines show the op asked for last (or its failure is in status()).
    void shown();

private:
    struct Focus {
        int64_t pair = -1;
        int64_t sliceId[2] = {0, 0};
        int64_t ts[2] = {0, 0};  // store times of the op (or of its partner's place)
        int64_t dur[2] = {0, 0};
        QString note;
    };
    Focus focusOf(const ts::analysis::RunDiff& d, const std::string& name) const;
    void follow(int from);

    SessionContext* m_ctx;
    TimelineCanvas* m_canvas[2];
    QLabel* m_title[2];
    DiffLinkStrip* m_links;
    QLabel* m_status;
    std::shared_ptr<const ts::analysis::RunDiff> m_diff;
    std::map<std::pair<std::string, int64_t>, std::shared_ptr<const ts::timeline::TimelineModel>>
        m_models;
    int64_t m_origin[2] = {0, 0};
    double m_offset = 0;  // B's model time minus A's at the focus
    int64_t m_focusPair = -1;
    bool m_following = false;
    quint64 m_generation = 0;
};
