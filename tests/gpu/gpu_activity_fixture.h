#pragma once
// A collector activity file written record by record, as the collector would, for the
// host-side tests of the import (no CUPTI, no GPU), and the sessions they import into.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/profiler/gpu/activity_format.h"
#include "core/store/trace_store.h"
#include "tests/common/import_session.h"
#include "tests/common/test_support.h"

namespace ts::test {

/// `file` imported into a new session in the test's temp folder `tag`.
inline Imported importIntoTemp(const std::string& tag, const std::string& file) {
    return importInto((tempDir(tag) / "s.tscope").string(), file);
}

inline int64_t queryInt(store::TraceStore& s, const std::string& sql) {
    auto r = s.db().queryInt(sql);
    EXPECT_TRUE(r.ok()) << sql;
    return r ? r.value() : -1;
}

inline std::string queryText(store::TraceStore& s, const std::string& sql) {
    auto st = s.db().prepare(sql);
    EXPECT_TRUE(st.ok()) << sql;
    return st.step() ? st.text(0) : std::string("(no row)");
}

}  // namespace ts::test
