#include "core/log/log_level.h"

#include <cctype>
#include <string>

namespace ts::log {
namespace {

constexpr std::array<std::string_view, kLevelCount> kLevelNames = {"DEBUG", "INFO", "WARNING",
                                                                   "ERROR", "CRITICAL"};
constexpr std::array<std::string_view, kSubModuleCount> kModuleNames = {
    "ENGINE", "OPS",      "AUTOGRAD", "DATASET",  "OPTIMIZER", "CHECKPOINT", "DEBUG", "PROFILER",
    "STORE",  "TIMELINE", "ANALYSIS", "IMPORTER", "UI",        "CLI",        "COMMON"};

bool equalsNoCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::toupper(static_cast<unsigned char>(a[i])) !=
            std::toupper(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

}  // namespace

std::string_view levelName(Level level) {
    const auto i = static_cast<size_t>(level);
    return i < kLevelNames.size() ? kLevelNames[i] : std::string_view("UNKNOWN");
}

std::optional<Level> parseLevel(std::string_view text) {
    if (text.size() == 1 && text[0] >= '0' && text[0] <= '4')
        return static_cast<Level>(text[0] - '0');
    for (int i = 0; i < kLevelCount; ++i)
        if (equalsNoCase(text, kLevelNames[static_cast<size_t>(i)])) return static_cast<Level>(i);
    if (equalsNoCase(text, "WARN")) return Level::Warning;
    if (equalsNoCase(text, "FATAL") || equalsNoCase(text, "EXCEPTION")) return Level::Critical;
    if (equalsNoCase(text, "EVENT") || equalsNoCase(text, "TRACE")) return Level::Info;
    return std::nullopt;
}

std::string_view subModuleName(SubModule m) {
    const auto i = static_cast<size_t>(m);
    return i < kModuleNames.size() ? kModuleNames[i] : std::string_view("UNKNOWN");
}

std::optional<SubModule> parseSubModule(std::string_view name) {
    for (size_t i = 0; i < kModuleNames.size(); ++i)
        if (equalsNoCase(name, kModuleNames[i])) return static_cast<SubModule>(i);
    return std::nullopt;
}

const std::array<SubModule, kSubModuleCount>& allSubModules() {
    static const std::array<SubModule, kSubModuleCount> all = [] {
        std::array<SubModule, kSubModuleCount> a{};
        for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<SubModule>(i);
        return a;
    }();
    return all;
}

}  // namespace ts::log
