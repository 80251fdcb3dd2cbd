#pragma once
// Numbers as people read them, for every label of the studio and the CLI: durations with
// the unit symbol (ns, µs, ms, s, min, h, d), byte sizes in binary units (B, KiB, MiB, GiB,
// TiB), and plain numbers — never in scientific notation ("1.107e+04").
#include <string>

namespace ts {

/// `v` in fixed notation with `significant` digits (at least every digit before the point),
/// trailing zeros after the point dropped: 11070.4 -> "11070", 0.012345 (4) -> "0.01235".
/// NaN -> "NaN", infinities -> "inf" / "-inf".
std::string formatNumber(double v, int significant = 4);

/// "830 ns", "1.5 µs", "1.235 ms", "2.5 s", "16.5 min", "3.25 h", "21645 d".
std::string formatDuration(double ns, int significant = 4);

/// A share of a whole (0.123) as a percentage with one decimal: "12.3%".
std::string formatShare(double share);

/// "512 B", "3.4 KiB", "12.5 MiB", "1.21 GiB" (1 KiB = 1024 B); negative sizes keep the sign.
std::string formatBytes(double bytes, int significant = 3);

/// The number of characters (UTF-8 code points) in `s`, for padding text columns.
size_t displayWidth(const std::string& s);

}  // namespace ts
