#pragma once
// SliceDetailsPanel: name, category, start, duration, self time, args and the flows in and
// out of the selected slice; a flow is a link that selects its other end. Labels never
// shrink: long values (a 1,300-character "Call stack") wrap at path and list separators,
// and beyond kLongValue characters show their start with a link that shows them whole.
#include <QSet>
#include <QTextBrowser>
#include <optional>

#include "core/timeline/slice_details.h"

class SliceDetailsPanel : public QTextBrowser {
    Q_OBJECT
public:
    static constexpr int kLongValue = 240;

    explicit SliceDetailsPanel(QWidget* parent = nullptr);
    /// Shows `d`; `originNs` is subtracted from times shown as "start".
    void showDetails(const ts::timeline::SliceDetails& d, int64_t originNs);
    void showMessage(const QString& text);
    /// Shows the whole value of arg `key` (what its "show all" link does); false when the
    /// shown slice has no such long arg.
    bool expandArg(const QString& key);

signals:
    void sliceLinkActivated(qint64 sliceId);

private:
    void render();

    std::optional<ts::timeline::SliceDetails> m_details;
    int64_t m_origin = 0;
    QSet<QString> m_expanded;  // args shown whole
};
