// Every environment rule of the logging configuration, case by case.
#include <gtest/gtest.h>

#include <set>

#include "core/log/log_config.h"

using namespace ts::log;

namespace {

// What a case expects: defaults unless a setter changes them.
struct Expect {
    Level global = Level::Warning;
    bool toStderr = true;
    std::string logDir;
    int rank = 0;
    Level threshold = Level::Warning;
    int64_t maxMb = 50;
    std::map<SubModule, Level> modules;
    std::vector<std::string> warningsContain;  // one substring per expected warning, in order

    Expect& g(Level l) {
        global = l;
        return *this;
    }
    Expect& files(std::string dir) {
        toStderr = false;
        logDir = std::move(dir);
        return *this;
    }
    Expect& dir(std::string d) {
        logDir = std::move(d);
        return *this;
    }
    Expect& r(int v) {
        rank = v;
        return *this;
    }
    Expect& th(Level l) {
        threshold = l;
        return *this;
    }
    Expect& mb(int64_t v) {
        maxMb = v;
        return *this;
    }
    Expect& mod(SubModule m, Level l) {
        modules[m] = l;
        return *this;
    }
    Expect& warn(std::string w) {
        warningsContain.push_back(std::move(w));
        return *this;
    }
};

struct EnvCase {
    const char* name;
    std::map<std::string, std::string> env;
    Expect expect;
};

std::vector<EnvCase> cases() {
    using M = SubModule;
    return {
        {"defaults", {}, Expect()},
        {"GLOG_v 0", {{"GLOG_v", "0"}}, Expect().g(Level::Debug)},
        {"GLOG_v 4", {{"GLOG_v", "4"}}, Expect().g(Level::Critical)},
        {"GLOG_v spaces", {{"GLOG_v", " 1 "}}, Expect().g(Level::Info)},
        {"GLOG_v too big", {{"GLOG_v", "5"}}, Expect().warn("GLOG_v='5'")},
        {"GLOG_v negative", {{"GLOG_v", "-1"}}, Expect().warn("GLOG_v")},
        {"GLOG_v word", {{"GLOG_v", "INFO"}}, Expect().warn("GLOG_v='INFO' is not a level")},
        {"GLOG_v empty is unset", {{"GLOG_v", ""}}, Expect()},
        {"logtostderr 1 with dir: no files",
         {{"GLOG_logtostderr", "1"}, {"GLOG_log_dir", "/tmp/x"}},
         Expect().dir("/tmp/x")},
        {"logtostderr 0 with dir",
         {{"GLOG_logtostderr", "0"}, {"GLOG_log_dir", "/tmp/x"}},
         Expect().files("/tmp/x")},
        {"logtostderr 0 without dir",
         {{"GLOG_logtostderr", "0"}},
         Expect().warn("GLOG_log_dir must be set")},
        {"logtostderr bad", {{"GLOG_logtostderr", "yes"}}, Expect().warn("GLOG_logtostderr='yes'")},
        {"log_dir bad chars",
         {{"GLOG_logtostderr", "0"}, {"GLOG_log_dir", "/tmp/a b;rm"}},
         Expect().warn("GLOG_log_dir='/tmp/a b;rm'").warn("GLOG_log_dir must be set")},
        {"RANK_ID", {{"RANK_ID", "3"}}, Expect().r(3)},
        {"RANK_ID bad", {{"RANK_ID", "x"}}, Expect().warn("RANK_ID='x'")},
        {"stderrthreshold 3", {{"GLOG_stderrthreshold", "3"}}, Expect().th(Level::Error)},
        {"stderrthreshold bad",
         {{"GLOG_stderrthreshold", "9"}},
         Expect().warn("GLOG_stderrthreshold='9'")},
        {"log_max 10", {{"GLOG_log_max", "10"}}, Expect().mb(10)},
        {"log_max zero", {{"GLOG_log_max", "0"}}, Expect().warn("GLOG_log_max='0'")},
        {"log_max huge", {{"GLOG_log_max", "5000"}}, Expect().warn("GLOG_log_max")},
        {"log_max text", {{"GLOG_log_max", "10MB"}}, Expect().warn("GLOG_log_max='10MB'")},
        {"submodules",
         {{"GLOG_v", "1"}, {"MS_SUBMODULE_LOG_v", "{ENGINE:1,DATASET:3}"}},
         Expect().g(Level::Info).mod(M::Engine, Level::Info).mod(M::Dataset, Level::Error)},
        {"submodules spaces and case",
         {{"MS_SUBMODULE_LOG_v", " { engine : 0 , Optimizer:4 } "}},
         Expect().mod(M::Engine, Level::Debug).mod(M::Optimizer, Level::Critical)},
        {"submodules no braces",
         {{"MS_SUBMODULE_LOG_v", "ENGINE:1"}},
         Expect().warn("MS_SUBMODULE_LOG_v='ENGINE:1' is not of the form")},
        {"submodules unknown module kept others",
         {{"MS_SUBMODULE_LOG_v", "{PARSER:2,OPS:1}"}},
         Expect().mod(M::Ops, Level::Info).warn("unknown sub-module 'PARSER'")},
        {"submodules bad level",
         {{"MS_SUBMODULE_LOG_v", "{OPS:7,STORE:x,UI:0}"}},
         Expect().mod(M::Ui, Level::Debug).warn("level '7' of OPS").warn("level 'x' of STORE")},
        {"submodules missing colon",
         {{"MS_SUBMODULE_LOG_v", "{OPS}"}},
         Expect().warn("'OPS' has no ':LEVEL'")},
        {"submodules empty braces", {{"MS_SUBMODULE_LOG_v", "{}"}}, Expect()},
        {"submodule later entry wins",
         {{"MS_SUBMODULE_LOG_v", "{OPS:1,OPS:3}"}},
         Expect().mod(M::Ops, Level::Error)},
    };
}

}  // namespace

TEST(LogConfig, EnvironmentRules) {
    for (const EnvCase& c : cases()) {
        SCOPED_TRACE(c.name);
        const LogConfigResult r = parseLogEnv(c.env);
        const Expect& e = c.expect;
        EXPECT_EQ(r.config.globalLevel, e.global);
        EXPECT_EQ(r.config.toStderr, e.toStderr);
        EXPECT_EQ(r.config.logDir, e.logDir);
        EXPECT_EQ(r.config.rankId, e.rank);
        EXPECT_EQ(r.config.stderrThreshold, e.threshold);
        EXPECT_EQ(r.config.maxFileMb, e.maxMb);
        EXPECT_EQ(r.config.moduleLevels, e.modules);
        ASSERT_EQ(r.warnings.size(), e.warningsContain.size())
            << (r.warnings.empty() ? std::string("(none)") : r.warnings.front());
        for (size_t i = 0; i < e.warningsContain.size(); ++i)
            EXPECT_NE(r.warnings[i].find(e.warningsContain[i]), std::string::npos) << r.warnings[i];
    }
}

TEST(LogConfig, FileDirHasRankAndLogs) {
    LogConfig c;
    c.logDir = "/data/run/";
    c.rankId = 2;
    EXPECT_EQ(c.fileDir(), "/data/run/rank_2/logs");
    c.logDir.clear();
    EXPECT_EQ(c.fileDir(), "");
}

TEST(LogConfig, GlogFileNamePattern) {
    setenv("TZ", "UTC", 1);
    tzset();
    const int64_t ns = int64_t{1609502400} * 1000000000;  // 2021-01-01 12:00:00 UTC
    EXPECT_EQ(glogFileName("trainscope", "host1", "alice", Level::Warning, ns, 4242),
              "trainscope.host1.alice.log.WARNING.20210101-120000.4242");
}

TEST(LogConfig, LevelAndModuleNames) {
    EXPECT_EQ(parseLevel("3"), Level::Error);
    EXPECT_EQ(parseLevel("warning"), Level::Warning);
    EXPECT_EQ(parseLevel("EXCEPTION"), Level::Critical);
    EXPECT_FALSE(parseLevel("7"));
    EXPECT_FALSE(parseLevel("LOUD"));
    for (SubModule m : allSubModules()) EXPECT_EQ(parseSubModule(subModuleName(m)), m);
    EXPECT_FALSE(parseSubModule("PARSER"));
}

TEST(LogConfig, SubModuleNamesAreOurFoldersEachOnce) {
    std::set<std::string> names;
    for (SubModule m : allSubModules()) {
        const std::string n(subModuleName(m));
        EXPECT_FALSE(n.empty());
        EXPECT_TRUE(names.insert(n).second) << n << " twice";
    }
    EXPECT_EQ(names.size(), static_cast<size_t>(kSubModuleCount));
    for (const char* folder :
         {"ENGINE", "OPS", "DATASET", "OPTIMIZER", "CHECKPOINT", "DEBUG", "PROFILER", "STORE",
          "TIMELINE", "ANALYSIS", "IMPORTER", "UI", "CLI"})
        EXPECT_TRUE(names.count(folder)) << folder;
}
