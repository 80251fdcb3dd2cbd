#include "app/gui/view_list.h"

#include "views/advice/advice_view_info.h"
#include "views/checkpoint/checkpoint_view_info.h"
#include "views/cluster/cluster_view_info.h"
#include "views/curves/curves_view_info.h"
#include "views/diff/diff_view_info.h"
#include "views/dumps/dumps_view_info.h"
#include "views/gpu_overview/gpu_overview_view_info.h"
#include "views/kernels/kernel_view_info.h"
#include "views/logs/logs_view_info.h"
#include "views/memory/memory_view_info.h"
#include "views/memory/snapshot_view_info.h"
#include "views/msdump/ms_dump_view_info.h"
#include "views/problems/problems_view.h"
#include "views/query/query_view_info.h"
#include "views/rdr/ms_rdr_view_info.h"
#include "views/rdr/rdr_view_info.h"
#include "views/session/session_summary_view.h"
#include "views/stats/stats_view_info.h"
#include "views/steps/steps_view_info.h"
#include "views/summary/summary_view_info.h"
#include "views/timeline/timeline_view_info.h"
#include "views/training/training_view_info.h"

// The order of the View menu and of the tabs as they open.
const std::vector<ViewInfo>& allViews() {
    static const std::vector<ViewInfo> views = [] {
        std::vector<ViewInfo> v;
        v.push_back(summaryViewInfo());
        v.push_back(problemsViewInfo());  // what the importers could not read
        // Training: the panel that runs the engine, its curves, its checkpoints.
        v.push_back(trainingViewInfo());
        v.push_back(curvesViewInfo());
        // Summary files (MindSpore summaries, TensorBoard events): every value kind, lineage.
        v.push_back(histogramsViewInfo());
        v.push_back(imagesViewInfo());
        v.push_back(tensorsViewInfo());
        v.push_back(landscapeViewInfo());
        v.push_back(graphViewInfo());
        v.push_back(lineageViewInfo());
        // Profiling: imported traces and the engine's own profiles look the same here.
        v.push_back(timelineViewInfo());
        v.push_back(statsViewInfo());
        v.push_back(stepsViewInfo());
        v.push_back(gpuOverviewViewInfo());  // the device side: utilisation, split, HTA
        v.push_back(kernelViewInfo());
        v.push_back(memoryViewInfo());
        v.push_back(memorySnapshotViewInfo());  // accepts *.pickle: `trainscope SNAPSHOT.pickle`
        v.push_back(adviceViewInfo());
        v.push_back(diffViewInfo());     // run against run
        v.push_back(clusterViewInfo());  // accepts folders of rank_<r>.tscope
        // Precision debugging.
        v.push_back(hdf5InspectorViewInfo());  // accepts *.h5: `trainscope FILE.h5`
        v.push_back(overflowViewInfo());
        v.push_back(compareViewInfo());
        v.push_back(msDumpViewInfo());  // MindSpore dump folders (rank_*/<net>/<graph>/<iter>)
        // Crash records and logs.
        v.push_back(rdrViewInfo());    // RDR folders (rdr_index.json, rank_*/rdr)
        v.push_back(msRdrViewInfo());  // MindSpore's own RDR folders (rank_*/rdr/<MODULE>_*)
        v.push_back(logsViewInfo());   // text logs: glog, MindSpore, plog, tracebacks
        v.push_back(checkpointViewInfo());
        // Anything else: read-only SQL over the session.
        v.push_back(queryViewInfo());
        return v;
    }();
    return views;
}
