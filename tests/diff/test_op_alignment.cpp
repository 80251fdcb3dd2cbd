// Sequence alignment of op sequences (core/analysis/op_alignment.h): pairs form a common
// subsequence, unpaired ops are exactly the rest, an inserted op shifts no pair after it, and
// the result is a longest common subsequence whenever the search stays under its cost cap.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/analysis/diff/op_alignment.h"

using ts::analysis::Alignment;
using ts::analysis::alignmentGaps;
using ts::analysis::alignSequences;

namespace {

/// Checks the invariants every alignment holds; returns the number of pairs.
size_t checkAlignment(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                      const Alignment& al) {
    std::vector<int> usedA(a.size()), usedB(b.size());
    int64_t lastA = -1, lastB = -1;
    for (const auto& [i, j] : al.pairs) {
        EXPECT_LT(i, a.size());
        EXPECT_LT(j, b.size());
        EXPECT_EQ(a[i], b[j]) << "pair (" << i << ", " << j << ") of different tokens";
        EXPECT_GT(static_cast<int64_t>(i), lastA);
        EXPECT_GT(static_cast<int64_t>(j), lastB);
        lastA = i, lastB = j;
        ++usedA[i], ++usedB[j];
    }
    for (uint32_t i : al.deleted) ++usedA[i];
    for (uint32_t j : al.inserted) ++usedB[j];
    for (int u : usedA) EXPECT_EQ(u, 1);
    for (int u : usedB) EXPECT_EQ(u, 1);
    return al.pairs.size();
}

size_t lcsLength(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
    std::vector<size_t> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
    for (size_t i = 1; i <= a.size(); ++i) {
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

}  // namespace

TEST(OpAlignment, IdenticalAndEmpty) {
    const std::vector<uint32_t> a{1, 2, 3, 2, 1};
    Alignment al = alignSequences(a, a);
    EXPECT_EQ(checkAlignment(a, a, al), 5u);
    EXPECT_TRUE(al.exact);
    al = alignSequences(std::vector<uint32_t>{}, a);
    EXPECT_EQ(checkAlignment({}, a, al), 0u);
    EXPECT_EQ(al.inserted.size(), 5u);
    al = alignSequences(a, std::vector<uint32_t>{});
    EXPECT_EQ(al.deleted.size(), 5u);
}

TEST(OpAlignment, InsertedOpShiftsNoPair) {
    // A repeated layer pattern with one new op in the middle of B.
    std::vector<uint32_t> a, b;
    for (int layer = 0; layer < 50; ++layer)
        for (uint32_t op : {10u, 11u, 12u, 13u}) a.push_back(op);
    b = a;
    b.insert(b.begin() + 101, 99u);
    const Alignment al = alignSequences(a, b);
    EXPECT_EQ(checkAlignment(a, b, al), a.size());
    ASSERT_EQ(al.inserted.size(), 1u);
    EXPECT_EQ(al.inserted[0], 101u);
    EXPECT_TRUE(al.deleted.empty());
    // Every op after the insertion pairs with its own copy, one place later in B.
    for (const auto& [i, j] : al.pairs) EXPECT_EQ(j, i < 101 ? i : i + 1);
    const auto gaps = alignmentGaps(al, a.size(), b.size());
    ASSERT_EQ(gaps.size(), 1u);
    EXPECT_EQ(gaps[0].aBegin, gaps[0].aEnd);
    EXPECT_EQ(gaps[0].bBegin, 101u);
    EXPECT_EQ(gaps[0].bEnd, 102u);
}

TEST(OpAlignment, RemovedAndReplacedOps) {
    const std::vector<uint32_t> a{1, 2, 3, 4, 5, 6, 7};
    const std::vector<uint32_t> b{1, 2, 4, 5, 8, 7};  // 3 removed, 6 replaced by 8
    const Alignment al = alignSequences(a, b);
    EXPECT_EQ(checkAlignment(a, b, al), 5u);
    EXPECT_EQ(al.deleted, (std::vector<uint32_t>{2, 5}));
    EXPECT_EQ(al.inserted, (std::vector<uint32_t>{4}));
    EXPECT_EQ(alignmentGaps(al, a.size(), b.size()).size(), 2u);
}

TEST(OpAlignment, LongestCommonSubsequenceOnRandomEdits) {
    std::mt19937 rng(7);
    for (int round = 0; round < 200; ++round) {
        const size_t n = 1 + rng() % 60;
        const uint32_t alphabet = 2 + rng() % 6;
        std::vector<uint32_t> a(n);
        for (auto& t : a) t = rng() % alphabet;
        std::vector<uint32_t> b = a;
        const int edits = static_cast<int>(rng() % 12);
        for (int e = 0; e < edits && !b.empty(); ++e) {
            const size_t at = rng() % b.size();
            switch (rng() % 3) {
                case 0:
                    b.insert(b.begin() + static_cast<long>(at), rng() % (alphabet + 2));
                    break;
                case 1:
                    b.erase(b.begin() + static_cast<long>(at));
                    break;
                default:
                    b[at] = rng() % (alphabet + 2);
            }
        }
        const Alignment al = alignSequences(a, b);
        const size_t pairs = checkAlignment(a, b, al);
        ASSERT_TRUE(al.exact);
        EXPECT_EQ(pairs, lcsLength(a, b)) << "round " << round;
    }
}

TEST(OpAlignment, CostCapStillGivesACommonSubsequence) {
    std::mt19937 rng(3);
    std::vector<uint32_t> a(3000), b;
    for (auto& t : a) t = rng() % 4;
    for (uint32_t t : a)
        if (rng() % 3) b.push_back(rng() % 5 == 0 ? rng() % 4 : t);
    ts::analysis::AlignOptions o;
    o.maxCost = 8;
    const Alignment capped = alignSequences(a, b, o);
    const size_t pairs = checkAlignment(a, b, capped);
    EXPECT_FALSE(capped.exact);
    EXPECT_GT(pairs, b.size() / 2);
    const Alignment full = alignSequences(a, b);
    EXPECT_GE(checkAlignment(a, b, full), pairs);
}

TEST(OpAlignment, LargeStepWithInsertionsInEveryLayer) {
    // 100,000 ops in a repeated pattern; B drops one op and inserts a new one every 1,000.
    std::vector<uint32_t> a, b;
    for (size_t i = 0; i < 100000; ++i) a.push_back(static_cast<uint32_t>(i % 37));
    for (size_t i = 0; i < a.size(); ++i) {
        if (i % 1000 == 500) continue;
        b.push_back(a[i]);
        if (i % 1000 == 999) b.push_back(1000u);
    }
    const Alignment al = alignSequences(a, b);
    EXPECT_EQ(checkAlignment(a, b, al), a.size() - 100);
    EXPECT_EQ(al.inserted.size(), 100u);
    for (uint32_t j : al.inserted) EXPECT_EQ(b[j], 1000u);
    EXPECT_EQ(al.deleted.size(), 100u);
}

TEST(OpAlignment, CancelledLeavesAConsistentResult) {
    std::vector<uint32_t> a(5000), b(5000);
    std::mt19937 rng(1);
    for (auto& t : a) t = rng() % 3;
    for (auto& t : b) t = rng() % 3;
    ts::JobControl job;
    job.cancel();
    const Alignment al = alignSequences(a, b, {}, &job);
    checkAlignment(a, b, al);
}
