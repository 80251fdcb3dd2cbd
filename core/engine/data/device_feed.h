#pragma once
// A training pipeline's data on a device (docs/GPU.md, "The step on a device"): its columns
// mapped once (normalised, cast: DataPipeline::mappedColumns()) and copied to the device when
// the run starts, each epoch's sample order copied once per epoch, and each batch gathered on
// the device by one kernel per column into buffers that keep their addresses for the run (a
// step recorded into a CUDA Graph reads them). The pipeline still decides the order and the
// batches (shard, shuffle, batch size, drop remainder): the feed takes its ranges.
#include <map>
#include <memory>
#include <vector>

#include "core/common/result.h"
#include "core/engine/data/dataset.h"
#include "core/engine/tensor/tensor.h"

namespace ts::engine {

class DeviceFeed {
public:
    /// The pipeline's columns on `d`, from the calling thread's device pool. An error says
    /// why the columns cannot be gathered there (a column of 1-, 2- or 8-byte values left
    /// unmapped); the trainer then copies host batches instead.
    static Result<std::unique_ptr<DeviceFeed>> create(const DataPipeline& p, Device d);

    /// After p.startEpoch() (and p.skip()): copies the epoch's order to the device.
    void startEpoch(const DataPipeline& p);
    /// The next batch of p gathered on the device (p's cursor advances as next() would);
    /// false at the end of the epoch. The tensors are the feed's buffers: valid until the
    /// next call.
    bool next(DataPipeline& p, std::vector<Tensor>& batch);
    /// Bytes of device memory the data holds.
    int64_t deviceBytes() const;

private:
    Device m_device = Device::CPU;
    std::vector<Tensor> m_columns;                     // [rows, ...] on the device, 4-byte values
    std::vector<int64_t> m_words;                      // 4-byte values per row, per column
    Tensor m_order;                                    // int32 [rows]: the epoch's order
    std::map<int64_t, std::vector<Tensor>> m_batches;  // per batch size: a buffer per column
};

}  // namespace ts::engine
