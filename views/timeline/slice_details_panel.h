#pragma once
// SliceDetailsPanel: name, category, start, duration, self time, args (pretty JSON) and the
// flows in and out of the selected slice; a flow is a link that selects its other end.
#include <QTextBrowser>

#include "core/timeline/slice_details.h"

class SliceDetailsPanel : public QTextBrowser {
    Q_OBJECT
public:
    explicit SliceDetailsPanel(QWidget* parent = nullptr);
    /// Shows `d`; `originNs` is subtracted from times shown as "start".
    void showDetails(const ts::timeline::SliceDetails& d, int64_t originNs);
    void showMessage(const QString& text);

signals:
    void sliceLinkActivated(qint64 sliceId);
};
