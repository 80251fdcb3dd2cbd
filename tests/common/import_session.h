#pragma once
// A session made for a test with one file imported into it, as `trainscope-cli import` does
// (header-only: the test folders that use it link the importers; test_support does not).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/common/job_control.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"

namespace ts::test {

struct Imported {
    std::unique_ptr<store::TraceStore> store;  // null when the session could not be created
    importers::ImportReport report;
};

/// Creates the session at `sessionPath` and imports `file` into it.
inline Imported importInto(const std::string& sessionPath, const std::string& file) {
    Imported out;
    auto s = store::TraceStore::open(sessionPath, store::TraceStore::Mode::Create);
    EXPECT_TRUE(s.ok()) << sessionPath;
    if (!s) return out;
    out.store = std::move(s.value());
    JobControl control;
    out.report = importers::importFile(file, *out.store, control);
    return out;
}

}  // namespace ts::test
