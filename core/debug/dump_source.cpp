#include "core/debug/dump_source.h"

#include <filesystem>
#include <optional>

#include "core/debug/msdump/ms_dump.h"
#include "core/debug/msdump/npy_file.h"
#include "core/hdf5/h5_read.h"

namespace ts::debug {

namespace fs = std::filesystem;

namespace {

class H5Blocks : public TensorBlocks {
public:
    explicit H5Blocks(h5::BlockReader r) : m_r(std::move(r)) { m_shape = m_r.info().shape; }
    const std::string& dtype() const override { return m_r.info().dtype; }
    const std::vector<uint64_t>& shape() const override { return m_shape; }
    Result<uint64_t> next(std::vector<double>& out) override { return m_r.next(m_f, out); }

private:
    h5::BlockReader m_r;
    std::vector<uint64_t> m_shape;
    std::vector<float> m_f;
};

class H5Source : public DumpSource {
public:
    explicit H5Source(const h5::File& f) : m_f(f) {}
    /// Owns the file it reads.
    explicit H5Source(h5::File&& f) : m_owned(std::move(f)), m_f(*m_owned) {}
    std::string describe() const override { return "HDF5 dump " + m_f.path(); }
    Result<std::vector<SourceTensor>> tensors(OrderSource* order, std::string* detail,
                                              bool scopes) const override {
        auto ts = orderedTensors(m_f, order, detail);
        if (!ts) return Error{ts.error()};
        std::vector<SourceTensor> out;
        out.reserve(ts->size());
        for (auto& t : ts.value()) {
            SourceTensor s;
            if (scopes) m_f.stringAttribute(t.path, "scope", s.scope);
            s.tensor = std::move(t);
            out.push_back(std::move(s));
        }
        return out;
    }
    Result<std::unique_ptr<TensorBlocks>> open(const SourceTensor& t) const override {
        auto r = h5::BlockReader::open(m_f, t.tensor.path, true);
        if (!r) return Error{r.error()};
        return std::unique_ptr<TensorBlocks>(new H5Blocks(std::move(r.value())));
    }

private:
    std::optional<h5::File> m_owned;
    const h5::File& m_f;
};

class NpyBlocks : public TensorBlocks {
public:
    explicit NpyBlocks(std::unique_ptr<npy::Reader> r) : m_r(std::move(r)) {}
    const std::string& dtype() const override { return m_r->header().dtype; }
    const std::vector<uint64_t>& shape() const override { return m_r->header().shape; }
    Result<uint64_t> next(std::vector<double>& out) override { return m_r->next(out); }

private:
    std::unique_ptr<npy::Reader> m_r;
};

class MsSource : public DumpSource {
public:
    explicit MsSource(msdump::Iteration it) : m_it(std::move(it)) {}
    std::string describe() const override { return "MindSpore dump " + m_it.dir; }
    Result<std::vector<SourceTensor>> tensors(OrderSource* order, std::string* detail,
                                              bool) const override {
        if (order) *order = OrderSource::Sequence;
        if (detail) *detail = "MindSpore dump timestamps and execution order";
        std::vector<SourceTensor> out;
        int64_t k = 0;
        for (const auto& t : m_it.tensors) {
            SourceTensor s;
            s.tensor.path = t.path();
            s.tensor.op = t.name.opType;
            s.tensor.seqid = t.seqid;
            s.tensor.io = t.name.io;
            s.tensor.slot = t.name.slot;
            s.tensor.order = k++;
            s.scope = t.fullName;
            out.push_back(std::move(s));
        }
        return out;
    }
    Result<std::unique_ptr<TensorBlocks>> open(const SourceTensor& s) const override {
        const auto i = static_cast<size_t>(s.tensor.order);
        if (i >= m_it.tensors.size()) return Error{"no such tensor"};
        const auto& t = m_it.tensors[i];
        if (t.file.empty())
            return Error{"statistics only (statistic.csv): no tensor data to compare"};
        auto r = npy::Reader::open(t.file);
        if (!r) return Error{r.error()};
        return std::unique_ptr<TensorBlocks>(new NpyBlocks(std::move(r.value())));
    }

private:
    msdump::Iteration m_it;
};

}  // namespace

std::unique_ptr<DumpSource> hdf5DumpSource(const h5::File& file) {
    return std::make_unique<H5Source>(file);
}

bool isMindSporeDumpPath(const std::string& path) {
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) {
        if (fs::path(path).extension() != ".npy") return false;
        return msdump::looksLikeDump(fs::path(path).parent_path().string());
    }
    return msdump::looksLikeDump(path);
}

Result<std::unique_ptr<DumpSource>> openDumpSource(const std::string& path) {
    std::error_code ec;
    // Anything but a folder or a .npy is taken for HDF5 (a missing path gets HDF5's words).
    if (!fs::is_directory(path, ec) && fs::path(path).extension() != ".npy") {
        auto f = h5::File::open(path);
        if (!f) return Error{f.error()};
        return std::unique_ptr<DumpSource>(new H5Source(std::move(f.value())));
    }
    auto tree = msdump::scanTree(path);
    if (!tree) return Error{tree.error()};
    std::vector<msdump::IterationRef> its;
    for (const auto& r : tree->iterations)
        if (r.iteration >= 0) its.push_back(r);
    if (its.empty()) its = tree->iterations;
    if (its.size() != 1) {
        std::string list;
        for (size_t i = 0; i < its.size() && i < 8; ++i) list += "\n  " + its[i].dir;
        return Error{path + " holds " + std::to_string(its.size()) +
                     " MindSpore dump iterations; name one of them:" + list +
                     (its.size() > 8 ? "\n  ..." : "")};
    }
    auto it = msdump::readIteration(tree.value(), its[0]);
    if (!it) return Error{it.error()};
    if (it->tensors.empty()) return Error{its[0].dir + ": no tensor in this dump folder"};
    return std::unique_ptr<DumpSource>(new MsSource(std::move(it.value())));
}

Result<CompareReport> compareAnyDumps(const std::string& a, const std::string& b,
                                      const CompareThresholds& t, const DumpPairOptions& how,
                                      JobControl* job) {
    auto sa = openDumpSource(a);
    if (!sa) return Error{"A: " + sa.error()};
    auto sb = openDumpSource(b);
    if (!sb) return Error{"B: " + sb.error()};
    return compareSources(*sa.value(), *sb.value(), t, how, job);
}

}  // namespace ts::debug
