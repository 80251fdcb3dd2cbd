#pragma once
// Helpers of the device ops (ops_device_*.cpp only).
#include <vector>

#include "core/engine/device/device.h"

namespace ts::engine::ops::dev {

/// Puts every defined tensor of `in` on `d` (observers in load mode may replace inputs with
/// host tensors read from a dump).
inline void toDeviceAll(std::vector<Tensor>& in, Device d) {
    for (Tensor& t : in)
        if (t.defined() && t.device() != d) t = toDevice(t, d);
}

}  // namespace ts::engine::ops::dev
