#pragma once
// TrainingProgressWidget: where a run is: a progress bar over its steps, epoch and step,
// samples/s, elapsed time and ETA, the last loss, learning rate and loss scale (with the
// overflow count), and the memory pool's bytes in use and peak.
#include <QWidget>
#include <vector>

#include "core/engine/train/trainer.h"
#include "core/run/command_run.h"

class QLabel;
class QProgressBar;

class TrainingProgressWidget : public QWidget {
    Q_OBJECT
public:
    explicit TrainingProgressWidget(QWidget* parent = nullptr);

    /// A new run: forgets the previous one's rate.
    void reset(const QString& state);
    void setProgress(const ts::engine::TrainProgress& p);
    /// A command run's progress: no total to measure against (the bar is busy), its
    /// processes, lines, last step and loss, and what it has written so far.
    void setCommandProgress(const ts::run::CommandProgress& p);
    /// Labels for an engine run (true) or a command run (false).
    void setEngineMode(bool engine);
    /// The run ended: the bar stays, the state says how.
    void setFinished(const QString& state);

    /// Estimated seconds left (-1 while unknown).
    double etaSeconds() const { return m_eta; }
    QString stepText() const;
    QProgressBar* bar() const { return m_bar; }

    /// "1 h 02 min", "3 min 05 s", "12 s".
    static QString duration(double seconds);
    /// "512 B", "3.4 MiB".
    static QString bytes(qint64 n);

private:
    QProgressBar* m_bar;
    QLabel *m_state, *m_step, *m_rate, *m_time, *m_loss, *m_scale, *m_memory;
    std::vector<QLabel*> m_names;  // the captions above the values
    bool m_engineMode = true;
    qint64 m_firstStep = -1;
    double m_firstElapsed = 0;
    double m_eta = -1;
};
