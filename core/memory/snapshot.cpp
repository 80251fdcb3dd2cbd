#include "core/memory/snapshot.h"

#include <cstdio>

namespace ts::memory {

const char* blockStateName(BlockState s) {
    switch (s) {
        case BlockState::ActiveAllocated:
            return "active_allocated";
        case BlockState::ActivePendingFree:
            return "active_pending_free";
        case BlockState::Inactive:
            return "inactive";
        case BlockState::Unknown:
            return "unknown";
    }
    return "unknown";
}

const char* actionName(Action a) {
    switch (a) {
        case Action::Alloc:
            return "alloc";
        case Action::FreeRequested:
            return "free_requested";
        case Action::FreeCompleted:
            return "free_completed";
        case Action::SegmentAlloc:
            return "segment_alloc";
        case Action::SegmentFree:
            return "segment_free";
        case Action::SegmentMap:
            return "segment_map";
        case Action::SegmentUnmap:
            return "segment_unmap";
        case Action::Snapshot:
            return "snapshot";
        case Action::Oom:
            return "oom";
        case Action::Unknown:
            return "unknown";
    }
    return "unknown";
}

bool Snapshot::hasTimes() const {
    for (const auto& d : devices)
        for (const auto& e : d)
            if (e.timeUs >= 0) return true;
    return false;
}

size_t Snapshot::eventCount() const {
    size_t n = 0;
    for (const auto& d : devices) n += d.size();
    return n;
}

std::string sizeText(int64_t bytes) {
    static constexpr const char* kUnits[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
    double v = static_cast<double>(bytes);
    for (const char* u : kUnits) {
        if (v > -1024.0 && v < 1024.0) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.1f%sB", v, u);
            return buf;
        }
        v /= 1024.0;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1fEiB", v);
    return buf;
}

namespace {

bool isPython(std::string_view file) {
    return file.size() > 3 && file.substr(file.size() - 3) == ".py";
}

/// A C++ function's name without its parameter list: "at::native::mm_out(at::Tensor&)" ->
/// "at::native::mm_out" ("(anonymous namespace)" inside the name stays).
std::string_view withoutParameters(std::string_view name) {
    if (name.empty() || name.back() != ')') return name;
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
        if (name[i] == ')') ++depth;
        if (name[i] == '(' && --depth == 0) return name.substr(0, i);
    }
    return name;
}

std::string_view baseName(std::string_view file) {
    if (auto slash = file.rfind('/'); slash != std::string_view::npos)
        return file.substr(slash + 1);
    return file;
}

}  // namespace

std::string frameText(const Snapshot& s, const Frame& f, bool full) {
    const std::string_view file = s.str(f.filename), name = s.str(f.name);
    if (isPython(file) || f.line > 0)
        return std::string(full ? file : baseName(file)) + ":" + std::to_string(f.line) + ":" +
               std::string(name);
    std::string out(full ? name : withoutParameters(name));
    if (!file.empty() && file != "??") out += " (" + std::string(baseName(file)) + ")";
    return out;
}

bool frameShown(const Snapshot& s, const Frame& f) {
    static constexpr std::string_view kOmitFunctions[] = {
        "unwind::unwind",    "CapturedTraceback::gather",
        "gather_with_cpp",   "_start",
        "__libc_start_main", "PyEval_",
        "PyObject_",         "PyFunction_"};
    static constexpr std::string_view kOmitFiles[] = {"core/boxing",
                                                      "/Register",
                                                      "/Redispatch",
                                                      "pythonrun.c",
                                                      "Modules/main.c",
                                                      "Objects/call.c",
                                                      "Objects/methodobject.c",
                                                      "pycore_ceval.h",
                                                      "ceval.c",
                                                      "cpython/abstract.h"};
    const std::string_view name = s.str(f.name), file = s.str(f.filename);
    for (auto o : kOmitFunctions)
        if (name.find(o) != std::string_view::npos) return false;
    for (auto o : kOmitFiles)
        if (file.find(o) != std::string_view::npos) return false;
    return true;
}

std::vector<const Frame*> shownFrames(const Snapshot& s, uint32_t stack) {
    std::vector<const Frame*> out;
    if (stack + 1 >= s.stackOffsets.size()) return out;
    for (size_t i = 0; i < s.stackSize(stack); ++i) {
        const Frame& f = s.frameAt(stack, i);
        if (frameShown(s, f)) out.push_back(&f);
    }
    return out;
}

namespace {

bool isTorchOwn(std::string_view file) {
    return file.find("/torch/") != std::string_view::npos ||
           file.find("site-packages/") != std::string_view::npos ||
           file.find("dist-packages/") != std::string_view::npos ||
           file.find("/lib/python3") != std::string_view::npos;
}

}  // namespace

const Frame* siteFrame(const Snapshot& s, uint32_t stack) {
    if (stack + 1 >= s.stackOffsets.size() || s.stackSize(stack) == 0) return nullptr;
    const Frame* firstPython = nullptr;
    const Frame* firstShown = nullptr;
    for (size_t i = 0; i < s.stackSize(stack); ++i) {
        const Frame& f = s.frameAt(stack, i);
        const std::string_view file = s.str(f.filename);
        if (isPython(file)) {
            if (!isTorchOwn(file)) return &f;
            if (!firstPython) firstPython = &f;
        }
        if (!firstShown && frameShown(s, f)) firstShown = &f;
    }
    if (firstPython) return firstPython;
    // C++ only (the autograd engine's threads): the autograd node, else the op, else the
    // first frame outside the allocator's own machinery.
    const Frame* op = nullptr;
    const Frame* outside = nullptr;
    for (size_t i = 0; i < s.stackSize(stack); ++i) {
        const Frame& f = s.frameAt(stack, i);
        const std::string_view name = s.str(f.name);
        if (name.find("autograd::generated::") != std::string_view::npos &&
            name.find("::apply(") != std::string_view::npos)
            return &f;
        if (!op && name.rfind("at::native::", 0) == 0) op = &f;
        if (!outside && frameShown(s, f) &&
            name.find("CachingAllocator") == std::string_view::npos &&
            name.find("at::detail::empty") == std::string_view::npos &&
            name.find("empty_cuda") == std::string_view::npos)
            outside = &f;
    }
    if (op) return op;
    if (outside) return outside;
    return firstShown ? firstShown : &s.frameAt(stack, 0);
}

}  // namespace ts::memory
