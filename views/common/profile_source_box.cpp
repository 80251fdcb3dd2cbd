#include "views/common/profile_source_box.h"

#include <QHBoxLayout>
#include <QLabel>

#include "views/common/job_tracker.h"
#include "views/common/session_context.h"

ProfileSourceBox::ProfileSourceBox(QWidget* parent) : QComboBox(parent) {
    setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(this, &QComboBox::activated, this, [this](int index) {
        if (index >= 0) emit sourceChosen(itemData(index).toLongLong());
    });
}

void ProfileSourceBox::setSources(const std::vector<ts::analysis::ProfileSourceInfo>& sources,
                                  qint64 current) {
    const QSignalBlocker block(this);
    clear();
    for (const auto& s : sources) {
        const QString text =
            tr("#%1 %2 (%3, %n step(s))", nullptr, static_cast<int>(s.steps))
                .arg(s.id)
                .arg(QString::fromStdString(s.label), QString::fromStdString(s.kind));
        addItem(text, QVariant::fromValue<qint64>(s.id));
        if (s.id == current) setCurrentIndex(count() - 1);
    }
}

qint64 ProfileSourceBox::currentSource() const {
    return currentIndex() < 0 ? -1 : currentData().toLongLong();
}

QHBoxLayout* ProfileSourceBox::makeBar(QWidget* owner) {
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Profile:"), owner));
    bar->addWidget(this);
    bar->addStretch(1);
    return bar;
}

void ProfileSourceBox::follow(SessionContext* ctx, QObject* receiver,
                              const std::function<void(qint64)>& reload) {
    connect(this, &ProfileSourceBox::sourceChosen, receiver, reload);
    connect(ctx, &SessionContext::sessionChanged, receiver, [reload] { reload(-1); });
    connect(ctx, &SessionContext::dataChanged, receiver,
            [this, reload] { reload(currentSource()); });
    reload(-1);
}

void loadProfileReport(SessionContext* ctx, QObject* receiver, const QString& tag, qint64 sourceId,
                       std::function<void(const ProfileReportResult&)> done) {
    const std::string path = ctx->sessionPath().toStdString();
    std::optional<int64_t> source;
    if (sourceId >= 0) source = sourceId;
    ctx->jobs()->run<ProfileReportResult>(
        receiver, tag, QObject::tr("Analysing profile"),
        [path, source](ts::JobControl& jc) -> ProfileReportResult {
            if (path.empty()) return ts::Error{"no session open"};
            return ts::analysis::analyzeProfile(path, source, std::nullopt, &jc);
        },
        std::move(done));
}
