#include "views/training/training_form.h"

#include <QGroupBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

#include "views/training/training_sections.h"

TrainingForm::TrainingForm(QWidget* parent) : QWidget(parent) {
    auto* content = new QWidget;
    auto* col = new QVBoxLayout(content);
    col->setContentsMargins(4, 4, 4, 4);
    auto addBox = [&](TrainingOptionsSection& s, QWidget* into, QVBoxLayout* layout) {
        auto* box = new QGroupBox(s.title(), into);
        auto* l = new QVBoxLayout(box);
        l->setContentsMargins(6, 6, 6, 6);
        l->addWidget(s.widget());
        layout->addWidget(box);
    };
    m_sections = builtinTrainingSections();
    for (auto& s : m_sections) addBox(*s, content, col);
    const auto& extra = instrumentationSections();
    if (!extra.empty()) {
        auto* group = new QGroupBox(tr("Instrumentation"), content);
        group->setObjectName(QStringLiteral("instrumentationGroup"));
        auto* gl = new QVBoxLayout(group);
        for (const auto& make : extra) {
            m_sections.push_back(make());
            addBox(*m_sections.back(), group, gl);
        }
        col->addWidget(group);
    }
    col->addStretch(1);

    auto* scroll = new QScrollArea(this);
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);
    // Wide enough for every row without a horizontal scroll bar.
    setMinimumWidth(content->minimumSizeHint().width() +
                    scroll->verticalScrollBar()->sizeHint().width() + 4);
}

TrainingForm::~TrainingForm() = default;

bool TrainingForm::options(ts::run::JobOptions* out, QString* error) const {
    ts::run::JobOptions o;
    for (const auto& s : m_sections) {
        const QString why = s->apply(o);
        if (!why.isEmpty()) {
            if (error) *error = why;
            return false;
        }
    }
    *out = std::move(o);
    return true;
}

void TrainingForm::setOptions(const ts::run::JobOptions& o) {
    for (auto& s : m_sections) s->load(o);
}
