#!/usr/bin/env python3
"""An independent reference for TrainScope's snapshot analyses, in Python, following PyTorch's own
readers: the active-memory timeline of torch/utils/viz/MemoryViz.js (process_alloc_data: an
allocation counts from its 'alloc' to its 'free_completed'; a free without an alloc in the trace
counts from the start; a block active at the snapshot without an alloc counts throughout) and the
segment totals of torch/cuda/_memory_viz.py (segsum: reserved = sum of total_size, allocated = sum
of requested sizes of active_allocated blocks).

Usage: snapshot_reference.py SNAPSHOT.pickle  -> one JSON object on stdout (per device: events,
peak_bytes, peak_index, peak_time_us, live_at_peak, allocations; and segments, reserved,
allocated, free).
"""
import json, pickle, sys


def block_requested(b):
    if 'frames' in b or 'history' not in b:
        return b.get('requested_size', b['size'])
    return b['history'][0]['real_size']


def timeline(data, device):
    events = data['device_traces'][device] if isinstance(data, dict) and 'device_traces' in data else []
    segments = data['segments'] if isinstance(data, dict) else data
    elements = []  # (size, alive_from_index or -1, freed_at_index or None)
    addr_to_alloc = {}
    actions = []
    for i, e in enumerate(events):
        if e['action'] == 'alloc':
            elements.append([e['size'], i, None])
            addr_to_alloc[e['addr']] = len(elements) - 1
        elif e['action'] in ('free_completed', 'free'):
            if e['addr'] in addr_to_alloc:
                elements[addr_to_alloc.pop(e['addr'])][2] = i
            else:
                elements.append([e['size'], -1, i])
    for seg in segments:
        if seg.get('device', 0) != device:
            continue
        addr = seg['address']
        for b in seg['blocks']:
            baddr = b.get('address', addr)
            if b['state'] == 'active_allocated' and baddr not in addr_to_alloc:
                elements.append([block_requested(b), -1, None])
            addr += b['size']
    n = len(events)
    delta = [0] * (n + 1)
    base = 0
    for size, start, end in elements:
        if start < 0:
            base += size
        else:
            delta[start] += size
        if end is not None:
            delta[end] -= size
    total, peak, peak_i, after = base, base, -1, []
    for i in range(n):
        total += delta[i]
        after.append(total)
        if total > peak:
            peak, peak_i = total, i
    live = sum(1 for size, start, end in elements
               if start <= peak_i and (end is None or end > peak_i)) if peak_i >= 0 else 0
    return {'events': n, 'peak_bytes': peak, 'peak_index': peak_i,
            'peak_time_us': events[peak_i].get('time_us') if peak_i >= 0 else None,
            'live_at_peak': live, 'allocations': len(elements), 'end_bytes': total}


def segsum(data):
    segments = data['segments'] if isinstance(data, dict) else data
    reserved = allocated = 0
    largest_free = 0
    for seg in segments:
        reserved += seg['total_size']
        for b in seg['blocks']:
            if b['state'] == 'active_allocated':
                allocated += block_requested(b)
            else:
                largest_free = max(largest_free, b['size']) if b['state'] == 'inactive' else largest_free
    return {'segments': len(segments), 'reserved': reserved, 'allocated': allocated,
            'free': reserved - allocated, 'largest_free_block': largest_free}


def main():
    data = pickle.load(open(sys.argv[1], 'rb'))
    out = segsum(data)
    traces = data.get('device_traces', []) if isinstance(data, dict) else []
    out['devices'] = {str(d): timeline(data, d) for d in range(len(traces)) if traces[d]}
    print(json.dumps(out))


if __name__ == '__main__':
    main()
