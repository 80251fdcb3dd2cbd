#include "app/gui/view_list.h"

#include "views/session/session_summary_view.h"
#include "views/stats/stats_view_info.h"
#include "views/timeline/timeline_view_info.h"

const std::vector<ViewInfo>& allViews() {
    static const std::vector<ViewInfo> views = [] {
        std::vector<ViewInfo> v;
        v.push_back(summaryViewInfo());
        v.push_back(timelineViewInfo());
        v.push_back(statsViewInfo());
        return v;
    }();
    return views;
}
