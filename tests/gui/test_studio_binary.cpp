// The studio binary itself, as a user starts it: without a display it says what to do in one
// line (no Qt plugin abort), while --help and --screenshot work headless.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tests/common/test_support.h"

namespace {

const std::vector<std::string> kNoDisplay = {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"};

}  // namespace

TEST(StudioBinary, WithoutDisplaySaysHowToRunUnderXvfb) {
    const auto r = ts::test::runProgram(TS_STUDIO_BINARY, {}, kNoDisplay);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.err.find("no display"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("xvfb-run -a"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("qt.qpa"), std::string::npos) << r.err;  // no plugin abort
}

TEST(StudioBinary, HelpAndScreenshotNeedNoDisplay) {
    const auto help = ts::test::runProgram(TS_STUDIO_BINARY, {"--help"}, kNoDisplay);
    EXPECT_EQ(help.exitCode, 0) << help.err;
    EXPECT_NE(help.out.find("--screenshot"), std::string::npos);

    const auto dir = ts::test::tempDir("studio_bin");
    ::setenv("XDG_CONFIG_HOME", dir.c_str(), 1);  // window state and recent files go there
    const auto png = dir / "shot.png";
    const auto shot = ts::test::runProgram(
        TS_STUDIO_BINARY, {"--screenshot", png.string(), "--size", "800x600"}, kNoDisplay);
    EXPECT_EQ(shot.exitCode, 0) << shot.err;
    ASSERT_TRUE(std::filesystem::exists(png));
    EXPECT_GT(std::filesystem::file_size(png), 1000u);
}
