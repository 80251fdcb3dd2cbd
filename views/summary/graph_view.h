#pragma once
// GraphView (view "graph"): the graph of a MindSpore summary file (graph_def: what
// SummaryCollector's collect_graph and SummaryRecord.set_graph write) as a searchable scope
// tree (Default > network-WithLossCell > _backbone-LeNet5 > conv1-Conv2d > Conv2D-op0, with
// parameters and constants apart) and, for the selected node, its op type, full name,
// inputs (links to them), output type and shape and attributes. Where the session holds a
// profile whose ops carry the node's name, the details count them and "Show in timeline"
// selects the first; HDF5 dump tensors of the op type and the tensor files of the op in the
// session's MindSpore dump iterations are counted the same way.
#include "views/summary/summary_kind_view.h"

#include "core/summary/graph_model.h"

class QLineEdit;
class QLabel;
class QPushButton;
class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;

class GraphView : public SummaryKindView {
    Q_OBJECT
public:
    explicit GraphView(SessionContext* ctx, QWidget* parent = nullptr);
    QTreeWidget* tree() const { return m_tree; }
    QTextBrowser* details() const { return m_details; }
    QLineEdit* search() const { return m_search; }
    const ts::summary::GraphModel& graph() const { return m_graph; }
    /// Selects the node `index` of graph().nodes (expanding its scopes).
    void selectNode(size_t index);
    /// Searches (as the field does); returns the number of matches.
    int find(const QString& text);

signals:
    /// The selected node's profile/dump links were looked up.
    void linksLooked();

protected:
    void showValues(qint64 runId, const QString& tag,
                    std::vector<ts::summary::StoredValue> values) override;
    void showNothing(const QString& message) override;

private:
    void buildTree();
    void showDetails(QTreeWidgetItem* item);
    void lookUpLinks(size_t index);

    QLineEdit* m_search;
    QLabel* m_found;
    QTreeWidget* m_tree;
    QTextBrowser* m_details;
    QPushButton* m_showInTimeline;
    ts::summary::GraphModel m_graph;
    std::vector<QTreeWidgetItem*> m_nodeItems;
    std::vector<size_t> m_matches;
    size_t m_matchPos = 0;
    qint64 m_firstSlice = -1;
    QString m_linksHtml;
};
