#include "app/gui/theme.h"

#include <QApplication>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace {
QPalette& desktopPalette() {
    static QPalette p = QApplication::palette();  // the palette before any theme was applied
    return p;
}
QString& desktopStyle() {
    static QString s = QApplication::style() ? QApplication::style()->name() : QString();
    return s;
}
}  // namespace

Theme savedTheme() {
    const QString v = QSettings().value("view/theme", QStringLiteral("system")).toString();
    if (v == QLatin1String("light")) return Theme::Light;
    if (v == QLatin1String("dark")) return Theme::Dark;
    return Theme::System;
}

void saveTheme(Theme t) {
    QSettings().setValue("view/theme", t == Theme::Light  ? QStringLiteral("light")
                                       : t == Theme::Dark ? QStringLiteral("dark")
                                                          : QStringLiteral("system"));
}

bool desktopPrefersDark() {
    if (desktopPalette().color(QPalette::Window).lightness() < 128) return true;
    return qEnvironmentVariable("GTK_THEME").endsWith(QLatin1String(":dark"), Qt::CaseInsensitive);
}

QPalette darkPalette() {
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x20, 0x24), text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2d));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3d, 0x42));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x94, 0x9a));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x38, 0x3d));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x45, 0x48, 0x4e));
    p.setColor(QPalette::Midlight, QColor(0x3a, 0x3d, 0x42));
    p.setColor(QPalette::Mid, QColor(0x2f, 0x31, 0x36));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1c));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xd6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb0, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb0, 0x8c, 0xff));
    for (QPalette::ColorRole r : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, r, QColor(0x80, 0x83, 0x88));
    return p;
}

bool applyTheme(Theme t) {
    (void)desktopPalette();  // remember the desktop's before changing anything
    (void)desktopStyle();
    const bool dark = t == Theme::Dark || (t == Theme::System && desktopPrefersDark());
    if (dark) {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(darkPalette());
    } else {
        if (!desktopStyle().isEmpty())
            QApplication::setStyle(QStyleFactory::create(desktopStyle()));
        QApplication::setPalette(desktopPalette());
    }
    return dark;
}
