"""Writes host/code-order.txt: the functions of a release `rea` that a precomputed server (to
/ready, then an MCP session's first calls) and an `environment-build` touch, one symbol name a
line: those both touch, then those only the build touches, then those only the server touches.
host/build.rs hands the list to the linker, which places those functions first in .text in that
order, so the code each run touches sits together (issue 17: the kernel maps code in 64 KiB blocks
around each touched page, and whole large folios, so scattered code kept most of the 28 MiB .text
resident).

    python3 code_order.py REA OUT.txt     # as root; REA: target/release/rea, unstripped

How it finds the touched pages: it runs a copy of REA with the copy's pages dropped from the page
cache before each run and the read-ahead of the copy's block device set to 0 (its bdi
`read_ahead_kb`, restored after), so a page is in the page cache only once the run touched it (fault-around maps pages already
cached, and none is read ahead); mincore(2) lists them. A function is listed when any page it
spans was touched. Nothing leaves the machine; the server binds 127.0.0.1.
"""
import ctypes
import json
import mmap
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
# The linker skips lines starting with '#'.
HEADER = """# The functions a precomputed server and an environment-build touch (both, the build's, the
# server's): the linker places them first in .text, in this order (host/build.rs). Written by
# `python3 host/crates/bundle/bench/code_order.py target/release/rea host/code-order.txt` (root).
"""
PAGE = 4096


def resident_pages(path):
    """The page indexes of `path` in the page cache (mincore over a shared mapping)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    size = os.path.getsize(path)
    count = (size + PAGE - 1) // PAGE
    with open(path, "rb") as file:
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, file.fileno(), 0)
    vector = ctypes.create_string_buffer(count)
    if libc.mincore(address, size, vector) != 0:
        sys.exit("mincore failed: errno %d" % ctypes.get_errno())
    libc.munmap(address, size)
    return {index for index in range(count) if vector.raw[index] & 1}


def drop_from_cache(path):
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(descriptor)


def read_ahead_file(path):
    """The sysfs file of the read-ahead of the device `path` lives on."""
    device = os.stat(path).st_dev
    return "/sys/class/bdi/%d:%d/read_ahead_kb" % (os.major(device), os.minor(device))


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def post(url, body, session=None):
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if session:
        headers["mcp-session-id"] = session
    request = urllib.request.Request(url, json.dumps(body).encode(), headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.headers.get("mcp-session-id"), answer.read().decode(errors="replace")
    except OSError as error:
        return None, str(error)


def mcp_calls(port):
    """An MCP session's first calls: initialize, tools/list, a call of the first tool."""
    url = "http://127.0.0.1:%d/mcp" % port
    session, _ = post(url, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "code-order", "version": "1"}}})
    post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    _, listed = post(url, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, session)
    names = re.findall(r'"name"\s*:\s*"([^"]+)"', listed)
    if names:
        post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": names[0], "arguments": {}}}, session)


def serve(rea, env_dir):
    """Starts the bundle's server reading its state, waits for /ready, makes MCP calls, stops it."""
    port = free_port()
    child = subprocess.Popen(
        [rea, "environment-serve", "manifest.json", "--evidence", "evidence.json", "--pipeline",
         "pipeline.toml", "--state", "state.json", "--port", str(port)],
        cwd=env_dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(3000):
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/ready" % port, timeout=1):
                    break
            except OSError:
                time.sleep(0.01)
        mcp_calls(port)
    finally:
        child.terminate()
        child.wait(timeout=30)


def build(rea, har, bundle, stand_in):
    subprocess.run([rea, "environment-build", har, bundle, "--name", "bench", "--json",
                    "--binary", stand_in], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def touched_pages(rea, work):
    """The pages of `rea` the server touches, and those a build touches."""
    har = os.path.join(work, "synthetic-4mib.har")
    subprocess.run([sys.executable, os.path.join(HERE, "synthetic_har.py"), "4", har], check=True)
    stand_in = os.path.join(work, "stand-in")
    with open(stand_in, "w") as file:
        file.write("#!/bin/sh\necho stand-in rea\n")
    os.chmod(stand_in, 0o755)
    served = os.path.join(work, "served")
    build(rea, har, served, stand_in)
    env_dir = os.path.join(served, "envs", "bench")
    setting = read_ahead_file(rea)
    with open(setting) as file:
        before = file.read().strip()
    try:
        with open(setting, "w") as file:
            file.write("0")
        drop_from_cache(rea)
        serve(rea, env_dir)
        server_pages = resident_pages(rea)
        drop_from_cache(rea)
        build(rea, har, os.path.join(work, "built"), stand_in)
        build_pages = resident_pages(rea)
    finally:
        with open(setting, "w") as file:
            file.write(before)
    return server_pages, build_pages


def text_functions(rea):
    """The functions in `rea`'s .text: (file offset, size, name), by offset."""
    sections = subprocess.run(["readelf", "-S", "-W", rea], capture_output=True, text=True,
                              check=True).stdout
    found = re.search(r"\]\s+\.text\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", sections)
    address, offset, size = (int(part, 16) for part in found.groups())
    symbols = subprocess.run(["nm", "-S", "--defined-only", rea], capture_output=True, text=True,
                             check=True).stdout
    functions = []
    for line in symbols.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            start = int(parts[0], 16)
            if address <= start < address + size:
                functions.append((start - address + offset, max(int(parts[1], 16), 1), parts[3]))
    return sorted(functions)


def listed(functions, pages):
    """The names of the functions spanning any of `pages`, in address order."""
    return [name for offset, size, name in functions
            if any(page in pages for page in range(offset // PAGE, (offset + size - 1) // PAGE + 1))]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    work = tempfile.mkdtemp()
    try:
        rea = os.path.join(work, "rea")
        shutil.copyfile(sys.argv[1], rea)
        os.chmod(rea, 0o755)
        server_pages, build_pages = touched_pages(rea, work)
        functions = text_functions(rea)
        server = set(listed(functions, server_pages))
        built = listed(functions, build_pages)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    groups = {"both": [name for name in built if name in server],
              "build only": [name for name in built if name not in server]}
    groups["server only"] = [name for name in listed(functions, server_pages)
                             if name not in set(built)]
    with open(sys.argv[2], "w") as out:
        out.write(HEADER)
        for names in groups.values():
            out.write("".join(name + "\n" for name in names))
    sizes = {name: size for _, size, name in functions}
    print(", ".join("%s %d functions (%.2f MiB)" % (
        group, len(names), sum(sizes[name] for name in names) / 1048576)
        for group, names in groups.items()))


main()
