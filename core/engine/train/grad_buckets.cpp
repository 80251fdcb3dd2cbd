#include "core/engine/train/grad_buckets.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core/dist/process_group.h"
#include "core/engine/tensor/dispatcher.h"

namespace ts::engine {

GradBuckets::GradBuckets(dist::ProcessGroup& group, std::vector<Tensor> params, int64_t bucketBytes)
    : m_group(group), m_params(std::move(params)) {
    m_bucketOf.resize(m_params.size());
    const int64_t cap = std::max<int64_t>(bucketBytes / static_cast<int64_t>(sizeof(float)), 1);
    for (size_t k = m_params.size(); k-- > 0;) {
        const int64_t n = m_params[k].numel();
        if (m_buckets.empty() ||
            (m_buckets.back().elements > 0 && m_buckets.back().elements + n > cap))
            m_buckets.emplace_back();
        m_buckets.back().params.push_back(k);
        m_buckets.back().elements += n;
        m_bucketOf[k] = m_buckets.size() - 1;
        m_index[m_params[k].impl()] = k;
    }
    for (size_t b = 0; b < m_buckets.size(); ++b) {
        const int64_t n = m_buckets[b].elements + (b + 1 == m_buckets.size() ? 2 : 0);
        m_buckets[b].work.assign(static_cast<size_t>(n), 0.0f);
        m_buckets[b].flat = Tensor::empty({n});
    }
    m_comm = std::thread([this] { commLoop(); });
}

GradBuckets::~GradBuckets() {
    {
        std::lock_guard lock(m_mutex);
        m_quit = true;
        m_queue.clear();  // a collective not started stays so: the step failed
    }
    m_wake.notify_all();
    m_comm.join();
}

void GradBuckets::beginStep(std::pair<float, float> vote) {
    std::lock_guard lock(m_mutex);
    m_vote = vote;
    m_next = 0;
    for (Bucket& b : m_buckets) {
        b.pending = static_cast<int>(b.params.size());
        b.done = false;
        b.error.clear();
        b.commNs = 0;
    }
}

void GradBuckets::ready(const Tensor& leaf) {
    const auto it = m_index.find(leaf.impl());
    if (it == m_index.end()) return;
    Bucket& b = m_buckets[m_bucketOf[it->second]];
    if (b.pending > 0) --b.pending;
    launchReady();
}

void GradBuckets::launchReady() {
    while (m_next < m_buckets.size() && m_buckets[m_next].pending == 0) launch(m_next++);
}

void GradBuckets::launch(size_t index) {
    Bucket& b = m_buckets[index];
    float* flat = b.work.data();
    int64_t at = 0;
    for (size_t k : b.params) {
        const int64_t n = m_params[k].numel();
        const Tensor g = m_params[k].grad();
        if (g.defined())
            std::memcpy(flat + at, g.f32(), static_cast<size_t>(n) * sizeof(float));
        else
            std::memset(flat + at, 0, static_cast<size_t>(n) * sizeof(float));
        at += n;
    }
    if (index + 1 == m_buckets.size()) {
        flat[at] = m_vote.first;
        flat[at + 1] = m_vote.second;
    }
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(index);
    }
    m_wake.notify_one();
}

void GradBuckets::commLoop() {
    for (;;) {
        size_t index = 0;
        float* flat = nullptr;
        size_t n = 0;
        int64_t elements = 0;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_quit || !m_queue.empty(); });
            if (m_quit) return;
            index = m_queue.front();
            m_queue.pop_front();
            Bucket& b = m_buckets[index];
            flat = b.work.data();
            n = b.work.size();
            elements = b.elements;
        }
        const int64_t start = Dispatcher::nowNs();
        const Status s = m_group.allreduceSum(flat, n);
        if (s) {  // the mean (the vote stays a sum)
            const float inv = 1.0f / static_cast<float>(m_group.size());
            for (int64_t i = 0; i < elements; ++i) flat[i] *= inv;
        }
        const int64_t took = Dispatcher::nowNs() - start;
        {
            std::lock_guard lock(m_mutex);
            Bucket& b = m_buckets[index];
            b.commNs = took;
            b.error = s ? std::string() : s.error();
            b.done = true;
        }
        m_done.notify_all();
    }
}

std::pair<float, float> GradBuckets::finish(const RunBucket& run) {
    for (Bucket& b : m_buckets) b.pending = 0;  // what backward did not reach has no gradient
    launchReady();
    std::pair<float, float> votes{0, 0};
    for (size_t index = 0; index < m_buckets.size(); ++index) {
        Bucket& b = m_buckets[index];
        auto wait = [&](int64_t* commNs) {
            std::string error;
            {
                std::unique_lock lock(m_mutex);
                m_done.wait(lock, [&] { return b.done; });
                error = b.error;
                if (commNs) *commNs = b.commNs;
            }
            if (!error.empty()) throw std::runtime_error(error);
            const float* flat = b.work.data();
            std::memcpy(b.flat.f32(), flat, b.work.size() * sizeof(float));
            int64_t at = 0;
            for (size_t k : b.params) {
                const int64_t n = m_params[k].numel();
                Tensor g = m_params[k].grad();
                if (g.defined())
                    std::memcpy(g.f32(), flat + at, static_cast<size_t>(n) * sizeof(float));
                at += n;
            }
            if (index + 1 == m_buckets.size()) votes = {flat[at], flat[at + 1]};
        };
        run(index, b.elements * static_cast<int64_t>(sizeof(float)), b.flat, wait);
    }
    return votes;
}

}  // namespace ts::engine
