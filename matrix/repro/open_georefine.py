"""georefine-verify: its HTTP Range reader, as ``verify --reference-mode range``.

    .matrix/georefine-verify/venv/bin/python matrix/repro/open_georefine.py FILE

Serves FILE from a separate process on 127.0.0.1 (206 with ``Content-Range``
for a Range request, as the Hub and any static file server answer), then
reads it as verify.py reads a parent checkpoint: ``read_safetensors_header``
over an ``HttpFile``, and each tensor's bytes by ``HttpFile.read`` in
``RAW_CHUNK`` pieces.  The server runs in a process of its own so that the
CPU time printed at the end is the client's alone.  Prints the tensors, then
"accepted"; whatever it raises is left uncaught.
"""

import re
import resource
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def serve(path: str) -> None:
    """The one file with Range semantics; prints the port, serves forever."""
    data = Path(path).read_bytes()

    class Hub(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            """Quiet."""

        def do_GET(self) -> None:
            size = len(data)
            asked = re.match(r"bytes=(\d+)-(\d*)$", self.headers.get("Range", ""))
            start = int(asked.group(1)) if asked else 0
            end = min(int(asked.group(2) or size - 1), size - 1) if asked else size - 1
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206 if asked else 200)
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
            self.send_header("Content-Length", str(end - start + 1))
            self.end_headers()
            self.wfile.write(data[start : end + 1])

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    print(server.server_address[1], flush=True)
    server.serve_forever()


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
