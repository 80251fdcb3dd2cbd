// core/ and importers/ never include a Qt header (they build and test without a display).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

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
