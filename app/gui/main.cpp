// trainscope: the studio. `trainscope [FILE...]` opens sessions, traces, dumps and logs;
// with no file it opens the bundled demo session.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSettings>
#include <QTextStream>
#include <QTimer>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "app/gui/command_palette.h"
#include "app/gui/main_window.h"
#include "app/gui/screenshot.h"
#include "app/gui/session_document.h"
#include "app/gui/theme.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/logs/log_level_panel.h"
#include "views/query/query_view.h"
#include "views/timeline/timeline_view.h"
#include "views/training/training_view.h"

namespace {

bool hasArg(int argc, char** argv, std::initializer_list<std::string_view> names) {
    for (int i = 1; i < argc; ++i)
        for (std::string_view n : names)
            if (std::string_view(argv[i]) == n ||
                (n.starts_with("--") &&
                 std::string_view(argv[i]).starts_with(std::string(n) + "=")))
                return true;
    return false;
}

/// Without a display Qt aborts with a page of plugin errors. Help, version and screenshots
/// need no display (they run offscreen); anything else gets one line that says what to do.
bool checkDisplay(int argc, char** argv) {
    if (qEnvironmentVariableIsSet("QT_QPA_PLATFORM") || qEnvironmentVariableIsSet("DISPLAY") ||
        qEnvironmentVariableIsSet("WAYLAND_DISPLAY"))
        return true;
    if (hasArg(argc, argv, {"-h", "--help", "-v", "--version", "--screenshot"})) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        return true;
    }
    std::fputs(
        "trainscope: no display (DISPLAY is not set); run it under Xvfb: xvfb-run -a "
        "trainscope [FILE...] (or save a picture: trainscope --screenshot OUT.png)\n",
        stderr);
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (!checkDisplay(argc, argv)) return 2;
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
    QCommandLineOption range(QStringLiteral("time-range"),
                             QStringLiteral("Time range to show, as START,END in ns (as the "
                                            "session stores them)."),
                             QStringLiteral("START,END"));
    QCommandLineOption tab(QStringLiteral("tab"),
                           QStringLiteral("With --screenshot: the tab of the view to show (e.g. "
                                          "\"Memory\"), or an entry of its mode box (\"Stack "
                                          "samples\")."),
                           QStringLiteral("TITLE"));
    QCommandLineOption delay(QStringLiteral("screenshot-delay"),
                             QStringLiteral("With --screenshot: save after this many seconds "
                                            "instead of when idle (e.g. mid-way through a run)."),
                             QStringLiteral("SECONDS"));
    QCommandLineOption train(QStringLiteral("train"),
                             QStringLiteral("Start a run in the Training panel: its settings, "
                                            "changed by a JSON object of run settings as the "
                                            "session keeps them, e.g. '{\"model\":\"lenet5\"}'."),
                             QStringLiteral("JSON"));

    QCommandLineOption launch(
        QStringLiteral("launch"),
        QStringLiteral("Start a command run in the Training panel's Command tab: a JSON object of "
                       "its settings as the session keeps them, e.g. '{\"program\":\"python3\","
                       "\"args\":[\"train.py\"],\"profile\":true}' (docs/RUNS.md)."),
        QStringLiteral("JSON"));
    QCommandLineOption find(QStringLiteral("find"),
                            QStringLiteral("Select the first timeline slice whose name contains "
                                           "TEXT and zoom to it and its flows."),
                            QStringLiteral("TEXT"));
    QCommandLineOption query(QStringLiteral("query"),
                             QStringLiteral("Open the SQL tab with this read-only statement and "
                                            "run it once the session is open."),
                             QStringLiteral("SQL"));
    QCommandLineOption whole(QStringLiteral("window"),
                             QStringLiteral("With --screenshot and --view: save the whole window "
                                            "with that view in front."));
    QCommandLineOption theme(QStringLiteral("theme"),
                             QStringLiteral("Colour theme for this run: light, dark or system "
                                            "(View > Theme keeps a choice)."),
                             QStringLiteral("NAME"));
    QCommandLineOption open(QStringLiteral("open-dialog"),
                            QStringLiteral("Once the session is open, show one of the studio's "
                                           "dialogs: palette[:QUERY], keys, sessions (for "
                                           "screenshots and links)."),
                            QStringLiteral("NAME"));
    QCommandLineOption search(QStringLiteral("search"),
                              QStringLiteral("Search the timeline for TEXT without zooming (the "
                                             "matches are marked)."),
                              QStringLiteral("TEXT"));
    QCommandLineOption cancelAfter(
        QStringLiteral("cancel-after"),
        QStringLiteral("Press Cancel on the background jobs this many seconds after the first "
                       "import starts (what the studio then says can be saved with "
                       "--screenshot)."),
        QStringLiteral("SECONDS"));
    parser.addOptions({shot, view, size, range, tab, delay, train, launch, find, query, whole,
                       theme, open, search, cancelAfter});
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Files to open."),
                                 QStringLiteral("[FILE...]"));
    parser.process(app);
    {
        QSettings settings;  // log levels saved as default in the log-level panel
        applySavedLogLevels(settings);
    }

    const bool screenshot = parser.isSet(shot);
    app.setProperty("trainscope_headless", screenshot);
    MainWindow window;
    if (parser.isSet(theme)) {
        const QString t = parser.value(theme);
        applyTheme(t == QLatin1String("dark")    ? Theme::Dark
                   : t == QLatin1String("light") ? Theme::Light
                                                 : Theme::System);
    }
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split('x');
        if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
    }
    window.show();
    if (parser.positionalArguments().isEmpty())
        window.openDemo();
    else
        window.openPaths(parser.positionalArguments());
    if (parser.isSet(view)) window.showView(parser.value(view));
    if (parser.isSet(range)) {
        const QStringList se = parser.value(range).split(',');
        bool okA = false, okB = false;
        const qint64 a = se.size() == 2 ? se[0].toLongLong(&okA) : 0;
        const qint64 b = se.size() == 2 ? se[1].toLongLong(&okB) : 0;
        if (okA && okB && b > a)
            window.context()->requestTimeRange(a, b);
        else
            QTextStream(stderr) << "trainscope: --time-range expects START,END in ns\n";
    }
    // Runs `fn` once the session named on the command line (without one, the demo) is open
    // (openPaths and openDemo work on a job), or now when there is none to wait for (a named
    // file that does not exist is not opened).
    auto whenOpen = [&window, &parser](std::function<void()> fn) {
        auto once = std::make_shared<bool>(false);
        auto call = [fn = std::move(fn), once] {
            if (*once) return;
            *once = true;
            fn();
        };
        bool opening = parser.positionalArguments().isEmpty();    // the demo
        for (const QString& path : parser.positionalArguments())  // a missing one is not opened
            opening = opening || QFileInfo::exists(path);
        if (window.context()->sessionPath().isEmpty() && opening) {
            QObject::connect(window.document(), &SessionDocument::sessionOpened, &window, call,
                             Qt::SingleShotConnection);
            QObject::connect(window.document(), &SessionDocument::failed, &window, call,
                             Qt::SingleShotConnection);
        } else {
            call();
        }
    };
    if (parser.isSet(train) || parser.isSet(launch)) {
        // Into the session named on the command line once it is open, else into the demo's.
        whenOpen([&window, &parser, &train, &launch, &view] {
            auto* panel = qobject_cast<TrainingView*>(window.showView(QStringLiteral("training")));
            QString error;
            const bool command = parser.isSet(launch);
            const bool ok = panel && (command ? panel->startCommand(parser.value(launch), &error)
                                              : panel->startTraining(parser.value(train), &error));
            if (!ok) {
                QTextStream(stderr)
                    << (command ? "trainscope: --launch: " : "trainscope: --train: ") << error
                    << "\n";
                QApplication::exit(1);
                return;
            }
            if (parser.isSet(view)) window.showView(parser.value(view));
        });
    }
    if (parser.isSet(query)) {
        whenOpen([&window, &parser, &query, &view] {
            if (auto* q = qobject_cast<QueryView*>(window.showView(QStringLiteral("query")))) {
                q->sqlEdit()->setPlainText(parser.value(query));
                q->run();
            }
            if (parser.isSet(view)) window.showView(parser.value(view));
        });
    }
    if (parser.isSet(open)) {
        whenOpen([&window, &parser, &open] {
            const QString what = parser.value(open);
            if (what.startsWith(QLatin1String("palette"))) {
                window.showPalette();
                if (what.contains(':')) window.preparePalette()->setQuery(what.section(':', 1));
            } else if (what == QLatin1String("keys")) {
                window.showShortcutSheet();
            } else if (what == QLatin1String("sessions")) {
                window.showSessionsDialog();
            }
        });
    }
    if (parser.isSet(search)) {
        if (auto* tl = qobject_cast<TimelineView*>(window.showView(QStringLiteral("timeline"))))
            tl->searchBox()->setText(parser.value(search));  // the search runs when typed
        if (parser.isSet(view)) window.showView(parser.value(view));
    }
    if (parser.isSet(cancelAfter)) {
        // Counted from the start of the first import, so that it lands mid-way through it.
        const int ms = static_cast<int>(parser.value(cancelAfter).toDouble() * 1000);
        auto armed = std::make_shared<bool>(false);
        QObject::connect(window.context()->jobs(), &JobTracker::jobStarted, &window,
                         [&window, ms, armed](quint64, const QString& title) {
                             if (*armed || !title.startsWith(QLatin1String("Importing"))) return;
                             *armed = true;
                             QTimer::singleShot(
                                 ms, &window, [&window] { window.context()->jobs()->cancelAll(); });
                         });
    }
    if (parser.isSet(find)) {
        if (auto* tl = qobject_cast<TimelineView*>(window.showView(QStringLiteral("timeline"))))
            tl->findAndFrame(parser.value(find));
        if (parser.isSet(view)) window.showView(parser.value(view));
    }

    if (screenshot) {
        auto* taker =
            new ScreenshotTaker(&window, parser.value(shot),
                                parser.isSet(whole) ? QString() : parser.value(view), &app);
        if (parser.isSet(tab)) taker->setTab(parser.value(tab));
        if (parser.isSet(delay))
            taker->setMinimumDelay(static_cast<int>(parser.value(delay).toDouble() * 1000));
        QObject::connect(taker, &ScreenshotTaker::done, &app, [](bool ok, const QString& msg) {
            QTextStream(ok ? stdout : stderr) << "trainscope: " << msg << "\n";
            QApplication::exit(ok ? 0 : 1);
        });
        taker->start();
    }
    return app.exec();
}
