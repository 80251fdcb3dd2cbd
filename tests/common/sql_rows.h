#pragma once
// A query's result as text lines, one per row ("v1|v2|...|", NULL as "NULL"), for tests
// that compare what two queries return.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/store/sqlite_db.h"

namespace ts::test {

inline std::vector<std::string> sqlRows(store::SqliteDb& db, const std::string& sql) {
    store::Statement st = db.prepare(sql);
    EXPECT_TRUE(st.ok()) << sql << ": " << st.error();
    std::vector<std::string> out;
    while (st.step()) {
        std::string line;
        for (int c = 0; c < st.columnCount(); ++c)
            line += (st.isNull(c) ? std::string("NULL") : st.text(c)) + "|";
        out.push_back(std::move(line));
    }
    EXPECT_TRUE(st.error().empty()) << sql << ": " << st.error();
    return out;
}

}  // namespace ts::test
