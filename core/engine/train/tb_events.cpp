#include "core/engine/train/tb_events.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <cstring>

#include "core/engine/train/proto_wire.h"

namespace ts::engine::tb {

namespace {
const std::array<uint32_t, 256>& table() {
    static const std::array<uint32_t, 256> t = [] {
        std::array<uint32_t, 256> a{};
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
            a[i] = c;
        }
        return a;
    }();
    return t;
}

uint64_t le64(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
uint32_t le32(const char* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

/// Scalar value of a TensorProto with one element; nullopt otherwise.
std::optional<double> tensorScalar(std::string_view bytes) {
    wire::Reader r(bytes);
    uint32_t f;
    int t;
    int dtype = 0;
    int64_t elems = 1;
    std::string_view content;
    std::optional<double> val;
    while (r.next(f, t)) {
        uint64_t v;
        std::string_view s;
        if (f == 1 && t == 0 && r.readVarint(v)) {
            dtype = static_cast<int>(v);
        } else if (f == 2 && t == 2 && r.readBytes(s)) {
            wire::Reader shape(s);
            uint32_t sf;
            int st;
            while (shape.next(sf, st)) {
                std::string_view dim;
                if (sf == 2 && st == 2 && shape.readBytes(dim)) {
                    wire::Reader d(dim);
                    uint32_t df;
                    int dt;
                    while (d.next(df, dt)) {
                        uint64_t size;
                        if (df == 1 && dt == 0 && d.readVarint(size))
                            elems *= static_cast<int64_t>(size);
                        else if (!d.skip(dt))
                            break;
                    }
                } else if (!shape.skip(st)) {
                    break;
                }
            }
        } else if (f == 4 && t == 2 && r.readBytes(s)) {
            content = s;
        } else if (f == 5 && (t == 5 || t == 2)) {  // float_val
            float x;
            if (t == 5) {
                if (!r.readFixed(&x, 4)) break;
            } else {
                if (!r.readBytes(s) || s.size() < 4) break;
                std::memcpy(&x, s.data(), 4);
            }
            val = x;
        } else if (f == 6 && (t == 1 || t == 2)) {  // double_val
            double x;
            if (t == 1) {
                if (!r.readFixed(&x, 8)) break;
            } else {
                if (!r.readBytes(s) || s.size() < 8) break;
                std::memcpy(&x, s.data(), 8);
            }
            val = x;
        } else if ((f == 7 || f == 10) && t == 0 && r.readVarint(v)) {
            val = static_cast<double>(static_cast<int64_t>(v));
        } else if (!r.skip(t)) {
            break;
        }
    }
    if (!r.ok() || elems != 1) return std::nullopt;
    if (!content.empty()) {
        if (dtype == 1 && content.size() == 4) {
            float x;
            std::memcpy(&x, content.data(), 4);
            return x;
        }
        if (dtype == 2 && content.size() == 8) {
            double x;
            std::memcpy(&x, content.data(), 8);
            return x;
        }
        if (dtype == 3 && content.size() == 4)
            return static_cast<double>(static_cast<int32_t>(le32(content.data())));
        if (dtype == 9 && content.size() == 8)
            return static_cast<double>(static_cast<int64_t>(le64(content.data())));
        return std::nullopt;
    }
    return val;
}
}  // namespace

uint32_t crc32c(const void* data, size_t n) {
    const auto& t = table();
    uint32_t c = 0xFFFFFFFFu;
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < n; ++i) c = t[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

uint32_t maskedCrc(const void* data, size_t n) {
    const uint32_t c = crc32c(data, n);
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

std::optional<Event> decodeEvent(std::string_view bytes) {
    Event ev;
    wire::Reader r(bytes);
    uint32_t f;
    int t;
    while (r.next(f, t)) {
        uint64_t v;
        std::string_view s;
        if (f == 1 && t == 1) {
            if (!r.readFixed(&ev.wallTime, 8)) break;
        } else if (f == 2 && t == 0 && r.readVarint(v)) {
            ev.step = static_cast<int64_t>(v);
        } else if (f == 3 && t == 2 && r.readBytes(s)) {
            ev.fileVersion = std::string(s);
        } else if (f == 5 && t == 2 && r.readBytes(s)) {
            wire::Reader sum(s);
            uint32_t sf;
            int st;
            while (sum.next(sf, st)) {
                std::string_view val;
                if (sf == 1 && st == 2 && sum.readBytes(val)) {
                    wire::Reader vr(val);
                    uint32_t vf;
                    int vt;
                    ScalarValue sv;
                    bool have = false, other = false;
                    while (vr.next(vf, vt)) {
                        std::string_view b;
                        if (vf == 1 && vt == 2 && vr.readBytes(b)) {
                            sv.tag = std::string(b);
                        } else if (vf == 2 && vt == 5) {
                            float x;
                            if (!vr.readFixed(&x, 4)) break;
                            sv.value = x;
                            have = true;
                        } else if (vf == 8 && vt == 2 && vr.readBytes(b)) {
                            if (auto x = tensorScalar(b)) {
                                sv.value = *x;
                                have = true;
                            } else {
                                other = true;
                            }
                        } else if (vt == 2 && vr.readBytes(b)) {
                            if (vf == 3 || vf == 4 || vf == 5 || vf == 6)
                                other = true;  // image/histo/audio
                        } else if (!vr.skip(vt)) {
                            break;
                        }
                    }
                    if (!vr.ok()) return std::nullopt;
                    if (have)
                        ev.scalars.push_back(std::move(sv));
                    else if (other)
                        ++ev.nonScalarValues;
                } else if (!sum.skip(st)) {
                    break;
                }
            }
            if (!sum.ok()) return std::nullopt;
        } else if (!r.skip(t)) {
            break;
        }
    }
    if (!r.ok()) return std::nullopt;
    return ev;
}

std::string encodeScalarEvent(double wallTime, int64_t step, const std::string& tag, float value) {
    std::string val;
    wire::fieldBytes(val, 1, tag);
    wire::fieldFloat(val, 2, value);
    std::string summary;
    wire::fieldBytes(summary, 1, val);
    std::string ev;
    wire::fieldDouble(ev, 1, wallTime);
    wire::fieldVarint(ev, 2, static_cast<uint64_t>(step));
    wire::fieldBytes(ev, 5, summary);
    return ev;
}

std::string encodeVersionEvent(double wallTime) {
    std::string ev;
    wire::fieldDouble(ev, 1, wallTime);
    wire::fieldBytes(ev, 3, "brain.Event:2");
    return ev;
}

namespace {
double wallNow() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}
}  // namespace

Result<std::unique_ptr<EventWriter>> EventWriter::open(const std::string& dir) {
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    std::unique_ptr<EventWriter> w(new EventWriter());
    w->m_path = dir + "/events.out.tfevents." + std::to_string(static_cast<int64_t>(wallNow())) +
                "." + host;
    w->m_file = std::fopen(w->m_path.c_str(), "wb");
    if (!w->m_file) return Error{"cannot write " + w->m_path};
    w->writeRecord(encodeVersionEvent(wallNow()));
    return w;
}

EventWriter::~EventWriter() {
    if (m_file) std::fclose(m_file);
}

void EventWriter::writeRecord(const std::string& data) {
    char head[12];
    const uint64_t len = data.size();
    std::memcpy(head, &len, 8);
    const uint32_t lc = maskedCrc(head, 8);
    std::memcpy(head + 8, &lc, 4);
    const uint32_t dc = maskedCrc(data.data(), data.size());
    std::fwrite(head, 1, 12, m_file);
    std::fwrite(data.data(), 1, data.size(), m_file);
    std::fwrite(&dc, 1, 4, m_file);
}

void EventWriter::addScalar(const std::string& tag, int64_t step, float value) {
    writeRecord(encodeScalarEvent(wallNow(), step, tag, value));
}

void EventWriter::flush() {
    std::fflush(m_file);
}

RecordReader::Outcome RecordReader::next(std::string_view& record) {
    if (m_pos >= m_d.size()) return Outcome::End;
    if (m_d.size() - m_pos < 12) return Outcome::Truncated;
    const char* p = m_d.data() + m_pos;
    const uint64_t len = le64(p);
    if (maskedCrc(p, 8) != le32(p + 8)) {
        m_pos = m_d.size();  // the length cannot be trusted: no way to find the next record
        return Outcome::BadCrc;
    }
    if (len > m_d.size() - m_pos - 12 || m_d.size() - m_pos - 12 - len < 4)
        return Outcome::Truncated;
    record = m_d.substr(m_pos + 12, len);
    const uint32_t crc = le32(p + 12 + len);
    m_pos += 12 + len + 4;
    if (maskedCrc(record.data(), record.size()) != crc) return Outcome::BadCrc;
    return Outcome::Record;
}

}  // namespace ts::engine::tb
