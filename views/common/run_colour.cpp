#include "views/common/run_colour.h"

#include <array>

QColor runColour(qint64 runId) {
    static constexpr std::array<QRgb, 10> kPalette = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2,
                                                      0x59a14f, 0xedc948, 0xb07aa1, 0xff9da7,
                                                      0x9c755f, 0xbab0ac};
    const auto n = static_cast<qint64>(kPalette.size());
    const qint64 i = ((runId - 1) % n + n) % n;
    return QColor(kPalette[static_cast<size_t>(i)]);
}
