"""A real HTTP server on 127.0.0.1 that serves one file as the Hub does.

The remote readers (huggingface_hub's ``parse_safetensors_file_metadata``,
``@huggingface/hub``'s ``parseSafetensorsMetadata``) are tested as their users
use them: over HTTP, with their own Range requests.  The file under test is
served at ``/local/model/resolve/main/model.safetensors`` with the Hub's Range
semantics: 206 with ``Content-Range`` and an ``ETag``, the range clamped to
the file; a suffix range (``bytes=-5``) is the file's last bytes; 416 with
``Content-Range: bytes */SIZE`` for a range past the end, one whose last byte
comes before its first (``bytes=5-3``), or an empty suffix (``bytes=-0``), as
nginx answers them.  A Range header in another form (another unit, several
ranges) is ignored: 200 with the whole file.  So a range-boundary bug in a
client shows, and no answer of the server's is one a real server never gives.

In a Python wrapper: ``endpoint()`` (one server per process, started on first
use) and ``serve_file(path)``.  For a wrapper in another language:
``python3 _range_server.py FILE`` prints the endpoint URL on one line and
serves FILE until its standard input closes.  Standard library only.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Final

__all__ = ["FILE_PATH", "byte_range", "endpoint", "serve_file"]

FILE_PATH: Final = "/local/model/resolve/main/model.safetensors"
_RANGE: Final = re.compile(r"bytes=(\d*)-(\d*)$")
_served: dict[str, str] = {}  # "path": the file the next requests read
# (pid, server): the suite forks its workers from a process that already
# loaded a file, and a thread does not survive a fork, so each process
# starts its own server
_server: list[tuple[int, ThreadingHTTPServer]] = []


class _Hub(BaseHTTPRequestHandler):
    """GET (and HEAD) of the one file, with the Hub's Range semantics."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet: stderr belongs to the suite's crash reports."""

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def do_GET(self) -> None:
        self._answer(body=True)

    def _answer(self, *, body: bool) -> None:
        if self.path.split("?")[0] != FILE_PATH:
            self.send_error(404)
            return
        path = _served["path"]
        size = os.path.getsize(path)
        start, end = 0, size - 1
        status = 200
        asked = _RANGE.match(self.headers.get("Range", ""))
        if asked:
            found = byte_range(asked.group(1), asked.group(2), size)
            if found is None:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            start, end = found
            status = 206
        self.send_response(status)
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("ETag", '"loopback"')
        self.end_headers()
        if body:
            with open(path, "rb") as file:
                file.seek(start)
                self.wfile.write(file.read(end - start + 1))


def byte_range(first: str, last: str, size: int) -> tuple[int, int] | None:
    """Return the bytes ``bytes=FIRST-LAST`` asks of a file (None: 416).

    Both bounds are inclusive, as in ``Content-Range``.
    """
    if not first:  # a suffix: the last LAST bytes
        if not last or int(last) == 0 or size == 0:
            return None
        return max(size - int(last), 0), size - 1
    start = int(first)
    if start >= size or (last and int(last) < start):
        return None
    return start, min(int(last), size - 1) if last else size - 1


def serve_file(path: str) -> None:
    """The file the next requests read."""
    _served["path"] = path


def endpoint() -> str:
    """The server's URL (``http://127.0.0.1:PORT``), started when needed."""
    if not _server or _server[0][0] != os.getpid():
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Hub)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        _server[:] = [(os.getpid(), server)]
    host, port = _server[0][1].server_address[:2]
    return f"http://{host!s}:{port}"


def _main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: _range_server.py FILE", file=sys.stderr)
        return 2
    serve_file(argv[0])
    print(endpoint(), flush=True)
    sys.stdin.read()  # until the client closes it (or exits)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
