#include "app/gui/view_list.h"

#include "views/logs/logs_view_info.h"
#include "views/rdr/rdr_view_info.h"
#include "views/session/session_summary_view.h"

const std::vector<ViewInfo>& allViews() {
    static const std::vector<ViewInfo> views = [] {
        std::vector<ViewInfo> v;
        v.push_back(summaryViewInfo());
        v.push_back(rdrViewInfo());   // RDR folders (rdr_index.json, rank_*/rdr)
        v.push_back(logsViewInfo());  // text logs: glog, MindSpore, plog, tracebacks
        return v;
    }();
    return views;
}
