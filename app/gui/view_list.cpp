#include "app/gui/view_list.h"

#include "views/session/session_summary_view.h"

const std::vector<ViewInfo>& allViews() {
    static const std::vector<ViewInfo> views = [] {
        std::vector<ViewInfo> v;
        v.push_back(summaryViewInfo());
        return v;
    }();
    return views;
}
