// RunningDataRecorder::writeExport: writes the export folder with async-signal-safe calls
// only (mkdir, open, write, close, clock_gettime, getpid): it runs both from exportNow()
// and from the fatal-signal handler. rdr_index.json is written last, so an index present
// means every file before it was written.
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/debug/rdr/rdr_fd_writer.h"
#include "core/debug/rdr/rdr_slots.h"

namespace ts::rdr {
namespace {

constexpr size_t kPathMax = 4096 + 64;

bool makeDirs(const char* dir) {
    char buf[kPathMax];
    size_t n = 0;
    while (dir[n] && n < kPathMax - 1) ++n;
    if (n == 0) return false;
    std::memcpy(buf, dir, n);
    buf[n] = '\0';
    for (size_t i = 1; i <= n; ++i) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        const char saved = buf[i];
        buf[i] = '\0';
        if (::mkdir(buf, 0755) != 0 && errno != EEXIST) return false;
        buf[i] = saved;
    }
    return true;
}

void joinPath(const char* dir, const char* name, char (&path)[kPathMax]) {
    size_t n = 0;
    for (const char* p = dir; *p && n < kPathMax - 2; ++p) path[n++] = *p;
    path[n++] = '/';
    for (const char* p = name; *p && n < kPathMax - 1; ++p) path[n++] = *p;
    path[n] = '\0';
}

int openFile(const char* dir, const char* name) {
    char path[kPathMax];
    joinPath(dir, name, path);
    return ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

void writeRing(FdWriter& w, const OpRing& ring, size_t cap, const char* label) {
    const uint64_t count = ring.count.load(std::memory_order_acquire);
    const uint64_t kept = count < cap ? count : cap;
    w.str("## ").str(label).str(" epoch=").i64(ring.epoch.load()).str(" step=");
    w.i64(ring.step.load()).str(" ops=").u64(count).str(" kept=").u64(kept).ch('\n');
    w.str("seqid\top\tscope\tinputs\toutputs\n");
    for (uint64_t i = count - kept; i < count; ++i) {
        const OpSlot& s = ring.slots[i % cap];
        w.i64(s.seqid).ch('\t').str(s.op).ch('\t').str(s.scope).ch('\t').str(s.inputs);
        w.ch('\t').str(s.outputs).ch('\n');
    }
}

// Looks `name` up (scope name or op type) in `ring`, newest first; its seqid or -1.
int64_t findOp(const OpRing& ring, size_t cap, const char* name) {
    const uint64_t count = ring.count.load(std::memory_order_acquire);
    const uint64_t kept = count < cap ? count : cap;
    for (uint64_t i = 0; i < kept; ++i) {
        const OpSlot& o = ring.slots[(count - 1 - i) % cap];
        if (std::strcmp(o.scope, name) == 0 || std::strcmp(o.op, name) == 0) return o.seqid;
    }
    return -1;
}

// The failing op: the given name (found in the current step, else the previous one), else
// the last op recorded in the current step. `step` is the step it was found in (-1: none).
void resolveFailingOp(const RunningDataRecorder::Slots& s, const char* given, char* out, size_t cap,
                      int64_t& seqid, int64_t& step) {
    seqid = -1;
    step = -1;
    const int cur = s.current.load();
    const OpRing& ring = s.rings[cur];
    if (given && *given) {
        copyField(out, cap, given, std::strlen(given), true);
        if ((seqid = findOp(ring, s.opCap, out)) >= 0) {
            step = ring.step.load();
        } else if ((seqid = findOp(s.rings[1 - cur], s.opCap, out)) >= 0) {
            step = s.rings[1 - cur].step.load();
        }
        return;
    }
    out[0] = '\0';
    const uint64_t count = ring.count.load(std::memory_order_acquire);
    if (count == 0) return;
    const OpSlot& last = ring.slots[(count - 1) % s.opCap];
    const char* name = last.scope[0] ? last.scope : last.op;
    copyField(out, cap, name, std::strlen(name), true);
    seqid = last.seqid;
    step = ring.step.load();
}

}  // namespace

bool RunningDataRecorder::writeExport(const char* reason, const char* failingOp, const char* detail,
                                      int signal) {
    const Slots& s = *m_slots;
    const char* dir = s.exportDir;
    if (!makeDirs(dir)) return false;
    // Drop an older index first: an index on disk always describes the files beside it.
    char indexPath[kPathMax];
    joinPath(dir, kIndexFile, indexPath);
    ::unlink(indexPath);
    bool ok = true;
    const char* files[] = {kGraphIrFile, kExecOrderFile, kMemoryFile, kLogFile, kRunStateFile};

    if (int fd = openFile(dir, kGraphIrFile); fd >= 0) {
        FdWriter w(fd);
        const size_t len = s.irLen.load();
        if (len == 0)
            w.str("# no graph IR was recorded for this run\n");
        else
            w.bytes(s.ir[s.irActive.load()].get(), len);
        ok = w.flush() && ok;
        ::close(fd);
    } else {
        return false;
    }
    if (int fd = openFile(dir, kExecOrderFile); fd >= 0) {
        FdWriter w(fd);
        w.str("# TrainScope RDR execution order: last ").u64(s.opCap).str(" ops of each step\n");
        const int cur = s.current.load();
        writeRing(w, s.rings[cur], s.opCap, "current");
        w.ch('\n');
        writeRing(w, s.rings[1 - cur], s.opCap, "previous");
        ok = w.flush() && ok;
        ::close(fd);
    } else {
        return false;
    }
    if (int fd = openFile(dir, kMemoryFile); fd >= 0) {
        FdWriter w(fd);
        const uint64_t count = s.allocCount.load(std::memory_order_acquire);
        const uint64_t kept = count < s.allocCap ? count : s.allocCap;
        w.str("# pool in_use_bytes=").u64(s.poolInUse.load()).str(" peak_bytes=");
        w.u64(s.poolPeak.load()).str(" capacity_bytes=").u64(s.poolCapacity.load()).ch('\n');
        w.str("# allocations recorded=").u64(count).str(" kept=").u64(kept).ch('\n');
        w.str("tensor\tbytes\toffset\talloc_ns\tfree_ns\tstatus\n");
        for (uint64_t i = count - kept; i < count; ++i) {
            const AllocSlot& a = s.allocs[i % s.allocCap];
            w.str(a.name).ch('\t').u64(a.bytes).ch('\t').u64(a.offset).ch('\t').i64(a.allocNs);
            w.ch('\t');
            if (a.freeNs >= 0)
                w.i64(a.freeNs);
            else
                w.ch('-');
            w.ch('\t').str(a.status == kAllocFailed  ? "FAILED"
                           : a.status == kAllocFreed ? "freed"
                                                     : "live");
            w.ch('\n');
        }
        ok = w.flush() && ok;
        ::close(fd);
    } else {
        return false;
    }
    if (int fd = openFile(dir, kLogFile); fd >= 0) {
        FdWriter w(fd);
        const uint64_t count = s.logCount.load(std::memory_order_acquire);
        const uint64_t kept = count < s.logCap ? count : s.logCap;
        for (uint64_t i = count - kept; i < count; ++i) w.str(s.logs[i % s.logCap].line).ch('\n');
        ok = w.flush() && ok;
        ::close(fd);
    } else {
        return false;
    }
    if (int fd = openFile(dir, kRunStateFile); fd >= 0) {
        FdWriter w(fd);
        w.str("epoch: ").i64(s.epoch.load()).str("\nstep: ").i64(s.step.load()).ch('\n');
        const int active = s.runStateActive.load();
        if (active >= 0)
            w.str(s.runState[active].text).ch('\n');
        else
            w.str("loss: nan\nloss_scale: nan\nconfig:\n{}\n");
        ok = w.flush() && ok;
        ::close(fd);
    } else {
        return false;
    }

    char failing[sizeof(OpSlot::scope)];
    int64_t failingSeq = -1, failingStep = -1;
    resolveFailingOp(s, failingOp, failing, sizeof(failing), failingSeq, failingStep);
    struct timespec now {};
    ::clock_gettime(CLOCK_REALTIME, &now);
    const int64_t nowNs = static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;

    int fd = openFile(dir, kIndexFile);
    if (fd < 0) return false;
    FdWriter w(fd);
    w.str("{\n  \"format\": \"trainscope-rdr\",\n  \"version\": 1,\n  \"reason\": ");
    w.jsonString(reason).str(",\n  \"failing_op\": ").jsonString(failing);
    w.str(",\n  \"failing_seqid\": ").i64(failingSeq);
    w.str(",\n  \"failing_step\": ").i64(failingStep);
    w.str(",\n  \"detail\": ").jsonString(detail ? detail : "").str(",\n  \"signal\": ");
    if (signal)
        w.i64(signal);
    else
        w.str("null");
    w.str(",\n  \"epoch\": ").i64(s.epoch.load()).str(",\n  \"step\": ").i64(s.step.load());
    w.str(",\n  \"time_ns\": ").i64(nowNs).str(",\n  \"time\": \"").isoTime(nowNs).ch('"');
    w.str(",\n  \"rank_id\": ").i64(s.rankId.load()).str(",\n  \"pid\": ").i64(::getpid());
    w.str(",\n  \"mode\": ").i64(s.mode.load()).str(",\n  \"files\": [");
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); ++i) {
        if (i) w.str(", ");
        w.jsonString(files[i]);
    }
    w.str("]\n}\n");
    ok = w.flush() && ok;
    ::close(fd);
    return ok;
}

}  // namespace ts::rdr
