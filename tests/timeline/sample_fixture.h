#pragma once
// A session with stack samples for the sample statistics tests: a Chrome trace whose
// stackFrames hold main > loop > {leaf, recurse > recurse}, imported by the importer.
//   ts 10, 20, 30: leaf    ts 40: loop    ts 50, 60: the inner recurse    ts 70: no stack
#include <fstream>
#include <string>

#include "core/common/job_control.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"
#include "tests/common/test_support.h"

namespace ts::test {

inline std::string writeSampleSession(const std::string& tag) {
    const auto dir = tempDir(tag);
    const auto trace = dir / "samples.json";
    std::ofstream(trace) << R"({"traceEvents":[
      {"ph":"X","name":"step","pid":1,"tid":1,"ts":0,"dur":100},
      {"ph":"P","name":"cpu","pid":1,"tid":1,"ts":10,"sf":3},
      {"ph":"P","name":"cpu","pid":1,"tid":1,"ts":20,"sf":3},
      {"ph":"P","name":"cpu","pid":1,"tid":1,"ts":30,"sf":3},
      {"ph":"P","name":"cpu","pid":1,"tid":1,"ts":40,"sf":2},
      {"ph":"P","name":"cpu","pid":1,"tid":1,"ts":50,"sf":5},
      {"ph":"P","name":"cpu","pid":1,"tid":1,"ts":60,"sf":5},
      {"ph":"P","name":"cpu","pid":1,"tid":1,"ts":70}],
    "stackFrames":{"1":{"name":"main","category":"app"},"2":{"name":"loop","category":"app","parent":1},
      "3":{"name":"leaf","category":"libm","parent":2},"4":{"name":"recurse","category":"app","parent":2},
      "5":{"name":"recurse","category":"app","parent":4}}})";
    const std::string session = (dir / "s.tscope").string();
    auto s = store::TraceStore::open(session, store::TraceStore::Mode::Create);
    JobControl control;
    (void)importers::importFile(trace.string(), *s.value(), control);
    return session;
}

}  // namespace ts::test
