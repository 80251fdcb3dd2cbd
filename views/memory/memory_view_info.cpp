#include "views/memory/memory_view_info.h"

#include "views/memory/memory_view.h"

ViewInfo memoryViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("memory");
    v.title = QObject::tr("Memory");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new MemoryView(ctx, parent);
    };
    v.openByDefault = false;
    return v;
}
