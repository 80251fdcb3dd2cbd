#include "app/gui/view_list.h"

#include "views/advice/advice_view_info.h"
#include "views/dumps/dumps_view_info.h"
#include "views/logs/logs_view_info.h"
#include "views/memory/memory_view_info.h"
#include "views/rdr/rdr_view_info.h"
#include "views/session/session_summary_view.h"
#include "views/stats/stats_view_info.h"
#include "views/steps/steps_view_info.h"
#include "views/timeline/timeline_view_info.h"

const std::vector<ViewInfo>& allViews() {
    static const std::vector<ViewInfo> views = [] {
        std::vector<ViewInfo> v;
        v.push_back(summaryViewInfo());
        v.push_back(hdf5InspectorViewInfo());  // accepts *.h5: `trainscope FILE.h5`
        v.push_back(overflowViewInfo());
        v.push_back(compareViewInfo());
        // Profiling a training run (issue 7): the timeline and op statistics show the run's
        // profile like an imported trace; Steps, Memory and Advice analyse it.
        v.push_back(timelineViewInfo());
        v.push_back(statsViewInfo());
        v.push_back(stepsViewInfo());
        v.push_back(memoryViewInfo());
        v.push_back(adviceViewInfo());
        v.push_back(rdrViewInfo());   // RDR folders (rdr_index.json, rank_*/rdr)
        v.push_back(logsViewInfo());  // text logs: glog, MindSpore, plog, tracebacks
        return v;
    }();
    return views;
}
