#pragma once
// Log levels (MindSpore/glog numbering) and the sub-modules every log call names.
// Sub-modules are named after our source folders (table in docs/LOGGING.md);
// MS_SUBMODULE_LOG_v uses these names.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ts::log {

/// 0 DEBUG, 1 INFO, 2 WARNING, 3 ERROR, 4 CRITICAL; a module prints records >= its level.
enum class Level : uint8_t { Debug = 0, Info = 1, Warning = 2, Error = 3, Critical = 4 };
inline constexpr int kLevelCount = 5;

/// "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL".
std::string_view levelName(Level level);
/// A level from its number ("0".."4") or name (case-insensitive; also WARN, FATAL,
/// EXCEPTION -> CRITICAL, EVENT -> INFO); nullopt when neither.
std::optional<Level> parseLevel(std::string_view text);

/// The parts of TrainScope that log; each has its own level.
enum class SubModule : uint8_t {
    Engine,
    Ops,
    Autograd,
    Dataset,
    Optimizer,
    Checkpoint,
    Debug,
    Profiler,
    Store,
    Timeline,
    Analysis,
    Importer,
    Ui,
    Cli,
    Common,
};
inline constexpr int kSubModuleCount = 15;

/// Upper-case name used in records and MS_SUBMODULE_LOG_v: "ENGINE", "OPS", ...
std::string_view subModuleName(SubModule m);
/// A sub-module by name (case-insensitive); nullopt when unknown.
std::optional<SubModule> parseSubModule(std::string_view name);
/// Every sub-module, in enum order.
const std::array<SubModule, kSubModuleCount>& allSubModules();

namespace detail {
// Names the logging macros paste onto: TS_LOG(ENGINE, INFO) -> kModule_ENGINE, kLevel_INFO.
inline constexpr SubModule kModule_ENGINE = SubModule::Engine;
inline constexpr SubModule kModule_OPS = SubModule::Ops;
inline constexpr SubModule kModule_AUTOGRAD = SubModule::Autograd;
inline constexpr SubModule kModule_DATASET = SubModule::Dataset;
inline constexpr SubModule kModule_OPTIMIZER = SubModule::Optimizer;
inline constexpr SubModule kModule_CHECKPOINT = SubModule::Checkpoint;
inline constexpr SubModule kModule_DEBUG = SubModule::Debug;
inline constexpr SubModule kModule_PROFILER = SubModule::Profiler;
inline constexpr SubModule kModule_STORE = SubModule::Store;
inline constexpr SubModule kModule_TIMELINE = SubModule::Timeline;
inline constexpr SubModule kModule_ANALYSIS = SubModule::Analysis;
inline constexpr SubModule kModule_IMPORTER = SubModule::Importer;
inline constexpr SubModule kModule_UI = SubModule::Ui;
inline constexpr SubModule kModule_CLI = SubModule::Cli;
inline constexpr SubModule kModule_COMMON = SubModule::Common;
inline constexpr Level kLevel_DEBUG = Level::Debug;
inline constexpr Level kLevel_INFO = Level::Info;
inline constexpr Level kLevel_WARNING = Level::Warning;
inline constexpr Level kLevel_ERROR = Level::Error;
inline constexpr Level kLevel_CRITICAL = Level::Critical;
}  // namespace detail

}  // namespace ts::log
