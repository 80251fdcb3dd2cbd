#pragma once
// One line of a CSV table (the profilers' and dumps' tables: Ascend's memory tables,
// MindSpore's statistic.csv and mapping.csv): RFC 4180 double quotes (a field may hold
// commas; "" is a quote), each field trimmed of ASCII white space (asciiTrim).
#include <string>
#include <string_view>
#include <vector>

namespace ts {

std::vector<std::string> splitCsvLine(std::string_view line);

/// `s` as one field of a CSV line that tables written by us hold: in double quotes, with
/// quotes doubled, when it holds a comma, a quote or a line break; as it is otherwise.
std::string csvField(std::string_view s);

}  // namespace ts
