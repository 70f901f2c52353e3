#!/usr/bin/env python3
"""What the heap holds at one moment of a heaptrack recording (issue 17, bounded memory).

heaptrack_print answers for the heap's one highest moment; a build's peak RSS can fall at
another (the state stage's, while the route-form stage holds the highest heap), and RSS follows
the heap's high-water mark only loosely (freed holes stay resident, fresh buffers of 128 KiB and
more are mapped apart). This reads the recording itself:

    heap_at.py RECORDING.zst                # the heap and RSS every half second, the heap's peak
    heap_at.py RECORDING.zst SECONDS [N]    # what is live at SECONDS: bytes and allocations per
                                            # innermost frame of ours, then the N largest traces

Record with `heaptrack -o /tmp/x target/release/rea environment-build CAPTURE OUT --binary
STAND_IN` (times are seconds since the recorded process started, as heaptrack writes them).
Needs `zstd` on the PATH. Nothing leaves the machine.
"""
import collections
import re
import subprocess
import sys

# Frames that name no holder of ours: the allocator, std's collections, serde's plumbing.
PLUMBING = re.compile(
    r"^(alloc|core|std|serde|<|_R|realloc|malloc|new<|from_iter|collect|extend|spec|"
    r"with_capacity|clone|to_owned|to_vec|push|reserve|grow|finish_grow|allocate|do_reserve|"
    r"try_|box_|from<|into|visit|deserialize|next_value|map<|fold|for_each|call|\{closure|"
    r"shrink|insert|entry|or_insert|bulk|new_|Box|String|Vec|format|write|get_or|allocate_for|"
    r"exact_list|from_str|to_string|rea_json::text_deserializer|rea_json::Json|"
    r"rea_json::members|rea_json::key)"
)
HASH = re.compile(r"::h[0-9a-f]{16}$")


class Recording:
    """The recording's tables and the live allocations up to a moment."""

    def __init__(self):
        self.strings = [""]
        self.ips = [None]
        self.traces = [(0, 0)]
        self.infos = []
        self.live = collections.Counter()
        self.heap = 0
        self.rss = 0
        self.timeline = []

    def read(self, path, until=None):
        lines = subprocess.Popen(
            ["zstd", "-dc", path], stdout=subprocess.PIPE, text=True, bufsize=1 << 20
        ).stdout
        for line in lines:
            if self.step(line, until):
                return

    def step(self, line, until):
        kind, rest = line[0], line[2:]
        if kind == "+":
            index = int(rest, 16)
            self.live[index] += 1
            self.heap += self.infos[index][0]
        elif kind == "-":
            index = int(rest, 16)
            self.live[index] -= 1
            self.heap -= self.infos[index][0]
        elif kind == "a":
            size, trace = rest.split()
            self.infos.append((int(size, 16), int(trace, 16)))
        elif kind == "c":
            moment = int(rest, 16) / 1000
            self.timeline.append((moment, self.heap, self.rss))
            return until is not None and moment >= until
        elif kind == "R":
            self.rss = int(rest, 16) * 4096
        elif kind == "s":
            self.strings.append(rest.rstrip("\n").split(" ", 1)[1] if " " in rest else "")
        elif kind == "i":
            fields = rest.split()
            self.ips.append([self.strings[int(fields[j], 16)] for j in range(2, len(fields), 3)])
        elif kind == "t":
            ip, parent = rest.split()
            self.traces.append((int(ip, 16), int(parent, 16)))
        return False

    def frames(self, trace):
        names = []
        while trace:
            ip, trace = self.traces[trace]
            names.extend(self.ips[ip] or ["?"])
        return [HASH.sub("", name) for name in names]

    def by_trace(self):
        size = collections.Counter()
        count = collections.Counter()
        for index, live in self.live.items():
            if live:
                bytes_each, trace = self.infos[index]
                size[trace] += live * bytes_each
                count[trace] += live
        return size, count


def timeline(recording):
    peak = max(recording.timeline, key=lambda point: point[1])
    print("heap peak %.1f MiB at %.2f s" % (peak[1] / 2**20, peak[0]))
    last = -1.0
    for moment, heap, rss in recording.timeline:
        if moment - last >= 0.5:
            print("%7.2f s  heap %7.1f MiB  rss %7.1f MiB" % (moment, heap / 2**20, rss / 2**20))
            last = moment


def snapshot(recording, traces):
    size, count = recording.by_trace()
    live = sum(count.values())
    print("heap %.1f MiB in %d allocations" % (recording.heap / 2**20, live))
    holders = collections.Counter()
    holder_count = collections.Counter()
    for trace, held in size.items():
        frames = recording.frames(trace)
        holder = next((frame for frame in frames if not PLUMBING.match(frame)), "?")[:150]
        holders[holder] += held
        holder_count[holder] += count[trace]
    print("-- by innermost frame of ours (MiB, allocations)")
    for holder, held in holders.most_common(40):
        print("%7.2f %8d %s" % (held / 2**20, holder_count[holder], holder))
    print("-- largest traces")
    for trace, held in size.most_common(traces):
        ours = [frame[:90] for frame in recording.frames(trace) if "rea" in frame][:8]
        print("%7.2f %8d | %s" % (held / 2**20, count[trace], " <- ".join(ours)))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    recording = Recording()
    if len(sys.argv) == 2:
        recording.read(sys.argv[1])
        timeline(recording)
        return
    recording.read(sys.argv[1], until=float(sys.argv[2]))
    snapshot(recording, int(sys.argv[3]) if len(sys.argv) > 3 else 10)


if __name__ == "__main__":
    main()
