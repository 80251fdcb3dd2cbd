#pragma once
// Hash of a pair of int64 ids (track and name, process and correlation id) for unordered
// maps. Mixed in unsigned arithmetic: the product may wrap, which is defined there.
#include <cstdint>
#include <functional>
#include <utility>

namespace ts {

struct Int64PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const {
        const uint64_t a = static_cast<uint64_t>(p.first), b = static_cast<uint64_t>(p.second);
        return std::hash<uint64_t>{}(a * 1000003u ^ b);
    }
};

}  // namespace ts
