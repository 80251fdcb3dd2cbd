#pragma once
// Syntax colouring of RDR graph IR text: comments and scope lines, "cell" lines, %value
// names, op names after '=', parameters, tensor types/dtypes and shapes, numbers.
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

class RdrIrHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit RdrIrHighlighter(QTextDocument* doc);

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
        int group = 0;
    };
    std::vector<Rule> m_rules;
    QTextCharFormat m_comment;
};

/// Colours log lines by their level ([ERROR] red, [WARNING] amber, [DEBUG] grey, ...), as
/// the log view does.
class RdrLogHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit RdrLogHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {}

protected:
    void highlightBlock(const QString& text) override;
};
