#pragma once
// TraceEventParser: one event object of the events array, parsed from a window that holds
// it whole, straight into a ChromeEvent: the known keys matched in place, field values as
// their raw text (strings unescaped, numbers as written), `args`, `id2` and `stack` as their
// exact source text, the top-level members of `args` collected for C, M and c events (or when
// `ph` comes after `args`), ts/dur turned into ns. Stack frames and global samples are parsed
// the same way (their keys `sf`, `parent`, `category` among the known ones). A trailing comma
// before a closing bracket is accepted (as Perfetto does); args that had one say so
// (ChromeEvent::argsTrailingCommas). If the window ends inside the event it answers NeedMore
// and the caller parses the event again from its '{' once the window holds more.
#include <cstdint>
#include <optional>
#include <string>

#include "importers/chrome_trace/chrome_event.h"
#include "importers/chrome_trace/json_scan.h"
#include "importers/chrome_trace/json_skipper.h"

namespace ts::importers::chrome {

class TraceEventParser {
public:
    /// The event whose '{' is at p (byte `offset` of the document) into e; `out` past its '}'.
    json::Status parse(json::Scan& s, const char* p, const char*& out, ChromeEvent& e,
                       int64_t offset);

private:
    json::Status member(json::Scan& s, const char*& p, const char* k, int field, ChromeEvent& e);
    json::Status otherMember(json::Scan& s, const char*& p, ChromeEvent& e);
    json::Status text(json::Scan& s, const char*& p, std::string& dst, bool& has);
    json::Status time(json::Scan& s, const char*& p, std::string& dst, bool& has,
                      std::optional<int64_t>& ns);
    json::Status flag(json::Scan& s, const char*& p, bool& flag);
    json::Status args(json::Scan& s, const char*& p, ChromeEvent& e);
    json::Status id2(json::Scan& s, const char*& p, ChromeEvent& e);
    json::Status raw(json::Scan& s, const char*& p, std::string& dst);
    template <bool Collect>
    json::Status members(json::Scan& s, const char*& p, ChromeEvent& e);
    json::Status argValue(json::Scan& s, const char*& p, ChromeEvent& e);
    json::Status skip(json::Scan& s, const char*& p);
    json::Status skipContainer(json::Scan& s, const char*& p);

    json::JsonSkipper m_skipper;
    std::string m_key;        // a key written with escapes, unescaped
    std::string m_argKey;     // the current key of `args`
    bool m_trailing = false;  // args had a trailing comma at its own level
};

}  // namespace ts::importers::chrome
