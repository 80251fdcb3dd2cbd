#include "core/engine/data/device_feed.h"

#include <limits>

#include "core/engine/device/device.h"

namespace ts::engine {

Result<std::unique_ptr<DeviceFeed>> DeviceFeed::create(const DataPipeline& p, Device d) {
    if (d == Device::CPU) return Error{"the CPU reads host batches"};
    const int64_t rows = p.source().size();
    if (rows > std::numeric_limits<int32_t>::max())
        return Error{"more rows than a 32-bit index holds"};
    for (const Column& c : p.source().columns())
        if (c.data.rank() < 1) return Error{"column '" + c.name + "' holds no samples"};
    std::vector<Tensor> mapped = p.mappedColumns();
    auto feed = std::make_unique<DeviceFeed>();
    feed->m_device = d;
    for (size_t i = 0; i < mapped.size(); ++i) {
        const Tensor& t = mapped[i];
        if (dtypeSize(t.dtype()) != 4)
            return Error{"column '" + p.source().columns()[i].name + "' is " +
                         dtypeName(t.dtype()) + " (the device gathers 4-byte values)"};
        feed->m_words.push_back(t.numel() / std::max<int64_t>(1, rows));
        feed->m_columns.push_back(toDevice(t, d));
    }
    feed->m_order = emptyOn(d, {std::max<int64_t>(1, rows)}, DType::Int32);
    return feed;
}

void DeviceFeed::startEpoch(const DataPipeline& p) {
    const std::vector<int64_t>& order = p.order();
    if (order.empty()) return;
    std::vector<int32_t> host(order.begin(), order.end());
    DeviceBackend& b = backendOf(m_device);
    b.copy(m_order.raw(), host.data(), host.size() * sizeof(int32_t),
           DeviceBackend::Copy::HostToDevice);
}

bool DeviceFeed::next(DataPipeline& p, std::vector<Tensor>& batch) {
    int64_t first = 0, count = 0;
    if (!p.nextRange(&first, &count)) return false;
    std::vector<Tensor>& buffers = m_batches[count];
    if (buffers.empty())
        for (const Tensor& c : m_columns) {
            Shape s = c.shape();
            s[0] = count;
            buffers.push_back(emptyOn(m_device, s, c.dtype()));
        }
    DeviceBackend& b = backendOf(m_device);
    for (size_t i = 0; i < m_columns.size(); ++i)
        b.gatherRows(m_columns[i].raw(), m_order.i32(), first, count, m_words[i], buffers[i].raw());
    batch = buffers;
    return true;
}

int64_t DeviceFeed::deviceBytes() const {
    int64_t n = static_cast<int64_t>(m_order.nbytes());
    for (const Tensor& c : m_columns) n += static_cast<int64_t>(c.nbytes());
    return n;
}

}  // namespace ts::engine
