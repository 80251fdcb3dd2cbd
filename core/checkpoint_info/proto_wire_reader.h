#pragma once
// ProtoWireReader: a minimal reader of the protocol-buffer wire format over a seekable
// stream, for inspecting files without generated code. It reads one message between two
// byte offsets; nested messages get a reader over their own range. Large `bytes` fields
// are skipped with a seek, so a multi-gigabyte checkpoint is never loaded. Every read
// checks the bounds and reports the byte offset of what is wrong.
#include <cstdint>
#include <istream>
#include <string>

#include "core/common/result.h"

namespace ts::checkpoint_info {

enum class WireType : int {
    Varint = 0,
    Fixed64 = 1,
    LengthDelimited = 2,
    StartGroup = 3,
    EndGroup = 4,
    Fixed32 = 5
};

/// One field header: field number and wire type.
struct FieldTag {
    uint32_t field = 0;
    WireType type = WireType::Varint;
};

class ProtoWireReader {
public:
    /// Reads the message in [begin, end) of `in`.
    ProtoWireReader(std::istream& in, uint64_t begin, uint64_t end);

    bool atEnd() const { return m_pos >= m_end; }
    uint64_t pos() const { return m_pos; }
    uint64_t end() const { return m_end; }

    Result<FieldTag> readTag();
    Result<uint64_t> readVarint();
    /// Length of a length-delimited field; error when it runs past the message.
    Result<uint64_t> readLength();
    /// The next `n` bytes as a string (n must fit in the message).
    Result<std::string> readBytes(uint64_t n);
    /// Skips `n` bytes (bounds-checked).
    Status skip(uint64_t n);
    /// Skips the value of a field of wire type `type` (groups are refused).
    Status skipValue(WireType type);
    /// A reader over the next `n` bytes, which this reader then skips.
    Result<ProtoWireReader> subMessage(uint64_t n);

private:
    Error error(const std::string& what) const;

    std::istream* m_in;
    uint64_t m_pos;
    uint64_t m_end;
};

}  // namespace ts::checkpoint_info
