#include "views/timeline/slice_details_panel.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QScrollBar>
#include <QUrl>

#include "views/common/units_text.h"

namespace {
QString durHtml(int64_t ns) {
    return durationText(static_cast<double>(ns), 6).toHtmlEscaped();
}
QString esc(const std::string& s) {
    return QString::fromStdString(s).toHtmlEscaped();
}

/// `text` as HTML, a call stack's frames on lines of their own. (Long tokens such as file
/// paths wrap anywhere: the panel's word-wrap mode, so copying a value gives it unchanged.)
QString wrappable(const QString& text, bool stackLines) {
    QString out = text.toHtmlEscaped();
    if (stackLines) out.replace(u';', QStringLiteral(";<br>"));
    return out;
}

QString argText(const QJsonValue& v) {
    if (v.isString()) return v.toString();
    if (v.isDouble()) return QString::number(v.toDouble(), 'g', 15);
    if (v.isBool()) return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isNull()) return QStringLiteral("null");
    return QString::fromUtf8(v.isArray()
                                 ? QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)
                                 : QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
}

}  // namespace

SliceDetailsPanel::SliceDetailsPanel(QWidget* parent) : QTextBrowser(parent) {
    setOpenLinks(false);
    setOpenExternalLinks(false);
    setLineWrapMode(QTextEdit::WidgetWidth);
    // A 1,300-character call stack without spaces breaks where it must rather than widening
    // the panel and squeezing the labels to a letter per line.
    setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("slice"))
            emit sliceLinkActivated(url.path().toLongLong());
        else if (url.scheme() == QLatin1String("expand"))
            expandArg(QUrl::fromPercentEncoding(url.path().toUtf8()));
    });
    showMessage(tr("Click a slice to see its details; Shift+drag to aggregate an area."));
}

void SliceDetailsPanel::showMessage(const QString& text) {
    m_details.reset();
    setHtml(QStringLiteral("<p style='color:%1'>%2</p>")
                .arg(palette().color(QPalette::PlaceholderText).name(), text.toHtmlEscaped()));
}

void SliceDetailsPanel::showDetails(const ts::timeline::SliceDetails& d, int64_t originNs) {
    m_details = d;
    m_origin = originNs;
    m_expanded.clear();
    render();
}

bool SliceDetailsPanel::expandArg(const QString& key) {
    if (!m_details) return false;
    const QJsonObject args =
        QJsonDocument::fromJson(QByteArray::fromStdString(m_details->argsJson)).object();
    if (!args.contains(key) || argText(args.value(key)).size() <= kLongValue) return false;
    m_expanded.insert(key);
    const int scroll = verticalScrollBar()->value();
    render();
    verticalScrollBar()->setValue(scroll);
    return true;
}

void SliceDetailsPanel::render() {
    const ts::timeline::SliceDetails& d = *m_details;
    // Two columns: the slice's facts, then its flows and args; in each, labels in a column
    // of their own that never wraps, values that wrap.
    QString h = QStringLiteral(
                    "<h3>%1</h3><table width='100%'><tr><td valign='top' width='34%'>"
                    "<table cellspacing=3>")
                    .arg(wrappable(QString::fromStdString(d.name), false));
    auto row = [&](const QString& k, const QString& v) {
        h += QStringLiteral("<tr><td nowrap valign='top'><b>%1</b></td><td>%2</td></tr>").arg(k, v);
    };
    row(tr("Category"), d.category.empty() ? QStringLiteral("—") : esc(d.category));
    row(tr("Track"), wrappable(QString::fromStdString(d.track), false));
    row(tr("Start"), durHtml(d.ts - m_origin) + QStringLiteral(" (%1 ns)").arg(d.ts));
    row(tr("Duration"), durHtml(d.dur) + (d.unfinished ? tr(" (unfinished)") : QString()));
    row(tr("Self time"), durHtml(d.selfNs));
    row(tr("Depth"), QString::number(d.depth));
    row(tr("Slice id"), QString::number(d.id));
    h += QStringLiteral("</table></td><td valign='top'><table cellspacing=3 width='100%'>");
    auto flows = [&](const QString& title, const std::vector<ts::timeline::FlowLink>& links) {
        if (links.empty()) return;
        QString list;
        for (const auto& l : links)
            list += QStringLiteral("%4<a href='slice:%1'>%2</a> %3<br>")
                        .arg(l.sliceId)
                        .arg(esc(l.name.empty() ? "slice " + std::to_string(l.sliceId) : l.name))
                        .arg(l.flowName.empty() ? QString()
                                                : QStringLiteral("(%1)").arg(esc(l.flowName)))
                        .arg(l.via.empty() ? QString() : esc(l.via) + QStringLiteral(" \u2192 "));
        row(title, list);
    };
    flows(tr("Flows in"), d.flowsIn);
    flows(tr("Flows out"), d.flowsOut);
    flows(tr("Flows out of nested calls"), d.nestedFlowsOut);
    if (d.nestedFlowsMore > 0)
        row(QString(), tr("… and %L1 more from nested calls").arg(d.nestedFlowsMore));
    if (!d.argsJson.empty()) {
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(d.argsJson));
        if (doc.isObject()) {
            h += QStringLiteral("<tr><td colspan=2><b>%1</b></td></tr>").arg(tr("Args"));
            const QJsonObject args = doc.object();
            for (auto it = args.begin(); it != args.end(); ++it) {
                const QString key = it.key(), text = argText(it.value());
                const bool stack = key.contains(QLatin1String("stack"), Qt::CaseInsensitive);
                QString value;
                if (text.size() > kLongValue && !m_expanded.contains(key)) {
                    value = wrappable(text.left(kLongValue - 40), false) +
                            QStringLiteral("… <a href='expand:%1'>%2</a>")
                                .arg(QString::fromUtf8(QUrl::toPercentEncoding(key)),
                                     tr("show all %L1 characters").arg(text.size()));
                } else {
                    value = wrappable(text, stack);
                }
                row(key.toHtmlEscaped(), value);
            }
        } else {
            row(tr("Args"), wrappable(QString::fromStdString(d.argsJson), false));
        }
    }
    h += QStringLiteral("</table></td></tr></table>");
    setHtml(h);
}
