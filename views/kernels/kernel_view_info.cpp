#include "views/kernels/kernel_view_info.h"

#include "views/kernels/kernel_view.h"

ViewInfo kernelViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("kernels");
    v.title = QObject::tr("Kernels");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new KernelView(ctx, parent);
    };
    v.openByDefault = false;
    return v;
}
