// The libFuzzer entry of one target (TS_FUZZ_TARGET, set per executable by
// tests/fuzz/CMakeLists.txt): the input through that target's body (fuzz_bodies.h).
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const ts::fuzz::Target* target = [] {
        const ts::fuzz::Target* t = ts::fuzz::findTarget(TS_FUZZ_TARGET);
        if (!t) {
            std::fprintf(stderr, "no fuzz target %s\n", TS_FUZZ_TARGET);
            std::abort();
        }
        return t;
    }();
    target->run(data, size);
    return 0;
}
