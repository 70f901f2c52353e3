"""A synthetic HAR capture of about SIZE MiB for the benchmarks: an item read per entity and a list
read of the last 50 every 50 entities, JSON bodies, on a remote origin.

    python3 synthetic_har.py SIZE_MIB OUT.har

The 32 MiB size stays 64 KiB under the HAR budget. The same size always gives the same bytes.
"""
import json
import sys


def entry(n, path, body):
    text = json.dumps(body)
    return {
        "startedDateTime": "2024-01-01T00:00:%02d.%03dZ" % (n // 1000 % 60, n % 1000), "time": 1,
        "request": {"method": "GET", "url": "https://bench.example.com" + path, "httpVersion": "HTTP/1.1",
                    "headers": [{"name": "Accept", "value": "application/json"}], "queryString": [],
                    "cookies": [], "headersSize": -1, "bodySize": 0},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "Content-Type", "value": "application/json"}], "cookies": [],
                     "content": {"size": len(text), "mimeType": "application/json", "text": text},
                     "redirectURL": "", "headersSize": -1, "bodySize": len(text)},
        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}


def main():
    mib, out = float(sys.argv[1]), sys.argv[2]
    limit = min(int(mib * 1024 * 1024), 32 * 1024 * 1024 - 64 * 1024)
    entries, size, n, items = [], 200, 0, []
    while True:
        item = {"id": n + 1, "title": "item %d" % (n + 1), "body": "x" * 600, "tags": ["a", "b", "c"], "views": n * 7}
        items.append(item)
        candidate = [entry(2 * n, "/api/items/%d" % (n + 1), item)]
        if n % 50 == 49:
            candidate.append(entry(2 * n + 1, "/api/items", items[-50:]))
        text = json.dumps(candidate)
        if size + len(text) > limit:
            break
        entries.extend(candidate)
        size += len(text) + 1
        n += 1
    har = {"log": {"version": "1.2", "creator": {"name": "rea-bench", "version": "1"}, "entries": entries}}
    with open(out, "w") as handle:
        json.dump(har, handle)


main()
