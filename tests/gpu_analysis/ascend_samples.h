#pragma once
// Small Ascend profiler tables in the layouts torch_npu / MindSpore 2.x and msprof-analyze
// write, for the tables no real file of the shared corpus holds. Layouts from their writers'
// source (docs/IMPORT.md, "Ascend profiler folders", names each): torch_npu's
// prof_view/communication_parser.py (communication.json, communication_matrix.json:
// step -> p2p | collective -> "<op>@<group>" -> Communication Time Info / Communication
// Bandwidth Info per link type; links "src-dst"), trace_step_time_parser.py
// (step_trace_time.csv), msprof-analyze's cluster_analyse (cluster_step_trace_time.csv:
// Step, Type, Index + the step trace columns; cluster_communication*.json: rank sets ->
// steps -> operators -> ranks). Numbers chosen so the expected figures can be worked by hand.
namespace ts::test::ascend {

inline constexpr const char* kStepTraceTime =
    "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
    "Communication(Not Overlapped and Exclude Receive),Preparing\n"
    "1,8000.5,1200.25,300,1500.25,450.75,0,0,1200.25,10\n"
    "2,7900,1000,500,1500,400,0,0,1000,12\n";

inline constexpr const char* kOpStatistic =
    "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n"
    "MatMulV2,AI_CORE,40,7464.2,185.5,186.6,190.1,48.2\n"
    "Cast,AI_VECTOR_CORE,120,812.4,3.1,6.77,15.0,5.2\n";

inline constexpr const char* kNpuModuleMem =
    "Device_id,Component,Timestamp(us),Total Reserved(MB),Device\n"
    "0,APP,1736413971550000.000\t,1024.5,NPU:0\n"
    "0,APP,1736413971560000.000\t,2048,NPU:0\n"
    "0,HCCL,1736413971550000.000\t,64,NPU:0\n";

// Two collectives and a send in step 1; bandwidths and ratios as torch_npu writes them.
inline constexpr const char* kCommunication = R"J({
 "step1": {
  "collective": {
   "hcom_allReduce__123_0_1@7364519842012773316": {
    "Communication Time Info": {"Start Timestamp(us)": 1736413971560000.5, "Elapse Time(ms)": 2.5,
      "Transit Time(ms)": 1.5, "Wait Time(ms)": 0.75, "Synchronization Time(ms)": 0.25,
      "Idle Time(ms)": 0.25, "Wait Time Ratio": 0.3333, "Synchronization Time Ratio": 0.1429},
    "Communication Bandwidth Info": {
      "HCCS": {"Transit Size(MB)": 24.0, "Transit Time(ms)": 1.5, "Bandwidth(GB/s)": 16.0,
               "Large Packet Ratio": 1.0, "Size Distribution": {"4.0": [6, 1.5]}},
      "RDMA": {"Transit Size(MB)": 0, "Transit Time(ms)": 0, "Bandwidth(GB/s)": 0,
               "Large Packet Ratio": 0, "Size Distribution": {}}}},
   "hcom_allReduce__123_1_1@7364519842012773316": {
    "Communication Time Info": {"Start Timestamp(us)": 1736413971570000.0, "Elapse Time(ms)": 1.5,
      "Transit Time(ms)": 1.0, "Wait Time(ms)": 0.25, "Synchronization Time(ms)": 0.0,
      "Idle Time(ms)": 0.25, "Wait Time Ratio": 0.2, "Synchronization Time Ratio": 0},
    "Communication Bandwidth Info": {
      "HCCS": {"Transit Size(MB)": 16.0, "Transit Time(ms)": 1.0, "Bandwidth(GB/s)": 16.0,
               "Large Packet Ratio": 1.0, "Size Distribution": {"4.0": [4, 1.0]}}}},
   "Total Op Info": {
    "Communication Time Info": {"Elapse Time(ms)": 4.0, "Transit Time(ms)": 2.5, "Wait Time(ms)": 1.0},
    "Communication Bandwidth Info": {}}
  },
  "p2p": {
   "hcom_send__5_0_1@11836482516021425316": {
    "Communication Time Info": {"Start Timestamp(us)": 1736413971575000.0, "Elapse Time(ms)": 0.5,
      "Transit Time(ms)": 0.5, "Wait Time(ms)": 0.0, "Synchronization Time(ms)": 0.0,
      "Idle Time(ms)": 0.0, "Wait Time Ratio": 0, "Synchronization Time Ratio": 0},
    "Communication Bandwidth Info": {
      "SDMA": {"Transit Size(MB)": 8.0, "Transit Time(ms)": 0.5, "Bandwidth(GB/s)": 16.0,
               "Large Packet Ratio": 1.0, "Size Distribution": {"8.0": [1, 0.5]}}}}
  }
 }
})J";

inline constexpr const char* kCommunicationMatrix = R"J({
 "step1": {
  "collective": {
   "hcom_allReduce__123_0_1@7364519842012773316": {
    "0-1": {"Transport Type": "HCCS", "Transit Size(MB)": 12.0, "Transit Time(ms)": 0.75,
            "Bandwidth(GB/s)": 16.0, "Op Name": "hcom_allReduce__123_0_1"},
    "1-0": {"Transport Type": "HCCS", "Transit Size(MB)": 12.0, "Transit Time(ms)": 1.5,
            "Bandwidth(GB/s)": 8.0, "Op Name": "hcom_allReduce__123_0_1"}},
   "hcom_allReduce__123_1_1@7364519842012773316": {
    "0-1": {"Transport Type": "HCCS", "Transit Size(MB)": 8.0, "Transit Time(ms)": 0.25,
            "Bandwidth(GB/s)": 32.0}},
   "Total Op Info": {"0-1": {"Transport Type": "HCCS", "Transit Size(MB)": 20.0,
            "Transit Time(ms)": 1.0, "Bandwidth(GB/s)": 20.0}}
  },
  "p2p": {}
 }
})J";

// Two ranks, two steps, and the stage row msprof-analyze adds.
inline constexpr const char* kClusterStepTraceTime =
    "Step,Type,Index,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
    "Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n"
    "1,rank,0,8000,1000,500,1500,500,0,0,1000,0\n"
    "1,rank,1,9500,200,500,700,300,0,0,200,0\n"
    "2,rank,0,8100,900,400,1300,400,0,0,900,0\n"
    "2,rank,1,9400,300,400,700,300,0,0,300,0\n"
    "1,stage,\"(0, 1)\",9500,1000,500,1500,500,0,0,1000,0\n";

inline constexpr const char* kClusterCommunication = R"J({
 "(0, 1)": {
  "step1": {
   "hcom_allReduce__123_0_1@7364519842012773316": {
    "0": {"Communication Time Info": {"Start Timestamp(us)": 1.0, "Elapse Time(ms)": 2.0,
           "Transit Time(ms)": 0.5, "Wait Time(ms)": 1.5, "Synchronization Time(ms)": 0.5,
           "Idle Time(ms)": 0.0},
          "Communication Bandwidth Info": {"HCCS": {"Transit Size(MB)": 8.0, "Transit Time(ms)": 0.5,
           "Bandwidth(GB/s)": 16.0, "Large Packet Ratio": 1.0, "Size Distribution": {}}}},
    "1": {"Communication Time Info": {"Start Timestamp(us)": 1.0, "Elapse Time(ms)": 0.6,
           "Transit Time(ms)": 0.5, "Wait Time(ms)": 0.1, "Synchronization Time(ms)": 0.0,
           "Idle Time(ms)": 0.0},
          "Communication Bandwidth Info": {"HCCS": {"Transit Size(MB)": 8.0, "Transit Time(ms)": 0.5,
           "Bandwidth(GB/s)": 16.0, "Large Packet Ratio": 1.0, "Size Distribution": {}}}}
   }
  }
 }
})J";

}  // namespace ts::test::ascend
