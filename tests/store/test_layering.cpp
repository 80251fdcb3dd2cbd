// The house rules of docs/ARCHITECTURE.md, checked on the source tree: core/ and importers/
// include no Qt header; includes point down the floors (app -> views -> importers -> core);
// inside core, a room includes only rooms of lower floors; a view includes itself,
// views/common and the widgets declared shared below.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Include {
    std::string file;  // relative to the source tree, e.g. "core/run/command_run.cpp"
    std::string line;
    std::string target;  // the quoted path, e.g. "core/store/trace_store.h"
};

/// Every project include (#include "core/..." and the like) of the C++ files below `dir`.
std::vector<Include> projectIncludes(const std::string& dir) {
    const std::regex quoted(R"re(^\s*#\s*include\s*"((app|views|importers|core)/[^"]+)")re");
    const fs::path root(TRAINSCOPE_SOURCE_DIR);
    std::vector<Include> out;
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
        const auto ext = e.path().extension();
        if (ext != ".h" && ext != ".cpp" && ext != ".cu") continue;
        std::ifstream in(e.path());
        std::string line;
        std::smatch m;
        while (std::getline(in, line))
            if (std::regex_search(line, m, quoted))
                out.push_back({fs::relative(e.path(), root).generic_string(), line, m[1].str()});
    }
    return out;
}

std::string describe(const std::vector<std::string>& offenders) {
    std::string s;
    for (size_t i = 0; i < offenders.size() && i < 10; ++i) s += "\n  " + offenders[i];
    return s;
}

// The floors of core, lowest first (docs/ARCHITECTURE.md draws them). A room is a folder of
// core; where a folder holds rooms on different floors, the sub-folder is named (the longest
// prefix wins). A file may include its own room and the rooms of lower floors, never a room
// of its own floor or above. A new room gets a floor here before it gets code.
const std::vector<std::vector<std::string>> kCoreFloors = {
    // the ground: results, the clock, paths, the GPU library lookup, text, jobs
    {"core/common"},
    // no store below them: the HDF5 reader, the logger and log parsers, the process group,
    // checkpoint headers, the message classes of other tools' formats (generated)
    {"core/hdf5", "core/log", "core/dist", "core/checkpoint_info", "core/proto"},
    // the session file
    {"core/store"},
    // readers and writers of the store; the device-side analyses of a profile (GPU overview,
    // kernels, HTA, collectives, Ascend's tables)
    {"core/log_store", "core/timeline", "core/curves", "core/session", "core/export/chrome",
     "core/profiler/gpu", "core/analysis/gpu"},
    // the CUPTI collector (over the activity format), memory snapshots and memory by op (over
    // the timeline's op statistics)
    {"core/profiler/cuda", "core/memory"},
    // profile analysis (over the timeline; names live blocks through core/memory)
    {"core/analysis/profile"},
    // the engine (all of its rooms and its CUDA backend); cluster and diff analysis
    {"core/engine", "core/analysis/cluster", "core/analysis/diff"},
    // observers of the engine: debugging (dumps, overflow, crash records; MindSpore's dumps
    // and crash records), the profiler, ONNX; summary files (over the engine's TFRecord framing
    // and half floats)
    {"core/debug", "core/profiler", "core/export/onnx", "core/summary"},
    // runs: an engine run or a command run, recorded
    {"core/run"},
};

std::map<std::string, int> coreFloorOf() {
    std::map<std::string, int> floor;
    for (size_t f = 0; f < kCoreFloors.size(); ++f)
        for (const std::string& room : kCoreFloors[f]) floor[room] = static_cast<int>(f);
    return floor;
}

/// The room of a path under core/ (the longest listed prefix), or nullopt.
std::optional<std::string> coreRoomOf(const std::map<std::string, int>& floors,
                                      const std::string& path) {
    std::optional<std::string> best;
    for (const auto& [room, f] : floors)
        if (path.rfind(room + "/", 0) == 0 && (!best || room.size() > best->size())) best = room;
    return best;
}

// Widgets one view embeds from another, declared here so that every other cross-view include
// fails: the Training view shows the Curves view of its runs; the Diff view draws two
// timelines with the Timeline view's canvas; the Summary tensors and MindSpore dump views
// show a tensor in the dumps' dataset panel. Anything else several views share lives in
// views/common.
const std::set<std::string> kSharedViewHeaders = {
    "views/curves/curves_view.h",
    "views/timeline/timeline_canvas.h",
    "views/dumps/common/dataset_panel.h",
};

/// "views/<name>" for a path below views/.
std::string viewOf(const std::string& path) {
    const size_t a = path.find('/');
    const size_t b = path.find('/', a + 1);
    return path.substr(0, b);
}

}  // namespace

TEST(Layering, CoreAndImportersIncludeNoQt) {
    const std::regex qtInclude(R"(^\s*#\s*include\s*[<"](Q[A-Za-z]+|Qt[A-Za-z]*/)[^>"]*[>"])");
    std::vector<std::string> offenders;
    for (const char* dir : {"core", "importers"}) {
        for (const auto& e :
             fs::recursive_directory_iterator(fs::path(TRAINSCOPE_SOURCE_DIR) / dir)) {
            const auto ext = e.path().extension();
            if (ext != ".h" && ext != ".cpp" && ext != ".hpp") continue;
            std::ifstream in(e.path());
            std::string line;
            while (std::getline(in, line))
                if (std::regex_search(line, qtInclude))
                    offenders.push_back(e.path().string() + ": " + line);
        }
    }
    EXPECT_TRUE(offenders.empty()) << offenders.size() << " Qt includes:" << describe(offenders);
}

// Arrows point down only (docs/ARCHITECTURE.md): app -> views -> core, app -> importers ->
// core, views -> importers; core includes none of the others, importers neither views nor app.
TEST(Layering, IncludesPointDownOnly) {
    const std::map<std::string, std::set<std::string>> allowed = {
        {"core", {"core"}},
        {"importers", {"core", "importers"}},
        {"views", {"core", "importers", "views"}},
    };
    std::vector<std::string> offenders;
    for (const auto& [dir, ok] : allowed)
        for (const Include& i : projectIncludes(dir))
            if (!ok.count(i.target.substr(0, i.target.find('/'))))
                offenders.push_back(i.file + ": " + i.line);
    EXPECT_TRUE(offenders.empty())
        << offenders.size() << " includes point up:" << describe(offenders);
}

// Inside core, a room includes only its own room and the rooms of lower floors.
TEST(Layering, CoreRoomsIncludeOnlyLowerFloors) {
    const auto floors = coreFloorOf();
    std::vector<std::string> offenders;
    std::set<std::string> unplaced;
    for (const Include& i : projectIncludes("core")) {
        const auto from = coreRoomOf(floors, i.file);
        const auto to = coreRoomOf(floors, i.target);
        if (!from) unplaced.insert(i.file.substr(0, i.file.rfind('/')));
        if (!to) unplaced.insert(i.target.substr(0, i.target.rfind('/')));
        if (!from || !to || *from == *to) continue;
        if (floors.at(*to) >= floors.at(*from))
            offenders.push_back(i.file + " (" + *from + ", floor " +
                                std::to_string(floors.at(*from)) + "): " + i.line + " (" + *to +
                                ", floor " + std::to_string(floors.at(*to)) + ")");
    }
    std::vector<std::string> u(unplaced.begin(), unplaced.end());
    EXPECT_TRUE(u.empty()) << u.size()
                           << " folders of core are on no floor (kCoreFloors):" << describe(u);
    EXPECT_TRUE(offenders.empty())
        << offenders.size()
        << " includes of a room on the same or a higher floor:" << describe(offenders);
}

// A view includes its own folder, views/common and the declared shared widgets; views/common
// includes no view.
TEST(Layering, ViewsIncludeThemselvesCommonAndDeclaredSharedWidgets) {
    std::vector<std::string> offenders;
    for (const Include& i : projectIncludes("views")) {
        if (i.target.rfind("views/", 0) != 0) continue;
        const std::string own = viewOf(i.file);
        const std::string target = viewOf(i.target);
        const bool ok = target == own || target == "views/common" ||
                        (own != "views/common" && kSharedViewHeaders.count(i.target));
        if (!ok) offenders.push_back(i.file + ": " + i.line);
    }
    EXPECT_TRUE(offenders.empty())
        << offenders.size() << " includes of another view:" << describe(offenders);
}

// The declared shared widgets exist (a renamed one must be renamed here too).
TEST(Layering, DeclaredSharedViewHeadersExist) {
    for (const std::string& h : kSharedViewHeaders)
        EXPECT_TRUE(fs::is_regular_file(fs::path(TRAINSCOPE_SOURCE_DIR) / h)) << h;
}

// Every floor names rooms that exist.
TEST(Layering, CoreFloorsNameExistingRooms) {
    for (const auto& floor : kCoreFloors)
        for (const std::string& room : floor)
            EXPECT_TRUE(fs::is_directory(fs::path(TRAINSCOPE_SOURCE_DIR) / room)) << room;
}
