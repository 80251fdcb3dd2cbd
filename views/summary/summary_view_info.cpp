#include "views/summary/summary_view_info.h"

#include "views/summary/graph_view.h"
#include "views/summary/histograms_view.h"
#include "views/summary/images_view.h"
#include "views/summary/landscape_view.h"
#include "views/summary/lineage_view.h"
#include "views/summary/tensors_view.h"

namespace {
template <class V>
ViewInfo info(const char* name, const QString& title) {
    ViewInfo v;
    v.name = QString::fromLatin1(name);
    v.title = title;
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* { return new V(ctx, parent); };
    return v;
}
}  // namespace

ViewInfo histogramsViewInfo() {
    return info<HistogramsView>("histograms", QObject::tr("Histograms"));
}
ViewInfo imagesViewInfo() {
    return info<ImagesView>("images", QObject::tr("Images"));
}
ViewInfo tensorsViewInfo() {
    return info<TensorsView>("tensors", QObject::tr("Tensors"));
}
ViewInfo landscapeViewInfo() {
    return info<LandscapeView>("landscape", QObject::tr("Loss landscape"));
}
ViewInfo graphViewInfo() {
    return info<GraphView>("graph", QObject::tr("Graph"));
}
ViewInfo lineageViewInfo() {
    return info<LineageView>("lineage", QObject::tr("Lineage"));
}
