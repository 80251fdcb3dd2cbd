// Where a process stands in a data-parallel job, from the launchers' variables.
#include <gtest/gtest.h>

#include <map>

#include "core/dist/dist_config.h"

using namespace ts::dist;

namespace {

EnvLookup envOf(std::map<std::string, std::string> vars) {
    return [vars](std::string_view name) -> std::optional<std::string> {
        auto it = vars.find(std::string(name));
        if (it == vars.end() || it->second.empty()) return std::nullopt;
        return it->second;
    };
}

}  // namespace

TEST(DistConfig, SingleProcessByDefault) {
    auto c = distConfigFromEnv(envOf({}));
    ASSERT_TRUE(c) << c.error();
    EXPECT_FALSE(c->distributed());
    EXPECT_EQ(c->launcher, "single");
    // A rank variable alone (RANK_ID for the crash recorder's folder) is no job.
    c = distConfigFromEnv(envOf({{"RANK_ID", "3"}}));
    ASSERT_TRUE(c) << c.error();
    EXPECT_EQ(c->worldSize, 1);
    EXPECT_EQ(c->rank, 0);
}

TEST(DistConfig, EachLaunchersVariables) {
    auto torch = distConfigFromEnv(envOf({{"RANK", "1"},
                                          {"WORLD_SIZE", "4"},
                                          {"MASTER_ADDR", "127.0.0.1"},
                                          {"MASTER_PORT", "29501"}}));
    ASSERT_TRUE(torch) << torch.error();
    EXPECT_EQ(torch->rank, 1);
    EXPECT_EQ(torch->worldSize, 4);
    EXPECT_EQ(torch->launcher, "torch");
    EXPECT_EQ(torch->rendezvous, "tcp://127.0.0.1:29501");
    EXPECT_EQ(torch->host, "127.0.0.1");  // a job on loopback stays on loopback
    EXPECT_EQ(torch->describe(), "rank 1 of 4 (torch, tcp://127.0.0.1:29501)");

    auto mpi = distConfigFromEnv(envOf({{"OMPI_COMM_WORLD_RANK", "2"},
                                        {"OMPI_COMM_WORLD_SIZE", "3"},
                                        {"TRAINSCOPE_RENDEZVOUS", "file:/shared/job42"}}));
    ASSERT_TRUE(mpi) << mpi.error();
    EXPECT_EQ(mpi->launcher, "mpi");
    EXPECT_EQ(mpi->rank, 2);
    EXPECT_EQ(mpi->rendezvous, "file:/shared/job42");

    auto slurm = distConfigFromEnv(envOf({{"SLURM_PROCID", "0"},
                                          {"SLURM_NTASKS", "2"},
                                          {"MASTER_ADDR", "node1"},
                                          {"MASTER_PORT", "6000"},
                                          {"TRAINSCOPE_DIST_HOST", "10.0.0.7"}}));
    ASSERT_TRUE(slurm) << slurm.error();
    EXPECT_EQ(slurm->launcher, "slurm");
    EXPECT_EQ(slurm->host, "10.0.0.7");

    auto ms = distConfigFromEnv(envOf({{"RANK_ID", "1"},
                                       {"RANK_SIZE", "2"},
                                       {"MS_SCHED_HOST", "127.0.0.1"},
                                       {"MS_SCHED_PORT", "8118"},
                                       {"TRAINSCOPE_DIST_TIMEOUT", "42"}}));
    ASSERT_TRUE(ms) << ms.error();
    EXPECT_EQ(ms->launcher, "mindspore");
    EXPECT_EQ(ms->rendezvous, "tcp://127.0.0.1:8118");
    EXPECT_EQ(ms->timeout, std::chrono::seconds(42));
}

TEST(DistConfig, ErrorsSayWhatToSet) {
    auto none = distConfigFromEnv(envOf({{"RANK", "0"}, {"WORLD_SIZE", "2"}}));
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().find("MASTER_ADDR and MASTER_PORT"), std::string::npos) << none.error();
    EXPECT_FALSE(distConfigFromEnv(
        envOf({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}})));
    EXPECT_FALSE(distConfigFromEnv(envOf({{"RANK", "x"}, {"WORLD_SIZE", "2"}})));
    EXPECT_FALSE(distConfigFromEnv(envOf(
        {{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "http"}})));
    EXPECT_FALSE(distConfigFromEnv(
        envOf({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"TRAINSCOPE_RENDEZVOUS", "redis://x"}})));
    EXPECT_FALSE(distConfigFromEnv(envOf({{"TRAINSCOPE_DIST_TIMEOUT", "soon"}})));
    std::string host;
    int port = 0;
    EXPECT_TRUE(parseTcpUrl("tcp://[::1]:80", &host, &port));
    EXPECT_EQ(port, 80);
    EXPECT_FALSE(parseTcpUrl("tcp://host", &host, &port));
}
