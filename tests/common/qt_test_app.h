#pragma once
// The QApplication a Qt test executable needs, made on first use (the tests run with
// QT_QPA_PLATFORM=offscreen, set by ctest).
#include <QApplication>

namespace ts::test {

inline void ensureQtApp() {
    static int argc = 1;
    static char name[] = "trainscope_test";
    static char* argv[] = {name, nullptr};
    if (!QApplication::instance()) new QApplication(argc, argv);
}

}  // namespace ts::test
