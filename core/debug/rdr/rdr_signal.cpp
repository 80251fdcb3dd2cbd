// Fatal-signal handling of the RDR: SIGSEGV, SIGABRT and SIGFPE export the recorder's
// data with async-signal-safe code (writeExport: mkdir/open/write/close on preallocated
// slots, no locks, no malloc), then restore the default action and re-raise.
#include <signal.h>

#include <atomic>

#include "core/debug/rdr/rdr_slots.h"

namespace ts::rdr {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGABRT, SIGFPE};
constexpr size_t kAltStackSize = 256 * 1024;

std::atomic<RunningDataRecorder*> g_recorder{nullptr};
struct sigaction g_previous[3];
alignas(16) char g_altStack[kAltStackSize];
volatile sig_atomic_t g_inHandler = 0;

const char* signalDetail(int sig) {
    switch (sig) {
        case SIGSEGV:
            return "the process received SIGSEGV (invalid memory access) and was terminated";
        case SIGABRT:
            return "the process received SIGABRT (abort) and was terminated";
        case SIGFPE:
            return "the process received SIGFPE (arithmetic error) and was terminated";
        default:
            return "the process received a fatal signal";
    }
}

const char* signalReason(int sig) {
    switch (sig) {
        case SIGSEGV:
            return "signal SIGSEGV";
        case SIGABRT:
            return "signal SIGABRT";
        case SIGFPE:
            return "signal SIGFPE";
        default:
            return "signal";
    }
}

void fatalHandler(int sig) {
    if (!g_inHandler) {
        g_inHandler = 1;
        if (RunningDataRecorder* r = g_recorder.load()) rdrSignalExport(*r, sig);
    }
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    ::raise(sig);
}

}  // namespace

void rdrSignalExport(RunningDataRecorder& r, int sig) {
    if (r.m_slots->enabled.load()) r.writeExport(signalReason(sig), "", signalDetail(sig), sig);
}

void RunningDataRecorder::installFatalSignalHandlers() {
    std::lock_guard lock(m_mutex);
    if (m_handlersInstalled) return;
    stack_t ss{};
    ss.ss_sp = g_altStack;
    ss.ss_size = kAltStackSize;
    ss.ss_flags = 0;
    ::sigaltstack(&ss, nullptr);
    g_recorder = this;
    for (size_t i = 0; i < 3; ++i) {
        struct sigaction sa {};
        sa.sa_handler = fatalHandler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_ONSTACK | SA_NODEFER;
        ::sigaction(kSignals[i], &sa, &g_previous[i]);
    }
    m_handlersInstalled = true;
}

void RunningDataRecorder::uninstallFatalSignalHandlers() {
    std::lock_guard lock(m_mutex);
    if (!m_handlersInstalled) return;
    for (size_t i = 0; i < 3; ++i) ::sigaction(kSignals[i], &g_previous[i], nullptr);
    RunningDataRecorder* self = this;
    g_recorder.compare_exchange_strong(self, nullptr);
    m_handlersInstalled = false;
}

}  // namespace ts::rdr
