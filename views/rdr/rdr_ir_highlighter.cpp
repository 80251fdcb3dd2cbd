#include "views/rdr/rdr_ir_highlighter.h"

namespace {
QTextCharFormat fmt(const QColor& c, bool bold = false, bool italic = false) {
    QTextCharFormat f;
    f.setForeground(c);
    if (bold) f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}
}  // namespace

RdrIrHighlighter::RdrIrHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {
    m_rules.push_back({QRegularExpression(QStringLiteral("\\b\\d+(\\.\\d+)?\\b")),
                       fmt(QColor(0x98, 0x5f, 0x00))});
    m_rules.push_back(
        {QRegularExpression(QStringLiteral("%[A-Za-z0-9_.]+")), fmt(QColor(0x1f, 0x5f, 0xbf))});
    m_rules.push_back({QRegularExpression(QStringLiteral("%para[0-9]*_[A-Za-z0-9_.]+")),
                       fmt(QColor(0x8a, 0x2b, 0xe2), true)});
    m_rules.push_back({QRegularExpression(QStringLiteral("=\\s*([A-Za-z_][A-Za-z0-9_]*)\\(")),
                       fmt(QColor(0xb0, 0x30, 0x30), true), 1});
    m_rules.push_back(
        {QRegularExpression(QStringLiteral(
             "<[A-Za-z]+\\[[A-Za-z0-9]+\\][^>]*>|\\b(float|int|uint|bool|bfloat)\\d*\\b|"
             "\\b(Float|Int|UInt|Bool)\\d*\\b")),
         fmt(QColor(0x2e, 0x7d, 0x32))});
    m_rules.push_back({QRegularExpression(QStringLiteral("^\\s*(cell)\\b")),
                       fmt(QColor(0x00, 0x5f, 0x87), true), 1});
    m_rules.push_back({QRegularExpression(QStringLiteral("^\\s*cell\\s+[^:]+:\\s*(\\S+)")),
                       fmt(QColor(0x00, 0x5f, 0x87), true), 1});
    m_comment = fmt(QColor(0x80, 0x80, 0x80), false, true);
}

void RdrIrHighlighter::highlightBlock(const QString& text) {
    const int hash = text.indexOf(QLatin1Char('#'));
    const int codeEnd = hash < 0 ? text.size() : hash;
    const QString code = text.left(codeEnd);
    for (const Rule& r : m_rules) {
        auto it = r.pattern.globalMatch(code);
        while (it.hasNext()) {
            const auto m = it.next();
            setFormat(m.capturedStart(r.group), m.capturedLength(r.group), r.format);
        }
    }
    if (hash >= 0) setFormat(hash, text.size() - hash, m_comment);
}

void RdrLogHighlighter::highlightBlock(const QString& text) {
    struct Level {
        const char* tag;
        QColor color;
        bool bold;
    };
    static const Level levels[] = {{"[CRITICAL]", QColor(160, 0, 120), true},
                                   {"[ERROR]", QColor(210, 30, 30), true},
                                   {"[WARNING]", QColor(200, 120, 0), false},
                                   {"[DEBUG]", QColor(128, 128, 128), false}};
    for (const Level& l : levels) {
        if (!text.startsWith(QLatin1String(l.tag))) continue;
        setFormat(0, static_cast<int>(text.size()), fmt(l.color, l.bold));
        return;
    }
}
