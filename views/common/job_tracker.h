#pragma once
// JobTracker: runs work off the UI thread (Hotspot's JobTracker, RenderDoc's tagged
// async invoke). Each job gets a ts::JobControl for progress and cancel; its result is
// delivered on the UI thread to a QPointer'd receiver, and a newer job with the same tag
// cancels and supersedes an older one (its stale result is dropped).
//
//   ctx->jobs()->run<Model>(this, "timeline-load", tr("Loading timeline"),
//       [path](ts::JobControl& jc) { return loadModel(path, jc); },      // worker thread
//       [this](Model m) { setModel(std::move(m)); });                     // UI thread
#include <QtConcurrent/qtconcurrenttask.h>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <functional>
#include <map>
#include <memory>

#include "core/common/job_control.h"

class JobTracker : public QObject {
    Q_OBJECT
public:
    explicit JobTracker(QObject* parent = nullptr);
    /// Cancels what runs and waits for it (results are dropped).
    ~JobTracker() override;

    struct JobInfo {
        quint64 id = 0;
        QString tag;
        QString title;
        std::shared_ptr<ts::JobControl> control;
    };

    /// `priority`: jobs waiting for a worker start in priority order (higher first), e.g.
    /// the timeline's load before statistics when a big session opens.
    template <class R, class Work, class Done>
    quint64 run(QObject* receiver, const QString& tag, const QString& title, Work work, Done done,
                int priority = 0) {
        return runJob<R>(receiver, tag, title, std::move(work), std::move(done), priority, false);
    }

    /// As run(), but `done` gets the result of a cancelled job too (the job's control says
    /// it was cancelled), so that the caller can say what the cancel undid and what it kept
    /// (an import). A job superseded by a newer one of its tag is still dropped.
    template <class R, class Work, class Done>
    quint64 runToEnd(QObject* receiver, const QString& tag, const QString& title, Work work,
                     Done done, int priority = 0) {
        return runJob<R>(receiver, tag, title, std::move(work), std::move(done), priority, true);
    }

private:
    template <class R, class Work, class Done>
    quint64 runJob(QObject* receiver, const QString& tag, const QString& title, Work work,
                   Done done, int priority, bool deliverCancelled) {
        auto control = std::make_shared<ts::JobControl>();
        const quint64 id = start(tag, title, control);
        QPointer<QObject> guard(receiver);
        QPointer<JobTracker> self(this);
        (void)QtConcurrent::task([=]() mutable {
            R result = work(*control);
            QMetaObject::invokeMethod(
                self ? static_cast<QObject*>(self) : qApp,
                [=, result = std::move(result)]() mutable {
                    const bool current = self && self->finish(id);
                    if (current && guard && (deliverCancelled || !control->cancelled()))
                        done(std::move(result));
                },
                Qt::QueuedConnection);
        })
            .onThreadPool(m_pool)
            .withPriority(priority)
            .spawn();
        return id;
    }

public:
    /// Jobs still running (for the status bar and `--screenshot`, which waits for none).
    const std::map<quint64, JobInfo>& active() const { return m_active; }
    bool idle() const { return m_active.empty(); }
    void cancel(quint64 id);
    void cancelAll();

signals:
    void jobStarted(quint64 id, const QString& title);
    void jobFinished(quint64 id);
    void idleChanged(bool idle);

private:
    quint64 start(const QString& tag, const QString& title, std::shared_ptr<ts::JobControl> c);
    bool finish(quint64 id);

    // Its own workers: jobs mix I/O and CPU, and a slow one (a summary scanning millions of
    // rows) must not keep others (the timeline's load) waiting for one of the 2 global ones.
    QThreadPool m_pool;
    quint64 m_next = 1;
    std::map<quint64, JobInfo> m_active;
    std::map<QString, quint64> m_latestByTag;
};
