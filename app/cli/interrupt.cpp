#include "app/cli/interrupt.h"

#include <csignal>

#include "app/cli/command.h"

namespace ts::cli {
namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<JobControl*> g_control{nullptr};

void onInterrupt(int) {
    g_interrupted.store(true);
    if (JobControl* c = g_control.load()) c->cancel();  // a lock-free atomic store
}

}  // namespace

CancelOnInterrupt::CancelOnInterrupt(JobControl* control) {
    g_control.store(control);
    m_previous = std::signal(SIGINT, &onInterrupt);
}

CancelOnInterrupt::~CancelOnInterrupt() {
    std::signal(SIGINT, m_previous);
    g_control.store(nullptr);
}

const std::atomic<bool>* CancelOnInterrupt::flag() {
    return &g_interrupted;
}

void throwIfInterrupted() {
    if (g_interrupted.load()) throw CliError{"interrupted (Ctrl-C)", 130};
}

}  // namespace ts::cli
