#include "views/memory/snapshot_data.h"

#include "core/memory/snapshot_reader.h"
#include "views/common/units_text.h"

using namespace ts::memory;

SnapshotLoad loadSnapshot(const QString& path, ts::JobControl& job) {
    SnapshotLoad out;
    auto s = readSnapshot(path.toStdString(), &job);
    if (!s) {
        out.error = QString::fromStdString(s.error());
        return out;
    }
    auto d = std::make_shared<SnapshotData>();
    d->path = path;
    d->snapshot = std::move(s.value());
    d->report = analyzeSnapshot(d->snapshot, 50, &job);
    for (const DeviceReport& dev : d->report.devices) {
        d->layouts.push_back(stackedLayout(dev.timeline, 2000));
        std::vector<char> leaked(dev.timeline.allocations.size(), 0);
        for (const Leak& L : dev.leaks)
            for (size_t i = 0; i < dev.timeline.allocations.size(); ++i) {
                const Allocation& a = dev.timeline.allocations[i];
                if (a.allocEvent >= 0 && a.freeEvent < 0 &&
                    siteName(d->snapshot, a.stack) == L.site)
                    leaked[i] = 1;
            }
        d->leaked.push_back(std::move(leaked));
    }
    if (job.cancelled()) out.error = QStringLiteral("cancelled");
    out.data = std::move(d);
    return out;
}

QString bytesText(int64_t bytes) {
    return bytesText(static_cast<double>(bytes), 3);
}

QString stackText(const Snapshot& s, uint32_t stack, int limit) {
    const auto frames = shownFrames(s, stack);
    if (frames.empty())
        return QStringLiteral("<block was allocated before _record_memory_history was enabled>");
    QStringList lines;
    for (const Frame* f : frames) {
        if (lines.size() == limit) {
            lines << QStringLiteral("... %1 more frames")
                         .arg(frames.size() - static_cast<size_t>(limit));
            break;
        }
        lines << QString::fromStdString(frameText(s, *f, true));
    }
    return lines.join(QLatin1Char('\n'));
}

QString allocationText(const SnapshotData& d, size_t device, size_t allocation) {
    const DeviceReport& dev = d.report.devices[device];
    const Allocation& a = dev.timeline.allocations[allocation];
    const auto& evs = d.snapshot.devices;
    const bool traced = static_cast<size_t>(dev.device) < evs.size();
    auto when = [&](int32_t i) -> QString {
        if (!traced || i < 0) return {};
        const TraceEvent& e = evs[static_cast<size_t>(dev.device)][static_cast<size_t>(i)];
        const int64_t t0 = evs[static_cast<size_t>(dev.device)].front().timeUs;
        return e.timeUs >= 0 && t0 >= 0 ? QStringLiteral(" (event %1, +%2 s)")
                                              .arg(i)
                                              .arg((e.timeUs - t0) / 1e6, 0, 'f', 3)
                                        : QStringLiteral(" (event %1)").arg(i);
    };
    QString head = QStringLiteral("b%1 %2 allocation (%3 bytes), stream %4\n")
                       .arg(a.addr, 0, 16)
                       .arg(bytesText(a.size))
                       .arg(a.size)
                       .arg(a.stream);
    head += a.allocEvent >= 0 ? QStringLiteral("allocated") + when(a.allocEvent)
                              : QStringLiteral("allocated before the trace");
    head += a.freeEvent >= 0 ? QStringLiteral(", freed") + when(a.freeEvent)
                             : QStringLiteral(", alive at the snapshot");
    if (allocation < d.leaked[device].size() && d.leaked[device][allocation])
        head += QStringLiteral("\nLEAK: its site allocates step after step and never frees");
    head += QStringLiteral("\nsite: ") + QString::fromStdString(siteName(d.snapshot, a.stack));
    return head + QStringLiteral("\n\n") + stackText(d.snapshot, a.stack);
}
