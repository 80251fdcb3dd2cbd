#pragma once
// A collector activity file written record by record, as the collector would, for the
// host-side tests of the import (no CUPTI, no GPU).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/profiler/gpu/activity_format.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"
#include "tests/common/test_support.h"

namespace ts::test {

struct ImportedSession {
    std::unique_ptr<store::TraceStore> store;
    importers::ImportReport report;
};

inline ImportedSession importInto(const std::string& tag, const std::string& file) {
    ImportedSession out;
    auto s = store::TraceStore::open((tempDir(tag) / "s.tscope").string(),
                                     store::TraceStore::Mode::Create);
    EXPECT_TRUE(s.ok());
    out.store = std::move(s.value());
    JobControl control;
    out.report = importers::importFile(file, *out.store, control);
    return out;
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
