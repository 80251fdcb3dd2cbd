// core/ and importers/ never include a Qt header (they build and test without a display).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

namespace fs = std::filesystem;

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
    EXPECT_TRUE(offenders.empty())
        << offenders.size() << " Qt includes, first: " << offenders.front();
}

// Arrows point down only (docs/ARCHITECTURE.md): app -> views -> core, app -> importers ->
// core, views -> importers; core includes none of the others, importers neither views nor app.
TEST(Layering, IncludesPointDownOnly) {
    const std::regex projectInclude(R"(^\s*#\s*include\s*"(app|views|importers|core)/)");
    const std::map<std::string, std::set<std::string>> allowed = {
        {"core", {"core"}},
        {"importers", {"core", "importers"}},
        {"views", {"core", "importers", "views"}},
    };
    std::vector<std::string> offenders;
    for (const auto& [dir, ok] : allowed) {
        for (const auto& e :
             fs::recursive_directory_iterator(fs::path(TRAINSCOPE_SOURCE_DIR) / dir)) {
            const auto ext = e.path().extension();
            if (ext != ".h" && ext != ".cpp") continue;
            std::ifstream in(e.path());
            std::string line;
            std::smatch m;
            while (std::getline(in, line))
                if (std::regex_search(line, m, projectInclude) && !ok.count(m[1].str()))
                    offenders.push_back(e.path().string() + ": " + line);
        }
    }
    EXPECT_TRUE(offenders.empty())
        << offenders.size() << " includes point up, first: " << offenders.front();
}
