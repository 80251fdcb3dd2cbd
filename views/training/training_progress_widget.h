#pragma once
// TrainingProgressWidget: where a run is: a progress bar over its steps, epoch and step,
// samples/s, elapsed time and ETA, the last loss, learning rate and loss scale (with the
// overflow count), and the memory pool's bytes in use and peak.
#include <QWidget>

#include "core/engine/trainer.h"

class QLabel;
class QProgressBar;

class TrainingProgressWidget : public QWidget {
    Q_OBJECT
public:
    explicit TrainingProgressWidget(QWidget* parent = nullptr);

    /// A new run: forgets the previous one's rate.
    void reset(const QString& state);
    void setProgress(const ts::engine::TrainProgress& p);
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
    qint64 m_firstStep = -1;
    double m_firstElapsed = 0;
    double m_eta = -1;
};
