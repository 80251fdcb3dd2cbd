#pragma once
// The properties of a GPU as Kineto writes them in a trace's "deviceProperties" (one object
// per device: id, name, totalGlobalMem, computeMajor, computeMinor, maxThreadsPerBlock,
// maxThreadsPerMultiprocessor, regsPerBlock, regsPerMultiprocessor, warpSize,
// sharedMemPerBlock, sharedMemPerMultiprocessor, numSms, sharedMemPerBlockOptin), which the
// occupancy estimate needs. The Chrome importer keeps that JSON in the source's stats
// ("device_properties"). No Qt.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts::analysis::gpu {

struct DeviceProperties {
    int64_t id = 0;
    std::string name;
    int64_t totalGlobalMem = 0;
    int computeMajor = 0, computeMinor = 0;
    int maxThreadsPerBlock = 0, maxThreadsPerSm = 0;
    int regsPerBlock = 0, regsPerSm = 0, warpSize = 32;
    int64_t sharedMemPerBlock = 0, sharedMemPerSm = 0, sharedMemPerBlockOptin = 0;
    int numSms = 0;
    /// Enough to estimate occupancy (every limit positive, a known compute capability).
    bool usable() const;
    /// "9.0" style.
    std::string computeCapability() const;
};

/// Parses the JSON array (or a single object) Kineto writes; entries without the needed
/// numbers are kept with zeros (usable() false). Malformed JSON gives an empty list.
std::vector<DeviceProperties> parseDeviceProperties(std::string_view json);

/// The entry for device `id` (nullptr when none).
const DeviceProperties* deviceById(const std::vector<DeviceProperties>& list, int64_t id);

}  // namespace ts::analysis::gpu
