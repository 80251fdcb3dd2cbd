#include "core/profiler/profile_schedule.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace ts::profiler {

bool ProfileSchedule::parse(const char* text) {
    std::string s(text ? text : "");
    size_t pos = 0;
    while (pos < s.size()) {
        size_t end = s.find(',', pos);
        if (end == std::string::npos) end = s.size();
        const std::string item = s.substr(pos, end - pos);
        pos = end + 1;
        if (item.empty()) continue;
        const size_t eq = item.find('=');
        if (eq == std::string::npos) return false;
        const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
        char* stop = nullptr;
        const long long v = std::strtoll(val.c_str(), &stop, 10);
        if (val.empty() || *stop != '\0' || v < 0) return false;
        if (key == "wait")
            wait = v;
        else if (key == "warmup")
            warmup = v;
        else if (key == "active")
            active = v;
        else if (key == "repeat")
            repeat = v;
        else if (key == "skip_first")
            skipFirst = v;
        else
            return false;
    }
    return active > 0;
}

}  // namespace ts::profiler
