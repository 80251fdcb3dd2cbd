// Conv2D through oneDNN (conv_dnnl.h). Built with TRAINSCOPE_HAVE_DNNL only; without it the
// kernels decline and every mode runs the engine's own.
#include "core/engine/ops/conv_dnnl.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "core/engine/tensor/parallel.h"

#ifdef TRAINSCOPE_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <unordered_map>

// OpenMP is oneDNN's threading runtime in Debian's build (libgomp, linked with it); only the
// thread count of the calling thread is set, so no OpenMP header is needed.
extern "C" void omp_set_num_threads(int);
#endif

namespace ts::engine::dnnlconv {

namespace {

std::atomic<Mode>& modeRef() {
    static std::atomic<Mode> m = [] {
        const char* v = std::getenv("TRAINSCOPE_CONV");
        if (v && std::strcmp(v, "engine") == 0) return Mode::Engine;
        if (v && std::strcmp(v, "dnnl") == 0) return Mode::Dnnl;
        return Mode::Auto;
    }();
    return m;
}

}  // namespace

Mode mode() {
    return modeRef().load(std::memory_order_relaxed);
}

void setMode(Mode m) {
    modeRef().store(m);
}

#ifndef TRAINSCOPE_HAVE_DNNL

bool built() {
    return false;
}
std::string forwardImplementation(const detail::ConvGeom&, bool) {
    return {};
}
Tensor conv2d(const Tensor&, const Tensor&, const Tensor&, const detail::ConvGeom&) {
    return {};
}
Tensor conv2dFilter(const Tensor&, const Tensor&, const detail::ConvGeom&) {
    return {};
}
Tensor conv2dInput(const Tensor&, const Tensor&, const detail::ConvGeom&) {
    return {};
}

#else

namespace {

using detail::ConvGeom;
using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

enum class Kind { Forward, ForwardBias, Filter, Input };

/// A primitive for `n` samples of one geometry, with the layouts it chose.
struct Plan {
    dnnl::primitive prim;
    memory::desc act;      // its activation input: src (forward, filter) or diff_dst (input)
    memory::desc act2;     // the filter gradient's diff_dst
    memory::desc weights;  // weights (forward, input) or diff_weights (filter)
    memory::desc out;      // dst or diff_src
    memory::desc scratch;
    memory::desc actPlain, act2Plain, weightsPlain, outPlain;
    std::optional<dnnl::reorder> actIn, act2In, weightsIn, outOut;
    std::string impl;
};

struct Key {
    Kind kind;
    int64_t n, C, H, W, O, KH, KW, OH, OW, sh, sw, pt, pl, pb, pr;
    bool operator==(const Key&) const = default;
};

struct KeyHash {
    size_t operator()(const Key& k) const {
        size_t h = static_cast<size_t>(k.kind);
        for (int64_t v :
             {k.n, k.C, k.H, k.W, k.O, k.KH, k.KW, k.OH, k.OW, k.sh, k.sw, k.pt, k.pl, k.pb, k.pr})
            h = h * 1000003u ^ static_cast<size_t>(v);
        return h;
    }
};

dnnl::engine& cpuEngine() {
    static dnnl::engine e(dnnl::engine::kind::cpu, 0);
    return e;
}

/// oneDNN on the calling thread only: the engine's pool supplies the parallelism.
void oneThread() {
    thread_local bool set = false;
    if (!set) {
        omp_set_num_threads(1);
        set = true;
    }
}

std::optional<dnnl::reorder> reorderIfNeeded(const memory::desc& from, const memory::desc& to) {
    if (from == to) return std::nullopt;
    return dnnl::reorder(dnnl::reorder::primitive_desc(cpuEngine(), from, cpuEngine(), to));
}

/// A JIT kernel: the reference and im2col + GEMM implementations are what the engine's own
/// kernels already do, so oneDNN is used only where it has something better.
bool worthIt(const std::string& impl) {
    return impl.rfind("ref", 0) != 0 && impl.rfind("gemm", 0) != 0;
}

std::unique_ptr<Plan> makePlan(const Key& k) {
    const memory::dims src{k.n, k.C, k.H, k.W}, wei{k.O, k.C, k.KH, k.KW};
    const memory::dims dst{k.n, k.O, k.OH, k.OW};  // oneDNN refuses sizes that do not fit
    const memory::dims strides{k.sh, k.sw}, padL{k.pt, k.pl}, padR{k.pb, k.pr};
    const memory::desc srcAny(src, Dt::f32, Tag::any), weiAny(wei, Dt::f32, Tag::any),
        dstAny(dst, Dt::f32, Tag::any);
    const memory::desc srcPlain(src, Dt::f32, Tag::nchw), weiPlain(wei, Dt::f32, Tag::oihw),
        dstPlain(dst, Dt::f32, Tag::nchw);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const bool bias = k.kind == Kind::ForwardBias;
    const auto fdesc =
        bias ? dnnl::convolution_forward::desc(
                   dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, srcAny,
                   weiAny, memory::desc({k.O}, Dt::f32, Tag::x), dstAny, strides, padL, padR)
             : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                               dnnl::algorithm::convolution_direct, srcAny, weiAny,
                                               dstAny, strides, padL, padR);
    const dnnl::convolution_forward::primitive_desc fpd(fdesc, attr, cpuEngine());
    auto p = std::make_unique<Plan>();
    if (k.kind == Kind::Forward || k.kind == Kind::ForwardBias) {
        p->prim = dnnl::convolution_forward(fpd);
        p->impl = fpd.impl_info_str();
        p->act = fpd.src_desc();
        p->weights = fpd.weights_desc();
        p->out = fpd.dst_desc();
        p->scratch = fpd.scratchpad_desc();
        p->actPlain = srcPlain;
        p->weightsPlain = weiPlain;
        p->outPlain = dstPlain;
        p->actIn = reorderIfNeeded(srcPlain, p->act);
        p->weightsIn = reorderIfNeeded(weiPlain, p->weights);
        p->outOut = reorderIfNeeded(p->out, dstPlain);
    } else if (k.kind == Kind::Input) {
        const dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, srcAny,
                                                      weiAny, dstAny, strides, padL, padR);
        const dnnl::convolution_backward_data::primitive_desc pd(d, attr, cpuEngine(), fpd);
        p->prim = dnnl::convolution_backward_data(pd);
        p->impl = pd.impl_info_str();
        p->act = pd.diff_dst_desc();
        p->weights = pd.weights_desc();
        p->out = pd.diff_src_desc();
        p->scratch = pd.scratchpad_desc();
        p->actPlain = dstPlain;
        p->weightsPlain = weiPlain;
        p->outPlain = srcPlain;
        p->actIn = reorderIfNeeded(dstPlain, p->act);
        p->weightsIn = reorderIfNeeded(weiPlain, p->weights);
        p->outOut = reorderIfNeeded(p->out, srcPlain);
    } else {
        const dnnl::convolution_backward_weights::desc d(
            dnnl::algorithm::convolution_direct, srcAny, weiAny, dstAny, strides, padL, padR);
        const dnnl::convolution_backward_weights::primitive_desc pd(d, attr, cpuEngine(), fpd);
        p->prim = dnnl::convolution_backward_weights(pd);
        p->impl = pd.impl_info_str();
        p->act = pd.src_desc();
        p->act2 = pd.diff_dst_desc();
        p->weights = pd.diff_weights_desc();
        p->scratch = pd.scratchpad_desc();
        p->actPlain = srcPlain;
        p->act2Plain = dstPlain;
        p->weightsPlain = weiPlain;
        p->actIn = reorderIfNeeded(srcPlain, p->act);
        p->act2In = reorderIfNeeded(dstPlain, p->act2);
        p->outOut = reorderIfNeeded(p->weights, weiPlain);
    }
    return p;
}

/// The plan for `n` samples of g, made once; nullptr when oneDNN has no JIT kernel for it.
/// Plans are never freed or changed once made, so callers use them without the lock.
const Plan* planFor(Kind kind, const ConvGeom& g, int64_t n) {
    static std::mutex mu;
    static std::unordered_map<Key, std::unique_ptr<Plan>, KeyHash> plans;
    const Key k{kind, n,    g.C,  g.H,  g.W,  g.O,  g.KH,   g.KW,
                g.OH, g.OW, g.sh, g.sw, g.pt, g.pl, g.pb(), g.pr()};
    std::lock_guard<std::mutex> lock(mu);
    auto it = plans.find(k);
    if (it == plans.end()) {
        oneThread();
        std::unique_ptr<Plan> p;
        try {
            p = makePlan(k);
            if (!worthIt(p->impl)) p.reset();
        } catch (const dnnl::error&) {
            p.reset();  // a shape oneDNN refuses: the engine's kernels run it
        }
        it = plans.emplace(k, std::move(p)).first;
    }
    return it->second.get();
}

/// Floats that hold `d` (0 when the plan needs no such buffer).
int64_t floatsOf(const memory::desc& d) {
    return static_cast<int64_t>((d.get_size() + sizeof(float) - 1) / sizeof(float));
}

/// Samples split over the pool: one part per thread, as many as samples at most.
struct Split {
    int parts;
    int64_t begin(int p, int64_t N) const { return N * p / parts; }
};

Split splitOf(const ConvGeom& g) {
    return {static_cast<int>(std::min<int64_t>(g.N, intraOpThreads()))};
}

/// The plans of a split (at most two distinct part sizes); false when one is missing.
bool plansOf(Kind kind, const ConvGeom& g, const Split& s, std::vector<const Plan*>& out) {
    out.assign(static_cast<size_t>(s.parts), nullptr);
    for (int p = 0; p < s.parts; ++p) {
        const int64_t n = s.begin(p + 1, g.N) - s.begin(p, g.N);
        out[static_cast<size_t>(p)] = p > 0 && s.begin(p, g.N) - s.begin(p - 1, g.N) == n
                                          ? out[static_cast<size_t>(p - 1)]
                                          : planFor(kind, g, n);
        if (!out[static_cast<size_t>(p)]) return false;
    }
    return true;
}

/// Auto's rule, from bench/conv_kernels (docs/PERFORMANCE.md, "Training engine: ResNet and
/// ShuffleNet"): oneDNN was 1.1-4.4x faster on every one-group convolution of LeNet-5, ResNet-8
/// and ShuffleNet V2 but two kinds, which stay with the engine's kernels.
bool wanted(const ConvGeom& g, Kind kind) {
    if (mode() == Mode::Engine || g.groups != 1) return false;
    if (mode() == Mode::Dnnl) return true;
    // The input gradient of a stem convolution (one input channel: 2-9x slower in oneDNN;
    // 1.8x faster with LeNet's 6).
    if (kind == Kind::Input && g.C < 4) return false;
    // 1x1 stride-1 convolutions whose channels do not fill oneDNN's 16-channel blocks
    // (ShuffleNet's 24-channel ones: 0.5-0.8x); the engine's is one GEMM per sample.
    if (detail::pointwise(g) && (g.C % 16 != 0 || g.O % 16 != 0)) return false;
    return true;
}

/// Runs reorder r from `from` into `to` (or copies nothing when r is empty: `from` is used).
void* reordered(const std::optional<dnnl::reorder>& r, const memory::desc& fromDesc, void* from,
                const memory::desc& toDesc, void* to, dnnl::stream& s) {
    if (!r) return from;
    memory a(fromDesc, cpuEngine(), from), b(toDesc, cpuEngine(), to);
    r->execute(s, a, b);
    return to;
}

/// A 64-byte aligned buffer that only grows; freed with the thread that owns it.
class Arena {
public:
    Arena() = default;
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;
    ~Arena() { std::free(m_p); }
    void* get(size_t bytes) {
        if (bytes > m_size) {
            const size_t rounded = (bytes + 63) / 64 * 64;
            void* p = std::aligned_alloc(64, rounded);
            if (!p) throw std::bad_alloc();
            std::free(m_p);
            m_p = p;
            m_size = rounded;
        }
        return m_p;
    }

private:
    void* m_p = nullptr;
    size_t m_size = 0;
};

/// Per-part buffers: reordered activations, the primitive's output in its blocked layout, its
/// scratchpad. They live in arenas of the thread that runs the part, reused from op to op
/// (each pool thread keeps blocks warm in its own core's cache) and freed when the thread
/// ends. Taken from the op's memory pool on the calling thread instead, ResNet-8 trained 18 %
/// slower (3,050 against 3,700 samples/s in bench/train_op_breakdown); taken from each
/// thread's own pool, a pool worker's blocks outlived it (LeakSanitizer). Like oneDNN's own
/// scratch in PyTorch, they are not in the training's memory figures.
struct PartBuffers {
    void *act = nullptr, *act2 = nullptr, *out = nullptr, *scratch = nullptr;
    /// `outDesc`: what the primitive writes (dst, diff_src or diff_weights).
    PartBuffers(const Plan& p, const memory::desc& outDesc) {
        thread_local Arena arenas[4];
        auto make = [](Arena& a, const memory::desc& d, bool need) {
            return need && d.get_size() > 0 ? a.get(d.get_size()) : nullptr;
        };
        act = make(arenas[0], p.act, p.actIn.has_value());
        act2 = make(arenas[1], p.act2, p.act2In.has_value());
        out = make(arenas[2], outDesc, p.outOut.has_value());
        scratch = make(arenas[3], p.scratch, true);
    }
};

/// Weights in each distinct plan's layout (the weights change every optimizer step, so they
/// are reordered on every call; a few thousand floats).
std::vector<Tensor> weightsFor(const std::vector<const Plan*>& plans, const Tensor& w,
                               dnnl::stream& s) {
    std::vector<Tensor> out(plans.size());
    for (size_t i = 0; i < plans.size(); ++i) {
        if (i > 0 && plans[i] == plans[i - 1]) {
            out[i] = out[i - 1];
            continue;
        }
        const Plan& p = *plans[i];
        if (!p.weightsIn) {
            out[i] = w;
            continue;
        }
        out[i] = Tensor::empty({floatsOf(p.weights)});
        reordered(p.weightsIn, p.weightsPlain, w.raw(), p.weights, out[i].raw(), s);
    }
    return out;
}

dnnl::stream& threadStream() {
    thread_local dnnl::stream s(cpuEngine());
    return s;
}

/// The forward (with bias) or the input gradient: act[n] (*) weights -> out[n], per part.
Tensor runForwardLike(Kind kind, const Tensor& act, const Tensor& w, const Tensor& bias,
                      const ConvGeom& g, int64_t actPerSample, const Shape& outShape,
                      int64_t outPerSample) {
    const Split s = splitOf(g);
    std::vector<const Plan*> plans;
    oneThread();
    if (!plansOf(kind, g, s, plans)) return {};
    const std::vector<Tensor> weights = weightsFor(plans, w, threadStream());
    Tensor out = Tensor::empty(outShape);
    parallelParts(s.parts, [&](int part) {
        oneThread();
        const Plan& p = *plans[static_cast<size_t>(part)];
        dnnl::stream& st = threadStream();
        PartBuffers b(p, p.out);
        const int64_t n0 = s.begin(part, g.N);
        void* a = reordered(p.actIn, p.actPlain, act.f32() + n0 * actPerSample, p.act, b.act, st);
        float* dst = out.f32() + n0 * outPerSample;
        void* o = p.outOut ? b.out : dst;
        memory ma(p.act, cpuEngine(), a),
            mw(p.weights, cpuEngine(), weights[static_cast<size_t>(part)].raw());
        memory mo(p.out, cpuEngine(), o), ms(p.scratch, cpuEngine(), b.scratch);
        std::unordered_map<int, memory> args{{DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_SCRATCHPAD, ms}};
        if (kind == Kind::Input) {
            args.emplace(DNNL_ARG_DIFF_DST, ma);
            args.emplace(DNNL_ARG_DIFF_SRC, mo);
        } else {
            args.emplace(DNNL_ARG_SRC, ma);
            args.emplace(DNNL_ARG_DST, mo);
            if (kind == Kind::ForwardBias)
                args.emplace(DNNL_ARG_BIAS,
                             memory({{g.O}, Dt::f32, Tag::x}, cpuEngine(), bias.raw()));
        }
        p.prim.execute(st, args);
        reordered(p.outOut, p.out, o, p.outPlain, dst, st);
    });
    return out;
}

}  // namespace

bool built() {
    return true;
}

std::string forwardImplementation(const ConvGeom& g, bool bias) {
    if (g.groups != 1) return {};
    const Plan* p = planFor(bias ? Kind::ForwardBias : Kind::Forward, g, g.N);
    return p ? p->impl : std::string();
}

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g) {
    if (!wanted(g, Kind::Forward)) return {};
    return runForwardLike(bias.defined() ? Kind::ForwardBias : Kind::Forward, x, w, bias, g,
                          g.chw(), {g.N, g.O, g.OH, g.OW}, g.O * g.ohw());
}

Tensor conv2dInput(const Tensor& dy, const Tensor& w, const ConvGeom& g) {
    if (!wanted(g, Kind::Input)) return {};
    return runForwardLike(Kind::Input, dy, w, Tensor(), g, g.O * g.ohw(), {g.N, g.C, g.H, g.W},
                          g.chw());
}

Tensor conv2dFilter(const Tensor& dy, const Tensor& x, const ConvGeom& g) {
    if (!wanted(g, Kind::Filter)) return {};
    const Split s = splitOf(g);
    std::vector<const Plan*> plans;
    oneThread();
    if (!plansOf(Kind::Filter, g, s, plans)) return {};
    const int64_t wsize = g.O * g.ckk();
    Tensor partial = Tensor::empty({s.parts, wsize});
    parallelParts(s.parts, [&](int part) {
        oneThread();
        const Plan& p = *plans[static_cast<size_t>(part)];
        dnnl::stream& st = threadStream();
        PartBuffers b(p, p.weights);
        const int64_t n0 = s.begin(part, g.N);
        void* xs = reordered(p.actIn, p.actPlain, x.f32() + n0 * g.chw(), p.act, b.act, st);
        void* dys =
            reordered(p.act2In, p.act2Plain, dy.f32() + n0 * g.O * g.ohw(), p.act2, b.act2, st);
        float* dst = partial.f32() + part * wsize;
        void* o = p.outOut ? b.out : dst;
        p.prim.execute(st, {{DNNL_ARG_SRC, memory(p.act, cpuEngine(), xs)},
                            {DNNL_ARG_DIFF_DST, memory(p.act2, cpuEngine(), dys)},
                            {DNNL_ARG_DIFF_WEIGHTS, memory(p.weights, cpuEngine(), o)},
                            {DNNL_ARG_SCRATCHPAD, memory(p.scratch, cpuEngine(), b.scratch)}});
        reordered(p.outOut, p.weights, o, p.weightsPlain, dst, st);
    });
    Tensor dw = Tensor::empty({g.O, g.C, g.KH, g.KW});
    detail::sumParts(partial.f32(), s.parts, wsize, dw.f32());
    return dw;
}

#endif

}  // namespace ts::engine::dnnlconv
