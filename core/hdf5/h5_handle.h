#pragma once
// Minimal RAII for HDF5 ids plus error-stack silencing, shared by the dump writer and the
// HDF5 reader (importers/hdf5).
#include <hdf5.h>

#include <utility>

namespace ts::h5 {

/// Owns one HDF5 id and closes it with the matching H5xclose on destruction.
class H5Id {
public:
    H5Id() = default;
    explicit H5Id(hid_t id) : m_id(id) {}
    H5Id(H5Id&& o) noexcept : m_id(std::exchange(o.m_id, H5I_INVALID_HID)) {}
    H5Id& operator=(H5Id&& o) noexcept {
        if (this != &o) {
            reset();
            m_id = std::exchange(o.m_id, H5I_INVALID_HID);
        }
        return *this;
    }
    H5Id(const H5Id&) = delete;
    H5Id& operator=(const H5Id&) = delete;
    ~H5Id() { reset(); }
    hid_t get() const { return m_id; }
    bool valid() const { return m_id >= 0; }
    void reset() {
        if (m_id >= 0 && H5Iis_valid(m_id) > 0) H5Idec_ref(m_id);
        m_id = H5I_INVALID_HID;
    }

private:
    hid_t m_id = H5I_INVALID_HID;
};

/// IEEE binary16 as h5py builds it (a copy of f32 with 1/5/10 fields, size 2, bias 15), so
/// h5py reads it as numpy float16. The caller owns the returned type.
inline H5Id ieeeHalfType() {
    H5Id t(H5Tcopy(H5T_IEEE_F32LE));
    H5Tset_fields(t.get(), 15, 10, 5, 0, 10);
    H5Tset_size(t.get(), 2);
    H5Tset_ebias(t.get(), 15);
    return t;
}

/// Turns off HDF5's automatic printing of its error stack (process-wide, idempotent).
inline void silenceHdf5Errors() {
    static const bool done = [] {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        return true;
    }();
    (void)done;
}

}  // namespace ts::h5
