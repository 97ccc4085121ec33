"""A Hugging Face Hub on 127.0.0.1: repositories served from local folders.

What ``stspec check hf://...`` and URL arguments are tested (and benchmarked)
against, a real HTTP server with the Hub's routes:

* ``GET /api/models/ORG/NAME/revision/REV?blobs=true``: the repository's
  files as the Hub lists them (``siblings``: ``rfilename``, ``size``, and
  ``lfs.sha256`` for each ``*.safetensors`` file);
* ``GET|HEAD /ORG/NAME/resolve/REV/PATH``: a 302 to ``/cdn/ORG/NAME/PATH``,
  with the Hub's ``X-Repo-Commit``, ``X-Linked-Etag`` and ``X-Linked-Size``;
* ``GET|HEAD /cdn/ORG/NAME/PATH``: the file, with Range semantics (206 with
  ``Content-Range``; 416 with ``bytes */SIZE`` past the end).

``mode`` makes the file answers hostile, one misbehaviour each (see
``MODES``).  ``python tests/cli/hub_server.py FOLDER ORG/NAME`` serves one
folder as one repository and prints the endpoint, for the how-to guide.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import re
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Final, Self

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["MODES", "HubServer"]

_RANGE: Final = re.compile(r"bytes=(\d*)-(\d*)$")
_COMMIT: Final = "0" * 40


def _load_range_server() -> ModuleType:
    """Load the matrix's loopback Hub, whose Range semantics the files get here.

    matrix/wrappers is a folder of scripts, not a package, so it is loaded by
    path; the module is standard library only.
    """
    path = Path(__file__).resolve().parents[2] / "matrix/wrappers/_range_server.py"
    spec = importlib.util.spec_from_file_location("range_server", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_RANGE_SERVER: Final = _load_range_server()
MODES: Final = (
    "ignore-range",  # 200 and the whole file
    "extra-bytes",  # 206, the right Content-Range, 100 bytes more than asked
    "extra-unsized",  # 206 without Content-Length, more bytes than asked
    "wrong-range",  # 206 whose Content-Range starts a byte late
    "no-content-range",  # 206 without Content-Range
    "gzip",  # Content-Encoding: gzip
    "stall",  # headers, then nothing
    "trickle",  # one byte every 0.2 s
    "redirect-loop",  # 302 to itself
    "redirect-chain",  # 302 to a new URL, for ever
    "huge-length",  # Content-Range claims a 2**50-byte file
    "short-body",  # closes before the announced bytes
    "long-header",  # a 70 KB response header line
    "many-headers",  # 200 response headers
    "huge-headers",  # 90 response headers of 60 KB (each line within limits)
    "not-found",  # 404 for every file
    "bad-name",  # the API lists ../escape.safetensors
    "api-huge",  # the API announces a 1 TiB answer
    "size-mismatch",  # the API lists each file a byte longer than it is
    "ghost",  # the API lists ghost.safetensors, which the CDN does not have
    "api-not-json",  # the API answers text that is not JSON
    "api-no-siblings",  # the API answers JSON without a list of files
    "bad-lfs",  # the API gives each LFS file a sha256 that is not 64 hex digits
    "file-and-folder",  # the API lists a file under a name it lists as a file
    "false-416",  # 416 with 'bytes */SIZE' to a range inside the file
    "range-star",  # 206 whose Content-Range gives no length ('bytes 0-7/*')
    "no-location",  # 302 without a Location
    "redirect-ftp",  # 302 to an ftp:// URL
    "no-answer",  # closes each connection without answering
    "length-changes",  # the file grows a byte between the prefix and the header
    "mute",  # takes each request and answers nothing
    "bad-chunk",  # a chunked body whose first chunk size is not hex
)


class HubServer:
    """Serve ``repos`` (ORG/NAME -> folder) until closed; ``url`` is the endpoint."""

    def __init__(self, repos: dict[str, Path], *, hashed: bool = True) -> None:
        """``hashed=False``: list a digest of each file's name and size instead
        of its content's (a benchmark's sparse gigabytes are not read)."""
        self.repos = repos
        self.hashed = hashed
        self.mode: str | None = None
        self.sent = 0  # bytes of files sent
        self.requests = 0  # requests answered, of every kind
        self.connections = 0  # connections accepted
        self.authorized: list[str] = []  # Host of each request with Authorization
        self.whole = 0  # bytes the served files hold, for a share
        self._lock = threading.Lock()
        self._digests: dict[Path, str] = {}
        self._server = _Server(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        host, port = self._server.server_address[:2]
        self.url = f"http://{host!s}:{port}"
        self.cdn = f"http://localhost:{port}"  # the same server, by another name

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def file(self, repo: str, path: str) -> Path | None:
        folder = self.repos.get(repo)
        if folder is None or not path or ".." in path.split("/"):
            return None
        found = folder / path
        return found if found.is_file() else None

    def siblings(self, repo: str) -> list[dict[str, object]]:
        folder = self.repos[repo]
        listed: list[dict[str, object]] = []
        for file in sorted(p for p in folder.rglob("*") if p.is_file()):
            size = file.stat().st_size
            entry: dict[str, object] = {
                "rfilename": file.relative_to(folder).as_posix(),
                "size": size,
            }
            if file.name.endswith(".safetensors"):
                entry["lfs"] = {
                    "sha256": self.digest(file),
                    "size": size,
                    "pointerSize": 134,
                }
            listed.append(entry)
        return listed

    def digest(self, file: Path) -> str:
        with self._lock:
            if file not in self._digests and not self.hashed:
                named = f"{file.name}:{file.stat().st_size}".encode()
                self._digests[file] = hashlib.sha256(named).hexdigest()
            if file not in self._digests:
                with file.open("rb") as opened:
                    self._digests[file] = hashlib.file_digest(
                        opened, "sha256"
                    ).hexdigest()
            return self._digests[file]

    def count(self, size: int) -> None:
        with self._lock:
            self.sent += size

    def counted(self, *, requests: int = 0, connections: int = 0) -> None:
        with self._lock:
            self.requests += requests
            self.connections += connections


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """Quiet: a client that hung up on a hostile answer is the point."""


def _handler(hub: HubServer) -> type[BaseHTTPRequestHandler]:  # noqa: C901 - routes
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the Hub
        # Headers and body go out in two writes: with Nagle's algorithm the
        # second waits for the client's delayed ACK (40 ms), as no real
        # server makes its clients wait.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            """Quiet."""

        def setup(self) -> None:
            super().setup()
            hub.counted(connections=1)

        def do_HEAD(self) -> None:
            self._route(body=False)

        def do_GET(self) -> None:
            self._route(body=True)

        def _route(self, *, body: bool) -> None:
            hub.counted(requests=1)
            if "Authorization" in self.headers:
                hub.authorized.append(self.headers.get("Host", ""))
            self._answer(body=body)

        def _answer(self, *, body: bool) -> None:
            split = urllib.parse.urlsplit(self.path)
            path = urllib.parse.unquote(split.path)
            parts = path.lstrip("/").split("/")
            if (
                parts[:2] == ["api", "models"]
                and len(parts) >= 6
                and parts[4] == "revision"
            ):
                self._api("/".join(parts[2:4]), body=body)
            elif len(parts) >= 5 and parts[2] == "resolve":
                repo, rest = "/".join(parts[:2]), "/".join(parts[4:])
                self._resolve(repo, rest)
            elif parts[0] == "cdn" and len(parts) >= 4:
                self._file(
                    "/".join(parts[1:3]), "/".join(parts[3:]), split.query, body=body
                )
            else:
                self._empty(404)

        def _empty(self, status: int, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _api(self, repo: str, *, body: bool) -> None:
            if repo not in hub.repos:
                self._empty(404)
                return
            siblings = _listed(hub.siblings(repo), hub.mode)
            answer: dict[str, object] = {"id": repo, "sha": _COMMIT}
            if hub.mode != "api-no-siblings":
                answer["siblings"] = siblings
            text = json.dumps(answer)
            if hub.mode == "api-not-json":
                text = "<html>rate limited</html>"
            data = text.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            announced = 1 << 40 if hub.mode == "api-huge" else len(data)
            self.send_header("Content-Length", str(announced))
            self.end_headers()
            if body and hub.mode != "api-huge":
                self.wfile.write(data)

        def _resolve(self, repo: str, path: str) -> None:
            file = hub.file(repo, path)
            if file is None:
                self._empty(404, {"X-Error-Code": "EntryNotFound"})
                return
            etag = f'"{hub.digest(file)}"'
            self._empty(
                302,
                {
                    # Absolute, as the Hub sends its CDN: huggingface_hub does
                    # not follow it for a HEAD, and reads the headers here.
                    "Location": f"{hub.cdn}/cdn/{repo}/{urllib.parse.quote(path)}",
                    "X-Repo-Commit": _COMMIT,
                    "X-Linked-Etag": etag,
                    "X-Linked-Size": str(file.stat().st_size),
                    "ETag": etag,
                },
            )

        def _file(  # noqa: C901 - one branch per hostile mode
            self, repo: str, path: str, query: str, *, body: bool
        ) -> None:
            mode = hub.mode
            if mode == "not-found":
                self._empty(404)
                return
            if mode == "mute":
                time.sleep(30)
                return
            if mode == "no-answer":
                self.close_connection = True
                return
            if mode == "no-location":
                self._empty(302)
                return
            if mode == "redirect-ftp":
                self._empty(302, {"Location": "ftp://127.0.0.1/x.safetensors"})
                return
            if mode == "redirect-loop":
                self._empty(302, {"Location": self.path})
                return
            if mode == "redirect-chain":
                step = int(urllib.parse.parse_qs(query).get("n", ["0"])[0]) + 1
                target = f"/cdn/{repo}/{urllib.parse.quote(path)}?n={step}"
                self._empty(302, {"Location": target})
                return
            file = hub.file(repo, path)
            if file is None:
                self._empty(404)
                return
            size = file.stat().st_size
            start, end, status = 0, size - 1, 200
            asked = _RANGE.match(self.headers.get("Range", ""))
            if asked and mode != "ignore-range":
                found = _RANGE_SERVER.byte_range(asked[1], asked[2], size)
                if found is None or mode == "false-416":
                    self._empty(416, {"Content-Range": f"bytes */{size}"})
                    return
                start, end = found
                status = 206
            with file.open("rb") as opened:  # only the bytes asked for: shards are big
                opened.seek(start)
                payload = opened.read(end - start + 1)
            headers = {"ETag": f'"{hub.digest(file)}"'}
            if status == 206:
                first = start + 1 if mode == "wrong-range" else start
                length = 1 << 50 if mode == "huge-length" else size
                if mode == "length-changes" and start > 0:
                    length += 1
                shown = "*" if mode == "range-star" else length
                headers["Content-Range"] = f"bytes {first}-{end}/{shown}"
                if mode == "no-content-range":
                    del headers["Content-Range"]
            if mode == "gzip":
                headers["Content-Encoding"] = "gzip"
            if mode in {"extra-bytes", "extra-unsized"}:
                payload += b"\0" * 100
            if mode == "long-header":
                headers["X-Padding"] = "x" * 70_000
            if mode == "many-headers":
                headers.update({f"X-Extra-{n}": "1" for n in range(200)})
            if mode == "huge-headers":
                headers.update({f"X-Large-{n}": "x" * 60_000 for n in range(90)})
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            if mode == "bad-chunk":
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.wfile.write(b"zz\r\n")
                return
            if mode == "extra-unsized":
                self.send_header("Connection", "close")
                self.close_connection = True
            elif mode == "short-body":
                self.send_header("Content-Length", str(len(payload)))
                self.close_connection = True
            else:
                self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if not body:
                return
            if mode == "stall":
                self.wfile.flush()
                time.sleep(30)
                return
            if mode == "trickle":
                for byte in payload[:200]:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.2)
                return
            if mode == "short-body":
                self.wfile.write(payload[: len(payload) // 2])
                return
            self.wfile.write(payload)
            hub.count(len(payload))

    return Handler


def _listed(
    siblings: list[dict[str, object]], mode: str | None
) -> list[dict[str, object]]:
    """The API's list of files, as the hostile ``mode`` misstates it."""
    if mode == "bad-name":
        siblings.append({"rfilename": "../escape.safetensors", "size": 8})
    if mode == "ghost":
        siblings.append({"rfilename": "ghost.safetensors", "size": 8})
    if mode == "bad-lfs":
        for sibling in siblings:
            if isinstance(sibling.get("lfs"), dict):
                sibling["lfs"] = {"sha256": "not-a-digest"}
    if mode == "file-and-folder":
        first = str(siblings[0]["rfilename"])
        siblings.append({"rfilename": f"{first}/x.safetensors", "size": 8})
    if mode == "size-mismatch":
        for sibling in siblings:
            sibling["size"] = int(str(sibling["size"])) + 1
    return siblings


def _main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write("usage: hub_server.py FOLDER ORG/NAME\n")
        return 2
    with HubServer({argv[1]: Path(argv[0])}) as hub:
        sys.stdout.write(hub.url + "\n")
        sys.stdout.flush()
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
