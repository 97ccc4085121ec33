"""huggingface_hub's remote header reader against a real HTTP server on loopback.

``HfApi(endpoint=...).parse_safetensors_file_metadata(repo, filename)`` as its
users call it for a file on the Hub: a GET with ``Range: bytes=0-100000``,
then, when the header is longer than that first answer, a second GET for
``bytes=8-(N+7)``.  Here the endpoint is a ``ThreadingHTTPServer`` on
127.0.0.1 (started once per worker process) that serves the file under test
at ``/local/model/resolve/main/model.safetensors`` and answers Range
requests as the Hub does: 206 with ``Content-Range``, the range clamped to
the file, 416 past its end.  So a range-boundary bug in the client shows.
Header-only.  ``SafetensorsParsingError`` is a rejection, and so is the HTTP
error the client raises for a 416 (a file shorter than the range it asks).
"""

from __future__ import annotations

import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Final

import huggingface_hub
from _spec import Tensors
from huggingface_hub import HfApi
from huggingface_hub.errors import HfHubHTTPError, SafetensorsParsingError

NAME: Final = "huggingface_hub parse_safetensors_file_metadata (HTTP, loopback)"
VERSION: Final = str(huggingface_hub.__version__)
CAPABILITIES: Final = {"header_only": True, "metadata_presence": False}
REJECTS: Final = (SafetensorsParsingError, HfHubHTTPError)
_RANGE: Final = re.compile(r"bytes=(\d+)-(\d*)$")
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
        if not self.path.endswith("/resolve/main/model.safetensors"):
            self.send_error(404)
            return
        path = _served["path"]
        size = os.path.getsize(path)
        start, end = 0, size - 1
        status = 200
        asked = _RANGE.match(self.headers.get("Range", ""))
        if asked:
            start = int(asked.group(1))
            end = min(int(asked.group(2) or size - 1), size - 1)
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
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


def _endpoint() -> str:
    if not _server or _server[0][0] != os.getpid():
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Hub)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        _server[:] = [(os.getpid(), server)]
    host, port = _server[0][1].server_address[:2]
    return f"http://{host!s}:{port}"


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Names, dtypes, shapes and metadata read over HTTP Range requests."""
    _served["path"] = path
    api = HfApi(endpoint=_endpoint(), token=False)
    parsed = api.parse_safetensors_file_metadata("local/model", "model.safetensors")
    tensors: Tensors = {
        name: (info.dtype, list(info.shape)) for name, info in parsed.tensors.items()
    }
    # as the library gives it: None for "__metadata__": null, {} when absent
    return tensors, parsed.metadata
