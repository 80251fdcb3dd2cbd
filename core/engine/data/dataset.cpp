#include "core/engine/data/dataset.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include "core/log/logger.h"

#include "core/engine/tensor/parallel.h"

namespace ts::engine {

namespace {
/// MindSpore's GeneratorDataset messages, which users search for.
std::string columnCountError(size_t names, size_t arrays) {
    return "Invalid Python function, the 'source' of 'GeneratorDataset' should return same "
           "number of NumPy arrays as specified in column_names, the size of column_names is:" +
           std::to_string(names) +
           " and number of returned NumPy array is:" + std::to_string(arrays);
}
std::string lengthError(int64_t actual, int64_t declared) {
    return "The actual amount of data read from generator " + std::to_string(actual) +
           " is different from generator.len " + std::to_string(declared) +
           ", you should adjust generator.len to make them match";
}
}  // namespace

Result<ArrayDataset> ArrayDataset::create(const std::vector<std::string>& names,
                                          std::vector<Tensor> columns, int64_t declaredLength) {
    if (names.size() != columns.size())
        return Error{columnCountError(names.size(), columns.size())};
    if (columns.empty()) return Error{"dataset has no columns"};
    ArrayDataset ds;
    int64_t rows = -1;
    for (size_t i = 0; i < columns.size(); ++i) {
        if (!columns[i].defined() || columns[i].rank() < 1)
            return Error{"column '" + names[i] + "' holds no samples"};
        if (rows >= 0 && columns[i].dim(0) != rows)
            return Error{"columns disagree on the dataset length: column '" + names[0] + "' has " +
                         std::to_string(rows) + " rows but column '" + names[i] + "' has " +
                         std::to_string(columns[i].dim(0))};
        rows = columns[i].dim(0);
        ds.m_columns.push_back({names[i], columns[i]});
    }
    if (declaredLength >= 0 && declaredLength != rows)
        return Error{lengthError(rows, declaredLength)};
    ds.m_size = rows;
    return ds;
}

Result<ArrayDataset> ArrayDataset::fromGenerator(const std::vector<std::string>& names,
                                                 int64_t length, const GetItem& getItem) {
    if (names.empty()) return Error{"column_names is empty"};
    if (length < 0) return Error{"generator.len is negative: " + std::to_string(length)};
    std::vector<std::vector<Tensor>> rows;
    rows.reserve(static_cast<size_t>(length));
    for (int64_t i = 0; i < length; ++i) {
        std::vector<Tensor> item;
        if (!getItem(i, item)) return Error{lengthError(i, length)};
        if (item.size() != names.size()) return Error{columnCountError(names.size(), item.size())};
        for (size_t c = 0; c < item.size(); ++c) {
            if (!item[c].defined())
                return Error{"sample " + std::to_string(i) + ": column '" + names[c] +
                             "' is empty"};
            if (i > 0 &&
                (item[c].shape() != rows[0][c].shape() || item[c].dtype() != rows[0][c].dtype()))
                return Error{"sample " + std::to_string(i) + ": column '" + names[c] + "' is " +
                             dtypeName(item[c].dtype()) + shapeString(item[c].shape()) +
                             ", sample 0 had " + dtypeName(rows[0][c].dtype()) +
                             shapeString(rows[0][c].shape())};
        }
        rows.push_back(std::move(item));
    }
    if (rows.empty()) return Error{"the generator gave no sample (generator.len is 0)"};
    std::vector<Tensor> columns;
    for (size_t c = 0; c < names.size(); ++c) {
        Shape s = rows[0][c].shape();
        s.insert(s.begin(), length);
        Tensor col = Tensor::empty(s, rows[0][c].dtype());
        const size_t bytes = rows[0][c].nbytes();
        for (int64_t i = 0; i < length; ++i)
            std::memcpy(static_cast<char*>(col.raw()) + static_cast<size_t>(i) * bytes,
                        rows[static_cast<size_t>(i)][c].raw(), bytes);
        columns.push_back(col);
    }
    return create(names, std::move(columns));
}

int ArrayDataset::columnIndex(const std::string& name) const {
    for (size_t i = 0; i < m_columns.size(); ++i)
        if (m_columns[i].name == name) return static_cast<int>(i);
    return -1;
}

DataPipeline& DataPipeline::shuffle(uint64_t seed) {
    m_shuffle = true;
    m_seed = seed;
    return *this;
}

DataPipeline& DataPipeline::map(MapOp op) {
    m_maps.push_back(std::move(op));
    return *this;
}

DataPipeline& DataPipeline::batch(int64_t size, bool dropRemainder) {
    m_batch = std::max<int64_t>(1, size);
    m_drop = dropRemainder;
    return *this;
}

Status DataPipeline::shard(int64_t numShards, int64_t shardId) {
    if (numShards < 1) return Error{"num_shards must be >= 1, got " + std::to_string(numShards)};
    if (shardId < 0 || shardId >= numShards)
        return Error{"shard_id " + std::to_string(shardId) + " is out of range [0, " +
                     std::to_string(numShards) + ")"};
    m_numShards = numShards;
    m_shardId = shardId;
    if (numShards > 1)
        TS_LOG(DATASET, INFO) << "shard " << shardId << " of " << numShards << ": "
                              << samplesPerEpoch() << " of " << m_source.size() << " samples";
    return Status::success();
}

std::vector<int64_t> DataPipeline::shardIndices() const {
    std::vector<int64_t> idx;
    for (int64_t i = m_shardId; i < m_source.size(); i += m_numShards) idx.push_back(i);
    return idx;
}

int64_t DataPipeline::samplesPerEpoch() const {
    const int64_t n = m_source.size();
    return n <= m_shardId ? 0 : (n - m_shardId + m_numShards - 1) / m_numShards;
}

int64_t DataPipeline::batchesPerEpoch() const {
    const int64_t n = samplesPerEpoch();
    return m_drop ? n / m_batch : (n + m_batch - 1) / m_batch;
}

void DataPipeline::startEpoch(int epoch) {
    m_order = shardIndices();
    if (m_shuffle) {
        std::mt19937_64 rng(m_seed * 1000003ull + static_cast<uint64_t>(epoch));
        // Fisher-Yates with our own draw so the order is the same on every standard library.
        for (size_t i = m_order.size(); i > 1; --i) {
            const size_t j = static_cast<size_t>(rng() % i);
            std::swap(m_order[i - 1], m_order[j]);
        }
    }
    m_cursor = 0;
}

bool DataPipeline::nextRange(int64_t* first, int64_t* count) {
    const int64_t total = static_cast<int64_t>(m_order.size());
    const int64_t left = total - m_cursor;
    if (left <= 0 || (m_drop && left < m_batch)) return false;
    *first = m_cursor;
    *count = std::min(m_batch, left);
    m_cursor += *count;
    return true;
}

bool DataPipeline::next(std::vector<Tensor>& batch) {
    int64_t first = 0, b = 0;
    if (!nextRange(&first, &b)) return false;
    batch = rows(m_order.data() + first, b);
    return true;
}

std::vector<Tensor> DataPipeline::mappedColumns() const {
    std::vector<int64_t> all(static_cast<size_t>(m_source.size()));
    std::iota(all.begin(), all.end(), int64_t{0});
    return rows(all.data(), m_source.size());
}

std::vector<Tensor> DataPipeline::rows(const int64_t* idx, int64_t b) const {
    std::vector<Tensor> batch;
    for (const Column& col : m_source.columns()) {
        Shape s = col.data.shape();
        const int64_t rowElems = numel(s) / std::max<int64_t>(1, s[0]);
        s[0] = b;
        const MapOp* op = nullptr;
        for (const MapOp& m : m_maps)
            if (m.column == col.name) op = &m;
        const size_t es = dtypeSize(col.data.dtype());
        if (op && op->kind == MapOp::Kind::Normalize) {
            Tensor out = Tensor::empty(s, DType::Float32);
            const float sc = op->scale, sh = op->shift;
            const float mean = op->mean, inv = op->std > 0 ? 1.f / op->std : 1.f;
            const Tensor f = col.data.dtype() == DType::UInt8 || col.data.dtype() == DType::Float32
                                 ? col.data
                                 : col.data.to(DType::Float32);
            // Rows split over the intra-op pool (the gather from shuffled rows is memory-bound).
            parallelFor(b, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, rowElems)),
                        [&](int64_t r0, int64_t r1) {
                            for (int64_t r = r0; r < r1; ++r) {
                                const int64_t src = idx[r];
                                float* __restrict o = out.f32() + r * rowElems;
                                if (f.dtype() == DType::UInt8) {
                                    const uint8_t* __restrict p =
                                        f.data<uint8_t>() + src * rowElems;
                                    for (int64_t k = 0; k < rowElems; ++k)
                                        o[k] = ((static_cast<float>(p[k]) * sc + sh) - mean) * inv;
                                } else {
                                    const float* __restrict p = f.f32() + src * rowElems;
                                    for (int64_t k = 0; k < rowElems; ++k)
                                        o[k] = ((p[k] * sc + sh) - mean) * inv;
                                }
                            }
                        });
            batch.push_back(out);
        } else {
            Tensor out = Tensor::empty(s, col.data.dtype());
            for (int64_t r = 0; r < b; ++r)
                std::memcpy(static_cast<char*>(out.raw()) + static_cast<size_t>(r * rowElems) * es,
                            static_cast<const char*>(col.data.raw()) +
                                static_cast<size_t>(idx[r] * rowElems) * es,
                            static_cast<size_t>(rowElems) * es);
            if (op && op->kind == MapOp::Kind::TypeCastInt32 && out.dtype() != DType::Int32)
                out = out.to(DType::Int32);
            batch.push_back(out);
        }
    }
    return batch;
}

ArrayDataset syntheticImages(int64_t n, int64_t classes, int64_t h, int64_t w, uint64_t seed,
                             uint64_t split) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> pix(0, 255);
    std::normal_distribution<float> noise(0.f, 40.f);
    std::vector<std::vector<float>> proto(static_cast<size_t>(classes),
                                          std::vector<float>(static_cast<size_t>(h * w)));
    for (auto& p : proto)
        for (auto& v : p) v = static_cast<float>(pix(rng));
    rng.seed(seed * 7919u + split + 1);
    Tensor images = Tensor::empty({n, 1, h, w}, DType::UInt8);
    Tensor labels = Tensor::empty({n}, DType::UInt8);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t c = static_cast<int64_t>(rng() % static_cast<uint64_t>(classes));
        labels.data<uint8_t>()[i] = static_cast<uint8_t>(c);
        for (int64_t k = 0; k < h * w; ++k) {
            const float v = proto[static_cast<size_t>(c)][static_cast<size_t>(k)] + noise(rng);
            images.data<uint8_t>()[i * h * w + k] = static_cast<uint8_t>(std::clamp(v, 0.f, 255.f));
        }
    }
    return ArrayDataset::create({"image", "label"}, {images, labels}).value();
}

}  // namespace ts::engine
