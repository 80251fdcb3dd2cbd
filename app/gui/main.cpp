// trainscope: the studio. `trainscope [FILE...]` opens sessions, traces, dumps and logs;
// with no file it opens the bundled demo session.
#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>

#include "app/gui/main_window.h"
#include "app/gui/screenshot.h"
#include "views/timeline/timeline_view.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TrainScope"));
    QApplication::setApplicationName(QStringLiteral("TrainScope"));
    QApplication::setApplicationVersion(QStringLiteral(TRAINSCOPE_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "TrainScope: timelines, op statistics, loss curves, tensor dumps, crash records and "
        "logs for neural-network training."));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption shot(QStringLiteral("screenshot"),
                            QStringLiteral("Load, wait for every background job, save the window "
                                           "(or --view) as a PNG and exit."),
                            QStringLiteral("OUT.png"));
    QCommandLineOption view(QStringLiteral("view"), QStringLiteral("View to show (e.g. timeline)."),
                            QStringLiteral("NAME"));
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size WxH."),
                            QStringLiteral("WxH"));
    QCommandLineOption find(QStringLiteral("find"),
                            QStringLiteral("Select the first timeline slice whose name contains "
                                           "TEXT and zoom to it and its flows."),
                            QStringLiteral("TEXT"));
    parser.addOptions({shot, view, size, find});
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Files to open."),
                                 QStringLiteral("[FILE...]"));
    parser.process(app);

    const bool screenshot = parser.isSet(shot);
    app.setProperty("trainscope_headless", screenshot);
    MainWindow window;
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split('x');
        if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
    } else if (screenshot) {
        window.resize(1600, 950);
    }
    window.show();
    if (parser.positionalArguments().isEmpty()) window.openDemo();
    else window.openPaths(parser.positionalArguments());
    if (parser.isSet(view)) window.showView(parser.value(view));
    if (parser.isSet(find)) {
        if (auto* tl = qobject_cast<TimelineView*>(window.showView(QStringLiteral("timeline"))))
            tl->findAndFrame(parser.value(find));
        if (parser.isSet(view)) window.showView(parser.value(view));
    }

    if (screenshot) {
        auto* taker = new ScreenshotTaker(&window, parser.value(shot), parser.value(view), &app);
        QObject::connect(taker, &ScreenshotTaker::done, &app, [](bool ok, const QString& msg) {
            QTextStream(ok ? stdout : stderr) << "trainscope: " << msg << "\n";
            QApplication::exit(ok ? 0 : 1);
        });
        taker->start();
    }
    return app.exec();
}
