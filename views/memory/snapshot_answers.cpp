#include "views/memory/snapshot_answers.h"

#include <QFileInfo>

using namespace ts::memory;

namespace {

QString esc(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}

QString framesHtml(const Snapshot& s, uint32_t stack, int pythonLimit = 8) {
    QStringList py;
    for (const Frame* f : shownFrames(s, stack)) {
        const std::string& file = s.str(f->filename);
        if (file.size() < 3 || file.compare(file.size() - 3, 3, ".py") != 0) continue;
        if (py.size() == pythonLimit) {
            py << QStringLiteral("…");
            break;
        }
        py << esc(frameText(s, *f, true));
    }
    if (py.isEmpty()) return QStringLiteral("<i>no Python frame</i>");
    return QStringLiteral("<pre style='margin-left:16px'>") + py.join(QLatin1Char('\n')) +
           QStringLiteral("</pre>");
}

QString sitesHtml(const std::vector<SiteGroup>& groups, int limit) {
    QString h = QStringLiteral("<table cellspacing=0 cellpadding=2>");
    int n = 0;
    for (const SiteGroup& g : groups) {
        if (n++ == limit) break;
        h += QStringLiteral(
                 "<tr><td align=right>%1</td><td align=right>&nbsp;%2&nbsp;</td><td>%3</td></tr>")
                 .arg(bytesText(g.bytes))
                 .arg(g.count)
                 .arg(esc(g.site));
    }
    return h + QStringLiteral("</table>");
}

QString stateLine(const AllocatorState& st) {
    return QObject::tr("%1 segments, %2 reserved, %3 allocated, %4 free, the largest free piece %5")
        .arg(st.segments.size())
        .arg(bytesText(st.reserved), bytesText(st.allocated), bytesText(st.freeBytes),
             bytesText(st.largestFree));
}

}  // namespace

QString snapshotHeadline(const SnapshotData& d, size_t device) {
    if (device >= d.report.devices.size()) return QObject::tr("No device in this snapshot.");
    const DeviceReport& r = d.report.devices[device];
    QString s = QObject::tr("%1 — device %2: peak %3 allocated (%4 reserved), %5 events")
                    .arg(QFileInfo(d.path).fileName())
                    .arg(r.device)
                    .arg(bytesText(r.timeline.peakBytes), bytesText(r.timeline.peakReserved))
                    .arg(r.events);
    if (!r.leaks.empty())
        s += QObject::tr("; %n leak(s): %1", nullptr, static_cast<int>(r.leaks.size()))
                 .arg(QString::fromStdString(r.leaks.front().site));
    if (!r.ooms.empty())
        s += QObject::tr("; %n out-of-memory event(s)%1", nullptr, static_cast<int>(r.oomEvents))
                 .arg(r.ooms.front().fragmentation ? QObject::tr(", caused by fragmentation")
                                                   : QString());
    return s;
}

QString snapshotAnswersHtml(const SnapshotData& d, size_t device) {
    if (device >= d.report.devices.size()) return {};
    const Snapshot& s = d.snapshot;
    const DeviceReport& r = d.report.devices[device];
    QString h;
    h += QObject::tr("<h3>Peak: %1 allocated</h3>").arg(bytesText(r.timeline.peakBytes));
    h += QObject::tr(
             "<p>At event %1, with %2 reserved; %3 allocations alive. Who allocated them, "
             "by site (the innermost frame of the user's code, else the autograd node "
             "or op):</p>")
             .arg(r.timeline.peakEvent)
             .arg(bytesText(r.timeline.peakReserved))
             .arg(r.liveAtPeak);
    h += sitesHtml(r.peakBySite, 12);
    h += QObject::tr("<p>Allocator at the peak: %1.<br>At the snapshot: %2.</p>")
             .arg(stateLine(r.atPeak), stateLine(r.atEnd));
    h += QObject::tr("<h3>Leaks</h3>");
    if (r.events == 0)
        h += QObject::tr(
            "<p>The file has no trace (recorded without _record_memory_history): "
            "nothing to follow over time.</p>");
    else if (r.leaks.empty())
        h +=
            QObject::tr("<p>None: no site's live memory grows step after step (steps from %1).</p>")
                .arg(QString::fromStdString(r.stepsFrom));
    for (const Leak& L : r.leaks) {
        h += QObject::tr(
                 "<p><b style='color:#c03030'>%1</b>: %2 allocations never freed, %3 alive "
                 "at the end, +%4 a step in %5 of %6 steps (steps from %7). Allocated by:</p>")
                 .arg(esc(L.site))
                 .arg(L.count)
                 .arg(bytesText(L.bytes), bytesText(L.bytesPerStep))
                 .arg(L.stepsGrown)
                 .arg(L.steps)
                 .arg(QString::fromStdString(d.report.devices[device].stepsFrom));
        h += framesHtml(s, L.stack);
    }
    h += QObject::tr("<h3>Out of memory</h3>");
    if (r.ooms.empty()) h += QObject::tr("<p>No <code>oom</code> event in the trace.</p>");
    for (const OomAnswer& o : r.ooms) {
        h += QObject::tr("<p><b style='color:#c03030'>%1 asked for at event %2</b> — %3.</p>")
                 .arg(bytesText(o.requested))
                 .arg(o.event)
                 .arg(esc(o.verdict));
        h += QObject::tr("<p>Asked for by:</p>") + framesHtml(s, o.stack);
        h += QObject::tr("<p>Alive then, by site:</p>") + sitesHtml(o.liveBySite, 8);
    }
    h += QObject::tr(
             "<h3>The file</h3><p>PyTorch layout %1, pickle protocol %2; %3 segments, %4 "
             "blocks, %5 distinct frames in %6 distinct stacks.</p>")
             .arg(QString::fromStdString(d.report.layout))
             .arg(d.report.pickleProtocol)
             .arg(d.report.segments)
             .arg(d.report.blocks)
             .arg(d.report.frames)
             .arg(d.report.stacks);
    for (const auto& n : d.report.notes) h += QObject::tr("<p>Not understood: %1</p>").arg(esc(n));
    return h;
}
