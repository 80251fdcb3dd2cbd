#pragma once
// Datasets and the input pipeline. An ArrayDataset holds named columns (tensors whose first
// dim is the sample index); a DataPipeline applies shard(num_shards, shard_id), per-epoch
// shuffle(seed), map(normalize / type cast) and batch(size, drop_remainder) as MindSpore's
// dataset API does, producing float32 images and int32 labels per batch.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/engine/tensor/tensor.h"

namespace ts::engine {

struct Column {
    std::string name;
    Tensor data;  // [N, ...]
};

class ArrayDataset {
public:
    /// Columns must match `columnNames` one to one and agree on their length. A
    /// `declaredLength` (a user's __len__; -1: none) must equal the rows the data holds.
    /// Errors use MindSpore's GeneratorDataset wording, which users search for:
    /// "Invalid Python function, the 'source' of 'GeneratorDataset' should return same number
    /// of NumPy arrays as specified in column_names, the size of column_names is:2 and number
    /// of returned NumPy array is:3" and "The actual amount of data read from generator 100
    /// is different from generator.len 120, you should adjust generator.len to make them match".
    static Result<ArrayDataset> create(const std::vector<std::string>& columnNames,
                                       std::vector<Tensor> columns, int64_t declaredLength = -1);
    /// A random-access source (__getitem__ / __len__): getItem(i, out) fills one sample's
    /// arrays and returns false when index i has no data. Samples are read once, in order;
    /// every sample must have one array per column name, all of the same shape and dtype.
    using GetItem = std::function<bool(int64_t index, std::vector<Tensor>& out)>;
    static Result<ArrayDataset> fromGenerator(const std::vector<std::string>& columnNames,
                                              int64_t length, const GetItem& getItem);
    int64_t size() const { return m_size; }
    const std::vector<Column>& columns() const { return m_columns; }
    /// Index of a column by name; -1 when absent.
    int columnIndex(const std::string& name) const;

private:
    std::vector<Column> m_columns;
    int64_t m_size = 0;
};

/// One column transform applied per batch.
struct MapOp {
    enum class Kind { Normalize, TypeCastInt32 } kind = Kind::Normalize;
    std::string column;
    float scale = 1.f;  // Normalize: x * scale + shift, then (x - mean) / std when std > 0
    float shift = 0.f;
    float mean = 0.f;
    float std = 0.f;
};

class DataPipeline {
public:
    explicit DataPipeline(ArrayDataset source) : m_source(std::move(source)) {}
    DataPipeline& shuffle(uint64_t seed);
    DataPipeline& map(MapOp op);
    DataPipeline& batch(int64_t size, bool dropRemainder);
    /// Keeps samples i with i % numShards == shardId. Errors when shardId is out of range.
    Status shard(int64_t numShards, int64_t shardId);

    int64_t samplesPerEpoch() const;
    int64_t batchesPerEpoch() const;
    int64_t batchSize() const { return m_batch; }
    const ArrayDataset& source() const { return m_source; }

    /// Starts epoch `epoch` (1-based); the shuffle order depends on seed and epoch only.
    void startEpoch(int epoch);
    /// Skips `n` batches of the current epoch (resume).
    void skip(int64_t n) {
        m_cursor = std::min<int64_t>(static_cast<int64_t>(m_order.size()), m_cursor + n * m_batch);
    }
    /// Next batch's columns (float32 after Normalize, int32 after TypeCast, else as stored);
    /// false at the end of the epoch.
    bool next(std::vector<Tensor>& batch);

    /// The current epoch's sample order (source row indices, after shard and shuffle).
    const std::vector<int64_t>& order() const { return m_order; }
    /// Takes the next batch as next() would, without reading it: its first position in
    /// order() and its size; false at the end of the epoch (a device gathers the rows itself,
    /// data/device_feed.h).
    bool nextRange(int64_t* first, int64_t* count);
    /// Every source row with the map ops applied, in storage order: the columns next() reads
    /// its batches from, made once.
    std::vector<Tensor> mappedColumns() const;

private:
    std::vector<int64_t> shardIndices() const;
    /// Rows idx[0..n) of every column, mapped (next()'s batch for those rows).
    std::vector<Tensor> rows(const int64_t* idx, int64_t n) const;

    ArrayDataset m_source;
    bool m_shuffle = false;
    uint64_t m_seed = 0;
    std::vector<MapOp> m_maps;
    int64_t m_batch = 1;
    bool m_drop = false;
    int64_t m_numShards = 1, m_shardId = 0;
    std::vector<int64_t> m_order;
    int64_t m_cursor = 0;
};

// ---- sources ----
/// MNIST/Fashion-MNIST IDX files (gzip or plain): images uint8 [N,1,rows,cols] as column
/// "image", labels uint8 [N] as "label". Errors name the file and what is wrong.
Result<ArrayDataset> readIdx(const std::string& imagesPath, const std::string& labelsPath);
/// Where the Debian package dataset-fashion-mnist installs its files ("" when absent).
std::string fashionMnistDir();
/// Fashion-MNIST split "train" or "test" from fashionMnistDir() (or `dir`).
Result<ArrayDataset> loadFashionMnist(const std::string& split, const std::string& dir = {});
/// CSV with a header; every column numeric; `labelColumn` becomes int32 column "label", the
/// others float32 column "features" [N, F].
Result<ArrayDataset> readCsv(const std::string& path, const std::string& labelColumn);
/// Learnable synthetic classification data: per class a fixed random prototype plus noise,
/// as uint8 images [N,1,h,w] and labels; prototypes depend on `seed`, samples on `seed` and
/// `split` (use another split for a test set of the same task).
ArrayDataset syntheticImages(int64_t n, int64_t classes, int64_t h, int64_t w, uint64_t seed,
                             uint64_t split = 0);

}  // namespace ts::engine
