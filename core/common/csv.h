#pragma once
// One line of a CSV table (the profilers' and dumps' tables: Ascend's memory tables,
// MindSpore's statistic.csv and mapping.csv): RFC 4180 double quotes (a field may hold
// commas; "" is a quote), each field trimmed of ASCII white space (asciiTrim).
#include <string>
#include <string_view>
#include <vector>

namespace ts {

std::vector<std::string> splitCsvLine(std::string_view line);

}  // namespace ts
