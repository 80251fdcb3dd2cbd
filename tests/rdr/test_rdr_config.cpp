// RDR configuration rules, case by case: file vs environment, modes, paths, rank.
#include <gtest/gtest.h>

#include "core/debug/rdr/rdr_config.h"

using ts::rdr::EnvMap;
using ts::rdr::parseRdrConfig;

namespace {

const char* kFile = R"({"rdr": {"enable": true, "mode": 1, "path": "/abs/dir"}})";

TEST(RdrConfig, DefaultsAreDisabledModeOne) {
    auto c = parseRdrConfig(std::nullopt, {});
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_FALSE(c->enable);
    EXPECT_EQ(c->mode, 1);
    EXPECT_EQ(c->rankId, 0);
    EXPECT_FALSE(c->exportsOn(true));
}

TEST(RdrConfig, FileAlone) {
    auto c = parseRdrConfig(std::string(kFile), {});
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_TRUE(c->enable);
    EXPECT_EQ(c->mode, 1);
    EXPECT_EQ(c->path, "/abs/dir");
    EXPECT_EQ(c->exportDir(), "/abs/dir/rank_0/rdr");
}

TEST(RdrConfig, EnvAlone) {
    auto c = parseRdrConfig(std::nullopt,
                            {{"MS_RDR_ENABLE", "1"}, {"MS_RDR_MODE", "2"}, {"MS_RDR_PATH", "/e/"}});
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_TRUE(c->enable);
    EXPECT_EQ(c->mode, 2);
    EXPECT_EQ(c->exportDir(), "/e/rank_0/rdr");
}

TEST(RdrConfig, FileWinsOverEnvironmentFieldByField) {
    EnvMap env{{"MS_RDR_ENABLE", "0"}, {"MS_RDR_MODE", "2"}, {"MS_RDR_PATH", "/from/env"}};
    auto c = parseRdrConfig(std::string(kFile), env);
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_TRUE(c->enable);
    EXPECT_EQ(c->mode, 1);
    EXPECT_EQ(c->path, "/abs/dir");
    // A field the file leaves out comes from the environment.
    auto partial = parseRdrConfig(std::string(R"({"rdr": {"enable": true}})"), env);
    ASSERT_TRUE(partial.ok()) << partial.error();
    EXPECT_TRUE(partial->enable);
    EXPECT_EQ(partial->mode, 2);
    EXPECT_EQ(partial->path, "/from/env");
    // The file can switch off what the environment switched on.
    auto off = parseRdrConfig(std::string(R"({"rdr": {"enable": false}})"),
                              {{"MS_RDR_ENABLE", "1"}, {"MS_RDR_PATH", "/x"}});
    ASSERT_TRUE(off.ok()) << off.error();
    EXPECT_FALSE(off->enable);
}

TEST(RdrConfig, FileWithoutRdrSectionLeavesEnvironment) {
    auto c = parseRdrConfig(std::string(R"({"other": 1})"),
                            {{"MS_RDR_ENABLE", "1"}, {"MS_RDR_PATH", "/p"}});
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_TRUE(c->enable);
    EXPECT_EQ(c->path, "/p");
}

TEST(RdrConfig, RelativePathRejectedFromFileAndEnv) {
    auto f = parseRdrConfig(std::string(R"({"rdr": {"enable": true, "path": "rel/dir"}})"), {});
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.error().find("absolute"), std::string::npos) << f.error();
    EXPECT_NE(f.error().find("rel/dir"), std::string::npos) << f.error();
    auto e = parseRdrConfig(std::nullopt, {{"MS_RDR_ENABLE", "1"}, {"MS_RDR_PATH", "./x"}});
    ASSERT_FALSE(e.ok());
    EXPECT_NE(e.error().find("absolute"), std::string::npos) << e.error();
    // A relative env path is fine when the file overrides it with an absolute one.
    auto over = parseRdrConfig(std::string(kFile), {{"MS_RDR_PATH", "./x"}});
    EXPECT_TRUE(over.ok());
}

TEST(RdrConfig, EnabledWithoutPathIsAnError) {
    auto c = parseRdrConfig(std::nullopt, {{"MS_RDR_ENABLE", "1"}});
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().find("no path"), std::string::npos) << c.error();
}

TEST(RdrConfig, BadEnvValuesNameTheVariable) {
    for (const char* v : {"true", "2", "yes"}) {
        auto c = parseRdrConfig(std::nullopt, {{"MS_RDR_ENABLE", v}, {"MS_RDR_PATH", "/p"}});
        ASSERT_FALSE(c.ok()) << v;
        EXPECT_NE(c.error().find("MS_RDR_ENABLE"), std::string::npos);
    }
    for (const char* v : {"0", "3", "one"}) {
        auto c = parseRdrConfig(std::nullopt, {{"MS_RDR_MODE", v}});
        ASSERT_FALSE(c.ok()) << v;
        EXPECT_NE(c.error().find("MS_RDR_MODE"), std::string::npos);
    }
    auto r = parseRdrConfig(std::nullopt, {{"RANK_ID", "-1"}});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("RANK_ID"), std::string::npos);
}

TEST(RdrConfig, EmptyVariablesCountAsUnset) {
    auto c = parseRdrConfig(
        std::nullopt,
        {{"MS_RDR_ENABLE", ""}, {"MS_RDR_MODE", ""}, {"MS_RDR_PATH", ""}, {"RANK_ID", ""}});
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_FALSE(c->enable);
    EXPECT_EQ(c->mode, 1);
    EXPECT_EQ(c->rankId, 0);
}

TEST(RdrConfig, BadFileValues) {
    EXPECT_FALSE(parseRdrConfig(std::string("{not json"), {}).ok());
    EXPECT_FALSE(parseRdrConfig(std::string("[1]"), {}).ok());
    EXPECT_FALSE(parseRdrConfig(std::string(R"({"rdr": 1})"), {}).ok());
    auto en = parseRdrConfig(std::string(R"({"rdr": {"enable": "yes", "path": "/p"}})"), {});
    ASSERT_FALSE(en.ok());
    EXPECT_NE(en.error().find("rdr.enable"), std::string::npos);
    for (const char* m :
         {R"({"rdr": {"mode": 3}})", R"({"rdr": {"mode": "1"}})", R"({"rdr": {"mode": 1.5}})"}) {
        auto c = parseRdrConfig(std::string(m), {});
        ASSERT_FALSE(c.ok()) << m;
        EXPECT_NE(c.error().find("rdr.mode"), std::string::npos);
    }
    EXPECT_FALSE(parseRdrConfig(std::string(R"({"rdr": {"path": 5}})"), {}).ok());
}

TEST(RdrConfig, RankIdFromEnvironment) {
    auto c = parseRdrConfig(std::string(kFile), {{"RANK_ID", "3"}});
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_EQ(c->rankId, 3);
    EXPECT_EQ(c->exportDir(), "/abs/dir/rank_3/rdr");
}

TEST(RdrConfig, ModeDecidesWhichEndsExport) {
    auto m1 = parseRdrConfig(std::string(kFile), {});
    ASSERT_TRUE(m1.ok());
    EXPECT_TRUE(m1->exportsOn(true));
    EXPECT_FALSE(m1->exportsOn(false));
    auto m2 =
        parseRdrConfig(std::string(R"({"rdr": {"enable": true, "mode": 2, "path": "/a"}})"), {});
    ASSERT_TRUE(m2.ok());
    EXPECT_TRUE(m2->exportsOn(true));
    EXPECT_TRUE(m2->exportsOn(false));
}

}  // namespace
