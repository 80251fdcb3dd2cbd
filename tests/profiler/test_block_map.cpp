// BlockMap against std::unordered_map under a random mix of inserts, lookups and erases
// (addresses 64-byte aligned, as the pool hands them out), through growth and tombstones.
#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

#include "core/profiler/block_map.h"

TEST(BlockMap, BehavesLikeAMap) {
    ts::profiler::BlockMap m;
    std::unordered_map<const void*, int64_t> ref;
    std::mt19937_64 rng(7);
    auto addr = [&] { return reinterpret_cast<const void*>((rng() % 5000 + 1) * 64); };
    EXPECT_TRUE(m.empty());
    EXPECT_EQ(m.find(addr()), -1);
    for (int i = 0; i < 200000; ++i) {
        const void* k = addr();
        switch (rng() % 3) {
            case 0:
                m.set(k, i);
                ref[k] = i;
                break;
            case 1: {
                auto it = ref.find(k);
                EXPECT_EQ(m.find(k), it == ref.end() ? -1 : it->second);
                break;
            }
            default: {
                auto it = ref.find(k);
                EXPECT_EQ(m.take(k), it == ref.end() ? -1 : it->second);
                if (it != ref.end()) ref.erase(it);
            }
        }
        ASSERT_EQ(m.size(), ref.size());
    }
    for (const auto& [k, v] : ref) EXPECT_EQ(m.find(k), v);
    m.set(nullptr, 5);  // never stored
    EXPECT_EQ(m.find(nullptr), -1);
    m.clear();
    EXPECT_TRUE(m.empty());
    EXPECT_EQ(m.find(ref.begin()->first), -1);
}
