#pragma once
// Read-only access to any HDF5 file: lazy listing of a group's children, dataset
// descriptions (shape, dtype, chunking, filters) and attributes rendered as text.
// Nothing is read until asked for, so files with thousands of datasets open instantly.
// HDF5's automatic error printing is silenced; every failure is a Result error.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/hdf5/h5_handle.h"

namespace ts::h5 {

enum class NodeKind { Group, Dataset, NamedType, Link, Other };

/// How the values of a dataset can be read as numbers.
enum class ValueClass { Float, Integer, Bool, Enum, String, Compound, Other };

struct Attribute {
    std::string name;
    std::string dtype;  // readable type, e.g. "float32", "string (vlen)"
    std::string value;  // readable value, arrays as [a, b, ...] (long ones cut with ...)
};

struct DatasetInfo {
    std::string path;             // without leading slash
    std::vector<uint64_t> shape;  // empty for scalar
    uint64_t count = 0;           // number of elements
    std::string dtype;            // numpy-like name: float16, int32, bool, string...
    std::string typeDetail;       // e.g. compound fields "{a: int32, b: float64}"
    ValueClass valueClass = ValueClass::Other;
    size_t elementSize = 0;
    std::vector<uint64_t> chunks;      // empty when contiguous/compact
    std::string layout;                // "contiguous", "chunked", "compact", "virtual"
    std::vector<std::string> filters;  // e.g. "deflate(4)", "shuffle"
    uint64_t storageBytes = 0;
    bool numeric() const {
        return valueClass == ValueClass::Float || valueClass == ValueClass::Integer ||
               valueClass == ValueClass::Bool || valueClass == ValueClass::Enum;
    }
};

struct Node {
    std::string name;  // link name
    std::string path;  // full path without leading slash
    NodeKind kind = NodeKind::Other;
    uint64_t childCount = 0;  // groups only (number of links)
};

/// An open HDF5 file. Movable, not copyable; closes on destruction.
class File {
public:
    /// Opens read-only. Not-HDF5, truncated or unreadable files give a clear error.
    static Result<File> open(const std::string& path);
    const std::string& path() const { return m_path; }
    hid_t id() const { return m_file.get(); }

    /// Whether an object exists at `path`, each link along it checked in turn (a missing
    /// parent group answers false, not an error).
    bool exists(const std::string& path) const;
    /// Children of a group (path "" or "/" is the root), in creation order when the group
    /// tracks it, else in name order (HDF5's default index).
    Result<std::vector<Node>> children(const std::string& groupPath) const;
    /// True when the group tracks link creation order.
    bool tracksCreationOrder(const std::string& groupPath) const;
    Result<DatasetInfo> datasetInfo(const std::string& path) const;
    Result<std::vector<Attribute>> attributes(const std::string& path) const;
    /// Integer attribute value if present and numeric.
    bool intAttribute(const std::string& path, const char* name, int64_t& out) const;
    /// Text of a string attribute (fixed or variable length, scalar or one element).
    bool stringAttribute(const std::string& path, const char* name, std::string& out) const;
    /// Value of a numeric scalar attribute as a double (e.g. wall_time).
    bool doubleAttribute(const std::string& path, const char* name, double& out) const;
    /// Address of the object header: grows with writing order in files written once.
    Result<uint64_t> objectAddress(const std::string& path) const;
    /// Every dataset path below the root, depth first in children() order.
    Result<std::vector<std::string>> allDatasets() const;

private:
    H5Id m_file;
    std::string m_path;
};

/// Readable numpy-like name of an HDF5 datatype; sets cls to its value class.
std::string describeType(hid_t type, ValueClass* cls = nullptr, std::string* detail = nullptr);

}  // namespace ts::h5
