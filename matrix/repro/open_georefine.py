"""georefine-verify: its HTTP Range reader, as ``verify --reference-mode range``.

    .matrix/georefine-verify/venv/bin/python matrix/repro/open_georefine.py FILE

Serves FILE from a separate process on 127.0.0.1 (206 with ``Content-Range``
for a Range request, as the Hub and any static file server answer), then
reads it as verify.py reads a parent checkpoint: ``read_safetensors_header``
over an ``HttpFile``, and each tensor's bytes by ``HttpFile.read`` in
``RAW_CHUNK`` pieces.  The server runs in a process of its own so that the
CPU time printed at the end is the client's alone; it stops when the client
does.  Prints the tensors, then
"accepted"; whatever it raises is left uncaught.
"""

import os
import re
import resource
import socket
import subprocess
import sys
from pathlib import Path


def serve(path: str) -> None:
    """Serve the one file with Range semantics until the client is gone.

    A plain socket loop, one request per connection as urllib makes them: it
    costs a fraction of the client's CPU per request, so a CPU-time limit
    that the client passes on to this process (limits are inherited) stops
    the client first.
    """
    data = Path(path).read_bytes()
    client = os.getppid()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.5)
    print(listener.getsockname()[1], flush=True)
    while os.getppid() == client:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        with conn:
            request = b""
            while b"\r\n\r\n" not in request:
                more = conn.recv(65536)
                if not more:
                    break
                request += more
            size = len(data)
            asked = re.search(rb"(?im)^range: bytes=(\d+)-(\d*)\r$", request)
            start = int(asked.group(1)) if asked else 0
            end = min(int(asked.group(2) or size - 1), size - 1) if asked else size - 1
            if start >= size:
                head = (
                    "HTTP/1.1 416 Range Not Satisfiable"
                    f"\r\nContent-Range: bytes */{size}\r\nContent-Length: 0"
                )
                body = b""
            else:
                status = "206 Partial Content" if asked else "200 OK"
                head = (
                    f"HTTP/1.1 {status}\r\nContent-Range: bytes {start}-{end}/{size}"
                    f"\r\nContent-Length: {end - start + 1}"
                )
                body = data[start : end + 1]
            conn.sendall(f"{head}\r\nConnection: close\r\n\r\n".encode() + body)


if sys.argv[1] == "--serve":
    serve(sys.argv[2])
    raise SystemExit

from georefine_verify.sources import HttpFile, read_safetensors_header  # noqa: E402
from georefine_verify.verify import RAW_CHUNK  # noqa: E402

hub = subprocess.Popen(  # noqa: S603 - this script, serving FILE
    [sys.executable, __file__, "--serve", sys.argv[1]], stdout=subprocess.PIPE
)
try:
    port = int(hub.stdout.readline())  # type: ignore[union-attr]
    src = HttpFile(f"http://127.0.0.1:{port}/model.safetensors")
    entries, metadata, start = read_safetensors_header(src)
    for number, (name, entry) in enumerate(entries.items()):
        data = bytearray()
        for at in range(0, entry.nbytes, RAW_CHUNK):
            data += src.read(entry.offset + at, min(RAW_CHUNK, entry.nbytes - at))
        if number < 20:
            print(f"{name}: {entry.dtype} {list(entry.shape)}, {len(data)} bytes")
    used = resource.getrusage(resource.RUSAGE_SELF)
    print(f"{len(entries)} tensors, data at {start}; metadata: {str(metadata)[:200]}")
    print(f"client CPU: {used.ru_utime + used.ru_stime:.1f} s")
finally:
    hub.kill()
print("accepted")
