#include "views/common/empty_state.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>

#include "views/common/session_context.h"

EmptyState::EmptyState(SessionContext* ctx, QWidget* parent)
    : QWidget(parent), m_ctx(ctx), m_title(new QLabel(this)), m_text(new QLabel(this)) {
    setObjectName(QStringLiteral("emptyState"));
    auto* layout = new QVBoxLayout(this);
    layout->addStretch(1);
    QFont f = m_title->font();
    f.setPointSizeF(f.pointSizeF() * 1.3);
    f.setBold(true);
    m_title->setFont(f);
    m_title->setAlignment(Qt::AlignHCenter);
    m_title->setWordWrap(true);
    m_text->setAlignment(Qt::AlignHCenter);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    layout->setContentsMargins(40, 20, 40, 20);
    layout->addWidget(m_title);
    layout->addWidget(m_text);  // full width: a wrapped label aligned in a layout gets cut
    m_buttons = new QHBoxLayout;
    m_buttons->addStretch(1);
    m_buttons->addStretch(1);
    layout->addSpacing(8);
    layout->addLayout(m_buttons);
    layout->addStretch(2);
}

void EmptyState::setContent(const QString& title, const QString& text,
                            const std::vector<Button>& buttons) {
    m_title->setText(title);
    m_text->setText(text);
    while (m_buttons->count() > 2) {
        QLayoutItem* item = m_buttons->takeAt(1);
        delete item->widget();
        delete item;
    }
    int at = 1;
    for (const auto& [label, action] : buttons) {
        auto* b = new QPushButton(label, this);
        connect(b, &QPushButton::clicked, this,
                [this, action = action] { m_ctx->requestAction(action); });
        m_buttons->insertWidget(at++, b);
    }
}

QString EmptyState::title() const {
    return m_title->text();
}

QString EmptyState::text() const {
    return m_text->text();
}

QStringList EmptyState::buttonTexts() const {
    QStringList out;
    for (int i = 0; i < m_buttons->count(); ++i)
        if (auto* b = qobject_cast<QPushButton*>(m_buttons->itemAt(i)->widget())) out << b->text();
    return out;
}

bool EmptyState::click(const QString& text) {
    for (int i = 0; i < m_buttons->count(); ++i)
        if (auto* b = qobject_cast<QPushButton*>(m_buttons->itemAt(i)->widget());
            b && b->text() == text) {
            b->click();
            return true;
        }
    return false;
}

std::vector<EmptyState::Button> EmptyState::profileButtons() {
    return {{tr("Open a PyTorch trace…"), QStringLiteral("open")},
            {tr("Launch a script with the profiler on…"), QStringLiteral("launch-profiled")},
            {tr("Train the built-in engine with --profile"), QStringLiteral("train-profiled")}};
}

void EmptyStatePages::showEmpty(bool isEmpty) const {
    stack->setCurrentWidget(isEmpty ? static_cast<QWidget*>(empty) : content);
}

EmptyStatePages addEmptyStatePages(SessionContext* ctx, QWidget* view) {
    EmptyStatePages p;
    auto* outer = new QVBoxLayout(view);
    outer->setContentsMargins(0, 0, 0, 0);
    p.stack = new QStackedWidget(view);
    outer->addWidget(p.stack);
    p.empty = new EmptyState(ctx, p.stack);
    p.content = new QWidget(p.stack);
    p.stack->addWidget(p.content);
    p.stack->addWidget(p.empty);
    p.stack->setCurrentWidget(p.content);
    return p;
}

bool isNoProfileError(const QString& error) {
    return error.startsWith(QLatin1String("no profile in this session"));
}

void showNoProfile(EmptyState* empty, const QString& what) {
    empty->setContent(
        QObject::tr("No profile to show %1 for").arg(what),
        QObject::tr("A profile is a trace with steps: open one written by torch.profiler "
                    "(<i>*.pt.trace.json</i>, with <code>schedule</code> and "
                    "<code>prof.step()</code>), launch your training script with the "
                    "profiler on, or train the built-in engine with Profile ticked "
                    "(<code>trainscope-cli train --profile</code>)."),
        EmptyState::profileButtons());
}
