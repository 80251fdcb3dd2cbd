#pragma once
// The user's units in Qt text (core/common/units.h): durations in ns/µs/ms/s, bytes in
// KiB/MiB/GiB, numbers without an exponent. Every view formats through these.
#include <QString>

#include "core/common/units.h"

inline QString durationText(double ns, int significant = 4) {
    return QString::fromStdString(ts::formatDuration(ns, significant));
}
inline QString bytesText(double bytes, int significant = 3) {
    return QString::fromStdString(ts::formatBytes(bytes, significant));
}
inline QString shareText(double share) {
    return QString::fromStdString(ts::formatShare(share));
}
inline QString numberText(double v, int significant = 4) {
    return QString::fromStdString(ts::formatNumber(v, significant));
}
