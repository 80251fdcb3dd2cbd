#pragma once
// The studio's colour theme (issue 26, item 19): light or dark for every widget, the
// timeline canvas and the plots (they follow the palette: TimelineColors, plot_theme.h),
// following the desktop's setting by default and switchable in View > Theme. Kept in
// QSettings ("view/theme": system | light | dark).
#include <QPalette>
#include <QString>

enum class Theme { System, Light, Dark };

Theme savedTheme();
void saveTheme(Theme t);
/// Whether the desktop asks for dark colours: its palette (a dark platform theme), or
/// GTK_THEME naming a dark variant ("Adwaita:dark").
bool desktopPrefersDark();
/// Applies `t` to the whole application (Fusion style with a dark palette, or the
/// desktop's own palette); returns whether the result is dark.
bool applyTheme(Theme t);
QPalette darkPalette();
