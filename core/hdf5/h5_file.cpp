#include "core/hdf5/h5_file.h"

#include <filesystem>
#include <optional>
#include <set>

namespace ts::h5 {
namespace {

std::string clean(const std::string& p) {
    size_t a = 0;
    while (a < p.size() && p[a] == '/') ++a;
    return p.substr(a);
}

std::string h5path(const std::string& p) {
    return "/" + clean(p);
}

}  // namespace

Result<File> File::open(const std::string& path) {
    silenceHdf5Errors();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return Error{"no such file: " + path};
    htri_t is = H5Fis_hdf5(path.c_str());
    if (is <= 0) return Error{"not an HDF5 file (no HDF5 signature): " + path};
    File f;
    f.m_file = H5Id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    if (!f.m_file.valid()) return Error{"damaged or truncated HDF5 file (cannot open): " + path};
    H5G_info_t info;
    if (H5Gget_info(f.m_file.get(), &info) < 0)
        return Error{"damaged HDF5 file (root group unreadable): " + path};
    f.m_path = path;
    return f;
}

bool File::exists(const std::string& path) const {
    const std::string p = h5path(path);
    // One level at a time: H5Lexists on a path whose parent is missing fails.
    for (size_t k = p.find('/', 1); k != std::string::npos; k = p.find('/', k + 1))
        if (H5Lexists(m_file.get(), p.substr(0, k).c_str(), H5P_DEFAULT) <= 0) return false;
    return H5Lexists(m_file.get(), p.c_str(), H5P_DEFAULT) > 0;
}

bool File::tracksCreationOrder(const std::string& groupPath) const {
    H5Id g(H5Gopen2(m_file.get(), h5path(groupPath).c_str(), H5P_DEFAULT));
    if (!g.valid()) return false;
    H5Id pl(H5Gget_create_plist(g.get()));
    unsigned flags = 0;
    if (!pl.valid() || H5Pget_link_creation_order(pl.get(), &flags) < 0) return false;
    return (flags & H5P_CRT_ORDER_INDEXED) != 0;
}

namespace {
struct LinkList {
    std::vector<std::pair<std::string, bool>> links;  // name, hard link
};

herr_t collectLink(hid_t, const char* name, const H5L_info_t* info, void* data) {
    static_cast<LinkList*>(data)->links.emplace_back(name, info->type == H5L_TYPE_HARD);
    return 0;
}
}  // namespace

Result<std::vector<Node>> File::children(const std::string& groupPath) const {
    const std::string gp = h5path(groupPath);
    H5Id g(H5Gopen2(m_file.get(), gp.c_str(), H5P_DEFAULT));
    if (!g.valid()) return Error{"cannot open group " + gp};
    // One pass over the group's links (by-index lookups would be quadratic in old-style
    // groups), in creation order when tracked, else by name.
    const H5_index_t index = tracksCreationOrder(groupPath) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
    LinkList list;
    hsize_t at = 0;
    if (H5Literate(g.get(), index, H5_ITER_INC, &at, collectLink, &list) < 0)
        return Error{"cannot read the links of " + gp + " (damaged group)"};
    std::vector<Node> out;
    out.reserve(list.links.size());
    const std::string prefix = clean(groupPath).empty() ? "" : clean(groupPath) + "/";
    for (auto& [name, hard] : list.links) {
        Node n;
        n.name = name;
        n.path = prefix + name;
        if (!hard) {
            n.kind = NodeKind::Link;
        } else {
            H5O_info_t oi;
            if (H5Oget_info_by_name2(g.get(), name.c_str(), &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
                n.kind = NodeKind::Other;
            } else if (oi.type == H5O_TYPE_GROUP) {
                n.kind = NodeKind::Group;
                H5G_info_t ci;
                if (H5Gget_info_by_name(g.get(), name.c_str(), &ci, H5P_DEFAULT) >= 0)
                    n.childCount = ci.nlinks;
            } else if (oi.type == H5O_TYPE_DATASET) {
                n.kind = NodeKind::Dataset;
            } else if (oi.type == H5O_TYPE_NAMED_DATATYPE) {
                n.kind = NodeKind::NamedType;
            }
        }
        out.push_back(std::move(n));
    }
    return out;
}

Result<std::vector<std::string>> File::allDatasets() const {
    std::vector<std::string> out;
    std::vector<std::string> stack{""};
    std::set<uint64_t> seen;  // group object addresses: hard-link cycles are walked once
    while (!stack.empty()) {
        std::string g = stack.back();
        stack.pop_back();
        auto addr = objectAddress(g);
        if (addr && !seen.insert(addr.value()).second) continue;
        auto kids = children(g);
        if (!kids) return Error{kids.error()};
        // Push groups in reverse so the depth-first walk keeps children() order.
        std::vector<std::string> groups;
        for (const auto& k : kids.value()) {
            if (k.kind == NodeKind::Dataset)
                out.push_back(k.path);
            else if (k.kind == NodeKind::Group)
                groups.push_back(k.path);
        }
        for (auto it = groups.rbegin(); it != groups.rend(); ++it) stack.push_back(*it);
    }
    return out;
}

Result<uint64_t> File::objectAddress(const std::string& path) const {
    H5O_info_t oi;
    if (H5Oget_info_by_name2(m_file.get(), h5path(path).c_str(), &oi, H5O_INFO_BASIC, H5P_DEFAULT) <
        0)
        return Error{"cannot read object " + path};
    return static_cast<uint64_t>(oi.addr);
}

Result<DatasetInfo> File::datasetInfo(const std::string& path) const {
    H5Id d(H5Dopen2(m_file.get(), h5path(path).c_str(), H5P_DEFAULT));
    if (!d.valid()) return Error{"cannot open dataset " + clean(path)};
    DatasetInfo info;
    info.path = clean(path);
    H5Id type(H5Dget_type(d.get()));
    H5Id space(H5Dget_space(d.get()));
    if (!type.valid() || !space.valid()) return Error{"cannot read type/space of " + info.path};
    info.dtype = describeType(type.get(), &info.valueClass, &info.typeDetail);
    info.elementSize = H5Tget_size(type.get());
    int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0) return Error{"cannot read dataspace of " + info.path};
    std::vector<hsize_t> dims(static_cast<size_t>(rank));
    if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    info.count = H5Sget_simple_extent_type(space.get()) == H5S_NULL ? 0 : 1;
    for (auto v : dims) {
        info.shape.push_back(v);
        info.count *= v;
    }
    info.storageBytes = H5Dget_storage_size(d.get());
    H5Id dcpl(H5Dget_create_plist(d.get()));
    if (dcpl.valid()) {
        switch (H5Pget_layout(dcpl.get())) {
            case H5D_CHUNKED: {
                info.layout = "chunked";
                std::vector<hsize_t> ch(static_cast<size_t>(std::max(rank, 1)));
                int cr = H5Pget_chunk(dcpl.get(), rank, ch.data());
                for (int i = 0; i < cr; ++i) info.chunks.push_back(ch[static_cast<size_t>(i)]);
                break;
            }
            case H5D_COMPACT:
                info.layout = "compact";
                break;
            case H5D_VIRTUAL:
                info.layout = "virtual";
                break;
            default:
                info.layout = "contiguous";
                break;
        }
        int nf = H5Pget_nfilters(dcpl.get());
        for (int i = 0; i < nf; ++i) {
            unsigned flags = 0, config = 0;
            size_t nelem = 8;
            unsigned cd[8] = {};
            char name[128] = {};
            H5Z_filter_t id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &nelem,
                                             cd, sizeof(name), name, &config);
            std::string f;
            switch (id) {
                case H5Z_FILTER_DEFLATE:
                    f = "gzip(" + std::to_string(nelem ? cd[0] : 0) + ")";
                    break;
                case H5Z_FILTER_SHUFFLE:
                    f = "shuffle";
                    break;
                case H5Z_FILTER_FLETCHER32:
                    f = "fletcher32";
                    break;
                case H5Z_FILTER_SZIP:
                    f = "szip";
                    break;
                case H5Z_FILTER_NBIT:
                    f = "nbit";
                    break;
                case H5Z_FILTER_SCALEOFFSET:
                    f = "scaleoffset";
                    break;
                default:
                    f = std::string(name[0] ? name : "filter") + " (id " + std::to_string(id) + ")";
            }
            if (H5Zfilter_avail(id) <= 0) f += " [unavailable]";
            info.filters.push_back(f);
        }
    }
    return info;
}

namespace {

/// An attribute that holds one value, with its type.
struct ScalarAttribute {
    H5Id attr, type;
};

/// The attribute `name` of the object at `path` when it exists and holds exactly one value.
std::optional<ScalarAttribute> openScalarAttribute(hid_t file, const std::string& path,
                                                   const char* name) {
    const std::string p = h5path(path);
    if (H5Aexists_by_name(file, p.c_str(), name, H5P_DEFAULT) <= 0) return std::nullopt;
    H5Id a(H5Aopen_by_name(file, p.c_str(), name, H5P_DEFAULT, H5P_DEFAULT));
    if (!a.valid()) return std::nullopt;
    H5Id s(H5Aget_space(a.get()));
    if (H5Sget_simple_extent_npoints(s.get()) != 1) return std::nullopt;
    H5Id t(H5Aget_type(a.get()));
    return ScalarAttribute{std::move(a), std::move(t)};
}

}  // namespace

bool File::intAttribute(const std::string& path, const char* name, int64_t& out) const {
    auto at = openScalarAttribute(m_file.get(), path, name);
    if (!at || H5Tget_class(at->type.get()) != H5T_INTEGER) return false;
    return H5Aread(at->attr.get(), H5T_NATIVE_INT64, &out) >= 0;
}

bool File::stringAttribute(const std::string& path, const char* name, std::string& out) const {
    auto at = openScalarAttribute(m_file.get(), path, name);
    if (!at || H5Tget_class(at->type.get()) != H5T_STRING) return false;
    const hid_t a = at->attr.get(), t = at->type.get();
    if (H5Tis_variable_str(t) > 0) {
        H5Id mem(H5Tcopy(H5T_C_S1));
        H5Tset_size(mem.get(), H5T_VARIABLE);
        H5Tset_cset(mem.get(), H5Tget_cset(t));
        char* buf = nullptr;
        if (H5Aread(a, mem.get(), &buf) < 0) return false;
        out = buf ? buf : "";
        H5free_memory(buf);
        return true;
    }
    std::string text(H5Tget_size(t), '\0');
    if (H5Aread(a, t, text.data()) < 0) return false;
    while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
    out = text.substr(0, text.find('\0'));
    return true;
}

bool File::doubleAttribute(const std::string& path, const char* name, double& out) const {
    auto at = openScalarAttribute(m_file.get(), path, name);
    if (!at) return false;
    const H5T_class_t c = H5Tget_class(at->type.get());
    if (c != H5T_FLOAT && c != H5T_INTEGER) return false;
    return H5Aread(at->attr.get(), H5T_NATIVE_DOUBLE, &out) >= 0;
}

}  // namespace ts::h5
