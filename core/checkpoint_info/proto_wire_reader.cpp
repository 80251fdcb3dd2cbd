#include "core/checkpoint_info/proto_wire_reader.h"

namespace ts::checkpoint_info {

ProtoWireReader::ProtoWireReader(std::istream& in, uint64_t begin, uint64_t end)
    : m_in(&in), m_pos(begin), m_end(end) {}

Error ProtoWireReader::error(const std::string& what) const {
    return Error{what + " at byte " + std::to_string(m_pos)};
}

Result<uint64_t> ProtoWireReader::readVarint() {
    const uint64_t start = m_pos;
    m_in->clear();
    m_in->seekg(static_cast<std::streamoff>(m_pos));
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (m_pos >= m_end) {
            m_pos = start;
            return error("truncated varint");
        }
        const int c = m_in->get();
        if (c == std::char_traits<char>::eof()) {
            m_pos = start;
            return error("file ends inside a varint");
        }
        ++m_pos;
        v |= static_cast<uint64_t>(c & 0x7f) << shift;
        if (!(c & 0x80)) return v;
    }
    m_pos = start;
    return error("varint longer than 10 bytes");
}

Result<FieldTag> ProtoWireReader::readTag() {
    auto v = readVarint();
    if (!v) return Error{v.error()};
    const uint64_t type = v.value() & 7;
    const uint64_t field = v.value() >> 3;
    if (field == 0 || field > 0x1fffffff || type > 5)
        return error("invalid field tag " + std::to_string(v.value()));
    return FieldTag{static_cast<uint32_t>(field), static_cast<WireType>(type)};
}

Result<uint64_t> ProtoWireReader::readLength() {
    auto n = readVarint();
    if (!n) return n;
    if (n.value() > m_end - m_pos)
        return error("field of " + std::to_string(n.value()) +
                     " bytes runs past the end of its message (" + std::to_string(m_end - m_pos) +
                     " bytes left)");
    return n;
}

Result<std::string> ProtoWireReader::readBytes(uint64_t n) {
    if (n > m_end - m_pos) return error("field runs past the end of its message");
    m_in->clear();
    m_in->seekg(static_cast<std::streamoff>(m_pos));
    std::string out(n, '\0');
    m_in->read(out.data(), static_cast<std::streamsize>(n));
    if (static_cast<uint64_t>(m_in->gcount()) != n) return error("file ends inside a field");
    m_pos += n;
    return out;
}

Status ProtoWireReader::skip(uint64_t n) {
    if (n > m_end - m_pos) return error("field runs past the end of its message");
    m_pos += n;
    return Status::success();
}

Status ProtoWireReader::skipValue(WireType type) {
    switch (type) {
        case WireType::Varint: {
            auto v = readVarint();
            return v ? Status::success() : Status(Error{v.error()});
        }
        case WireType::Fixed64:
            return skip(8);
        case WireType::Fixed32:
            return skip(4);
        case WireType::LengthDelimited: {
            auto n = readLength();
            if (!n) return Error{n.error()};
            return skip(n.value());
        }
        case WireType::StartGroup:
        case WireType::EndGroup:
            break;
    }
    return error("groups are not supported");
}

Result<ProtoWireReader> ProtoWireReader::subMessage(uint64_t n) {
    if (n > m_end - m_pos) return error("message runs past the end of its parent");
    ProtoWireReader sub(*m_in, m_pos, m_pos + n);
    m_pos += n;
    return sub;
}

}  // namespace ts::checkpoint_info
