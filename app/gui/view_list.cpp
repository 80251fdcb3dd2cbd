#include "app/gui/view_list.h"

#include "views/dumps/dumps_view_info.h"
#include "views/session/session_summary_view.h"

const std::vector<ViewInfo>& allViews() {
    static const std::vector<ViewInfo> views = [] {
        std::vector<ViewInfo> v;
        v.push_back(summaryViewInfo());
        v.push_back(hdf5InspectorViewInfo());  // accepts *.h5: `trainscope FILE.h5`
        v.push_back(overflowViewInfo());
        v.push_back(compareViewInfo());
        return v;
    }();
    return views;
}
