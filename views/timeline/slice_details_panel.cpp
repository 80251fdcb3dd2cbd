#include "views/timeline/slice_details_panel.h"

#include "core/timeline/time_axis.h"

using ts::timeline::formatDuration;

namespace {
QString dur(int64_t ns) {
    return QString::fromStdString(formatDuration(static_cast<double>(ns), 6)).toHtmlEscaped();
}
QString esc(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}
}  // namespace

SliceDetailsPanel::SliceDetailsPanel(QWidget* parent) : QTextBrowser(parent) {
    setOpenLinks(false);
    setOpenExternalLinks(false);
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("slice"))
            emit sliceLinkActivated(url.path().toLongLong());
    });
    showMessage(tr("Click a slice to see its details; Shift+drag to aggregate an area."));
}

void SliceDetailsPanel::showMessage(const QString& text) {
    setHtml(QStringLiteral("<p style='color:#666'>%1</p>").arg(text.toHtmlEscaped()));
}

void SliceDetailsPanel::showDetails(const ts::timeline::SliceDetails& d, int64_t originNs) {
    // Two columns: the slice's facts on the left, its flows and args on the right.
    QString h = QStringLiteral(
                    "<h3>%1</h3><table width='100%'><tr><td valign='top' width='40%'>"
                    "<table cellspacing=4>")
                    .arg(esc(d.name));
    auto row = [&](const QString& k, const QString& v) {
        h += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k, v);
    };
    row(tr("Category"), d.category.empty() ? QStringLiteral("—") : esc(d.category));
    row(tr("Track"), esc(d.track));
    row(tr("Start"), dur(d.ts - originNs) + QStringLiteral(" (%1 ns)").arg(d.ts));
    row(tr("Duration"), dur(d.dur) + (d.unfinished ? tr(" (unfinished)") : QString()));
    row(tr("Self time"), dur(d.selfNs));
    row(tr("Depth"), QString::number(d.depth));
    row(tr("Slice id"), QString::number(d.id));
    h += QStringLiteral("</table></td><td valign='top'>");
    auto flows = [&](const QString& title, const std::vector<ts::timeline::FlowLink>& links) {
        if (links.empty()) return;
        h += QStringLiteral("<p><b>%1</b></p><ul>").arg(title);
        for (const auto& l : links)
            h += QStringLiteral("<li>%4<a href='slice:%1'>%2</a> %3</li>")
                     .arg(l.sliceId)
                     .arg(esc(l.name.empty() ? "slice " + std::to_string(l.sliceId) : l.name))
                     .arg(l.flowName.empty() ? QString()
                                             : QStringLiteral("(%1)").arg(esc(l.flowName)))
                     .arg(l.via.empty() ? QString() : esc(l.via) + QStringLiteral(" \u2192 "));
        h += QStringLiteral("</ul>");
    };
    flows(tr("Flows in"), d.flowsIn);
    flows(tr("Flows out"), d.flowsOut);
    flows(tr("Flows out of nested calls"), d.nestedFlowsOut);
    if (d.nestedFlowsMore > 0)
        h += tr("<p>… and %L1 more from nested calls</p>").arg(d.nestedFlowsMore);
    if (!d.argsJson.empty())
        h += QStringLiteral("<p><b>%1</b></p><pre>%2</pre>").arg(tr("Args"), esc(d.argsJson));
    h += QStringLiteral("</td></tr></table>");
    setHtml(h);
}
