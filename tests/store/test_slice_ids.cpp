// Slice ids stay unique across writers of one session: the next id is kept in meta (reading
// max(id) would scan the whole clustered slices table), with a scan only for sessions that
// do not have it yet.
#include <gtest/gtest.h>

#include "core/store/store_writer.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace ts::store {
namespace {

std::vector<int64_t> writeSlices(TraceStore& s, int n) {
    std::vector<int64_t> ids;
    const int64_t src = s.beginSource("x", "test").value();
    {
        StoreWriter w(s, src);
        const int64_t p = w.addProcess("1");
        const int64_t t = w.addTrack("thread", p, w.addThread(p, "1"), "t");
        for (int i = 0; i < n; ++i)
            ids.push_back(w.addSlice({t, i * 10, 5, 0, w.intern("a"), 0, 0, 0}));
    }
    SourceSummary sum;
    sum.status = ts::store::SourceStatus::Complete;
    EXPECT_TRUE(s.finishSource(src, sum).ok());
    return ids;
}

TEST(SliceIds, UniqueAcrossWritersWithAndWithoutTheKeptNextId) {
    const std::string path = (test::tempDir("slice_ids") / "s.tscope").string();
    auto s = TraceStore::open(path, TraceStore::Mode::Create).value();
    auto a = writeSlices(*s, 100);
    EXPECT_EQ(s->db().queryInt("SELECT value FROM meta WHERE key = 'next_slice_id'").value(),
              a.back() + 1);
    auto b = writeSlices(*s, 50);
    EXPECT_GT(b.front(), a.back());
    // A session written before the key existed: the writer finds the max once.
    ASSERT_TRUE(s->db().exec("DELETE FROM meta WHERE key = 'next_slice_id'").ok());
    auto c = writeSlices(*s, 10);
    EXPECT_GT(c.front(), b.back());
    EXPECT_EQ(s->db().queryInt("SELECT count(DISTINCT id) FROM slices").value(), 160);
}

}  // namespace
}  // namespace ts::store
