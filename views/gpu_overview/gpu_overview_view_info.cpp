#include "views/gpu_overview/gpu_overview_view_info.h"

#include "views/gpu_overview/gpu_overview_view.h"

ViewInfo gpuOverviewViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("gpu");
    v.title = QObject::tr("GPU");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new GpuOverviewView(ctx, parent);
    };
    v.openByDefault = false;
    return v;
}
