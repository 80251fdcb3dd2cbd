#include "app/gui/view_list.h"

#include "views/checkpoint/checkpoint_view_info.h"
#include "views/curves/curves_view_info.h"
#include "views/session/session_summary_view.h"
#include "views/training/training_view_info.h"

const std::vector<ViewInfo>& allViews() {
    static const std::vector<ViewInfo> views = [] {
        std::vector<ViewInfo> v;
        v.push_back(summaryViewInfo());
        v.push_back(trainingViewInfo());
        v.push_back(curvesViewInfo());
        v.push_back(checkpointViewInfo());
        return v;
    }();
    return views;
}
