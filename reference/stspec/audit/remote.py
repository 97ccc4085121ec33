"""Read the first bytes of files over HTTP(S), within hard limits.

A remote check needs a file's 8-byte prefix, its header and its length, never
its tensor bytes.  Each is asked for with a Range request and taken only from
a ``206 Partial Content`` answer whose ``Content-Range`` names exactly the
bytes asked for; the file's length comes from that ``Content-Range``.  The
server is an adversary: every answer that is not such a 206 is refused with
a message naming what the server did, and nothing it sends can make this
module read or hold more than it asked for.

Limits (all per run unless said otherwise):

* bytes: each answer at most what was asked (8 bytes, then N bytes of
  header with N within HEADER-LIMIT); the run stops at ``max_bytes``;
* response headers: at most ``MAX_RESPONSE_HEADERS`` bytes in all (the
  status line and every header line), within http.client's own limits of
  100 lines of 64 KiB each (which alone let an answer hold 6.4 MB);
* redirects: at most ``MAX_REDIRECTS`` per request, never from https to
  http, ``http://`` only to a loopback address, never a loop;
* time: ``wait`` seconds to connect and for each read, ``deadline``
  seconds for the whole run (a server that trickles a byte at a time
  cannot hold the run past it);
* compression: ``Accept-Encoding: identity`` is sent and any
  ``Content-Encoding`` refused (a compressed body's size says nothing of
  what it expands to).

Standard library only; TLS certificates are verified (``ssl`` defaults).
"""

from __future__ import annotations

import contextlib
import errno
import http.client
import ipaddress
import os
import re
import socket
import ssl
import threading
import time
import urllib.parse

from stspec._version import __version__

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import io
    from typing import Final, NamedTuple, Self
else:
    from stspec.record import NamedTuple

__all__ = [
    "MAX_REDIRECTS",
    "MAX_RESPONSE_HEADERS",
    "MAX_STAND_IN",
    "Answer",
    "Fetched",
    "RemoteError",
    "Session",
    "is_url",
]

MAX_REDIRECTS: Final = 10
# An answer's status line and header lines, in all: four lines of http.client's
# longest.  The Hub's and its CDN's take a few kilobytes (a signed Location is
# the longest line).
MAX_RESPONSE_HEADERS: Final = 256 << 10
# The longest file a remote file may claim to be: its stand-in on disk is
# a sparse file that long, and a file system refuses files past its own
# maximum (16 TiB on ext4).  No model shard comes near it.
MAX_STAND_IN: Final = 1 << 42  # 4 TiB
DEFAULT_MAX_BYTES: Final = 1 << 30  # 1 GiB per run
DEFAULT_DEADLINE: Final = 600.0  # seconds per run
_CHUNK: Final = 1 << 20
_REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})
# "bytes FIRST-LAST/LENGTH" (206) and "bytes */LENGTH" (416); numbers of at
# most 20 digits, so a hostile header cannot make int() parse a huge number.
_CONTENT_RANGE: Final = re.compile(r"bytes (\d{1,20})-(\d{1,20})/(\d{1,20})")
_UNSATISFIED: Final = re.compile(r"bytes \*/(\d{1,20})")
_SCHEMES: Final = ("https://", "http://")
_STALE: Final = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)


def is_url(argument: str) -> bool:
    """Whether a command-line argument is an http(s) URL."""
    return argument.lower().startswith(_SCHEMES)


class RemoteError(OSError):
    """A server that cannot be read, or answered what a reader must refuse.

    An OSError, so that it is reported where unreadable inputs are (exit
    status 2); ``strerror`` says what the server did.
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(errno.EIO, message)
        self.status = status  # the HTTP status that was refused, if one was


class _HeadersTooLarge(http.client.HTTPException):
    """An answer's header section ran past MAX_RESPONSE_HEADERS."""


class _CappedLines:
    """An answer's stream while its headers are read: ``left`` bytes at most.

    http.client reads the status line and the header lines with
    ``readline(limit)`` alone; a line that would take the total past the cap
    is cut at one byte over it, and refused, unless it reached ``limit``:
    then http.client refuses it as a line too long.
    """

    __slots__ = ("left", "raw")

    def __init__(self, raw: io.BufferedReader, left: int) -> None:
        self.raw = raw
        self.left = left

    def readline(self, limit: int = -1) -> bytes:
        size = self.left + 1 if limit < 0 else min(limit, self.left + 1)
        line = self.raw.readline(size)
        self.left -= len(line)
        if self.left < 0 and len(line) != limit:
            raise _HeadersTooLarge
        return line

    def close(self) -> None:
        self.raw.close()


class _Response(http.client.HTTPResponse):
    """An HTTP answer whose header section is capped in all."""

    def __init__(
        self,
        sock: socket.socket,
        debuglevel: int = 0,
        method: str | None = None,
        url: str | None = None,
    ) -> None:
        super().__init__(sock, debuglevel, method, url)
        # Only begin() reads through the cap; the body is bounded elsewhere.
        self._raw = self.fp
        self.fp = _CappedLines(self._raw, MAX_RESPONSE_HEADERS)  # type: ignore[assignment]

    def begin(self) -> None:
        try:
            super().begin()
        finally:
            # None: the answer was closed (an error, or nothing to read).
            if self.fp is not None:  # pragma: no branch - closed on no path here
                self.fp = self._raw


class Answer:
    """What one Range request read, and the file length the server gave."""

    __slots__ = ("body", "length", "size", "url")

    def __init__(self, body: bytes, length: int, url: str, size: int) -> None:
        self.body = body  # empty when the bytes went to a file (``sink``)
        self.length = length  # the whole file's, from Content-Range
        self.url = url  # where the bytes came from, after redirects
        self.size = size  # how many bytes were read


class Fetched(NamedTuple):
    """What was read of one remote file."""

    url: str  # as shown
    length: int  # the file's, as the server gave it
    transferred: int  # bytes of it read
    sha256: str | None = None  # the Hub's LFS SHA-256, None if not known


class Session:
    """One run's limits, byte count and connections, shared by its threads."""

    def __init__(
        self,
        *,
        wait: float = 60.0,
        deadline: float = DEFAULT_DEADLINE,
        max_bytes: int = DEFAULT_MAX_BYTES,
        jobs: int = 8,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.wait = wait
        self.deadline = deadline
        self.max_bytes = max_bytes
        self.jobs = jobs
        self.transferred = 0
        self._extra = dict(headers or {})
        self._ends = time.monotonic() + deadline
        self._lock = threading.Lock()
        self._local = threading.local()
        self._open: set[http.client.HTTPConnection] = set()
        self._expired = False
        self._timer = threading.Timer(deadline, self._expire)
        self._timer.daemon = True
        self._timer.start()
        self._tls: ssl.SSLContext | None = None

    def close(self) -> None:
        """Stop the deadline's timer and close every connection."""
        self._timer.cancel()
        with self._lock:
            connections = list(self._open)
            self._open.clear()
        for connection in connections:
            connection.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def add_header(self, name: str, value: str, origin: str) -> None:
        """Send ``name: value`` to ``origin`` (scheme://host:port) only."""
        self._extra[f"{origin}\0{name}"] = value

    # Requests -----------------------------------------------------------

    def get_range(
        self, url: str, first: int, last: int, *, sink: int | None = None
    ) -> Answer:
        """Read bytes ``first`` to ``last`` (inclusive) of the file at ``url``.

        Fewer only when the file ends first (the server says where it ends);
        none when ``first`` is at or past the end (a 416 that says the
        length).  Anything else the server answers raises RemoteError.
        ``sink``: a file descriptor the bytes are written to at their own
        offsets, a megabyte at a time, instead of being returned (a header
        of 100 MB per thread is never held in memory).
        """
        response, final = self._request(url, {"Range": f"bytes={first}-{last}"})
        try:
            return self._partial(response, final, (first, last), sink)
        finally:
            self._finish(response, final)

    def _partial(
        self,
        response: http.client.HTTPResponse,
        url: str,
        asked: tuple[int, int],
        sink: int | None,
    ) -> Answer:
        first, last = asked
        content_range = response.getheader("Content-Range")
        if response.status == 416:
            found = _UNSATISFIED.fullmatch((content_range or "").strip())
            if found is None or int(found[1]) > first:
                raise RemoteError(
                    f"the server answered 416 (range not satisfiable) to bytes "
                    f"{first}-{last} with Content-Range {content_range!r}, "
                    f"expected 'bytes */LENGTH' with LENGTH at most {first}"
                )
            return Answer(b"", _length(int(found[1])), url, 0)
        if response.status == 200:
            raise RemoteError(
                f"the server answered 200 (the whole file) to a Range request "
                f"for bytes {first}-{last}; a header-only check needs a server "
                "that honours Range (206)"
            )
        if response.status != 206:
            raise RemoteError(
                f"the server answered {_status(response)}", response.status
            )
        _refuse_encoding(response)
        if content_range is None:
            raise RemoteError(
                f"the server answered 206 without a Content-Range header to a "
                f"request for bytes {first}-{last}"
            )
        found = _CONTENT_RANGE.fullmatch(content_range.strip())
        if found is None:
            raise RemoteError(
                f"the server sent Content-Range {content_range!r}, expected "
                f"'bytes {first}-LAST/LENGTH'"
            )
        start, end, length = int(found[1]), int(found[2]), int(found[3])
        expected_end = min(last, length - 1)
        if start != first or end != expected_end or length <= start:
            raise RemoteError(
                f"the server sent Content-Range {content_range!r} for a request "
                f"for bytes {first}-{last}, expected 'bytes "
                f"{first}-{expected_end}/{length}'"
            )
        wanted = end - start + 1
        self._check_length(response, wanted)
        body = self._read(response, start, wanted, sink)
        return Answer(body, _length(length), url, wanted)

    def _check_length(self, response: http.client.HTTPResponse, wanted: int) -> None:
        declared = response.getheader("Content-Length")
        if declared is None:
            return
        if not declared.strip().isdigit() or int(declared) != wanted:
            raise RemoteError(
                f"the server declared Content-Length {declared[:40]!r} for "
                f"{wanted} bytes of Content-Range"
            )

    def _read(
        self,
        response: http.client.HTTPResponse,
        start: int,
        wanted: int,
        sink: int | None,
    ) -> bytes:
        """Read exactly ``wanted`` bytes; refuse fewer, and a byte more."""
        parts = []
        got = 0
        while got < wanted:
            part = self._recv(response, min(_CHUNK, wanted - got))
            if not part:
                raise RemoteError(
                    f"the server closed the connection after {got} of the "
                    f"{wanted} bytes it announced"
                )
            self._count(len(part))
            if sink is None:
                parts.append(part)
            else:
                _write_at(sink, part, start + got)
            got += len(part)
        if response.getheader("Content-Length") is None and self._recv(response, 1):
            # No declared length (chunked or close-delimited): the body must
            # end where the range does.
            raise RemoteError(f"the server sent more than the {wanted} bytes asked for")
        return b"".join(parts)

    def _recv(self, response: http.client.HTTPResponse, size: int) -> bytes:
        """Read at most ``size`` bytes of the body (b"" at its end)."""
        failed: Exception | None = None
        try:
            part = response.read(size)
        except (OSError, http.client.HTTPException) as exc:
            failed = exc
        # At the deadline the timer shuts the socket down, and a socket's
        # timeout is cut to the deadline: whatever the read then saw (an end,
        # an error, a timeout) was the deadline's doing.
        if self._over():
            raise RemoteError(self._expired_message())
        if isinstance(failed, TimeoutError):
            raise RemoteError(self._stalled())
        if failed is not None:
            raise RemoteError(f"the connection failed while reading: {failed}")
        return part

    def _count(self, size: int) -> None:
        with self._lock:
            self.transferred += size
            if self.transferred > self.max_bytes:
                raise RemoteError(
                    f"the run read more than {self.max_bytes:,} bytes, its limit "
                    "(--max-transfer)"
                )

    def get_json(self, url: str, limit: int) -> tuple[bytes, str]:
        """Return a whole small file (an index, an API answer), at most ``limit``.

        A plain GET: the body may not pass ``limit``, declared or sent.
        Returns the body and the URL it came from, after redirects.
        """
        response, final = self._request(url, {})
        try:
            if response.status != 200:
                raise RemoteError(
                    f"the server answered {_status(response)}", response.status
                )
            _refuse_encoding(response)
            declared = response.getheader("Content-Length")
            if declared is not None and (
                not declared.strip().isdigit() or int(declared) > limit
            ):
                raise RemoteError(
                    f"the server announced {declared[:40]} bytes, more than the "
                    f"{limit:,} this checker reads of it"
                )
            parts = []
            got = 0
            while part := self._recv(response, min(_CHUNK, limit + 1 - got)):
                parts.append(part)
                got += len(part)
                self._count(len(part))
                if got > limit:
                    raise RemoteError(
                        f"the server sent more than {limit:,} bytes, the most "
                        "this checker reads of it"
                    )
            if declared is not None and got != int(declared):
                raise RemoteError(
                    f"the server closed the connection after {got} of the "
                    f"{int(declared)} bytes it announced"
                )
            return b"".join(parts), final
        finally:
            self._finish(response, final)

    def _request(
        self, url: str, headers: dict[str, str]
    ) -> tuple[http.client.HTTPResponse, str]:
        """Send GET ``url``, following redirects; return the final answer."""
        seen = {url}
        for _ in range(MAX_REDIRECTS + 1):
            response = self._send(url, headers)
            if response.status not in _REDIRECTS:
                return response, url
            location = response.getheader("Location")
            self._finish(response, url)
            if not location:
                raise RemoteError(
                    f"the server answered {_status(response)} without a Location"
                )
            target = urllib.parse.urljoin(url, location)
            if url.lower().startswith("https://") and not target.lower().startswith(
                "https://"
            ):
                raise RemoteError(
                    f"the server redirected from https to {_shown(target)}: "
                    "refused, a redirect may not drop TLS"
                )
            if target in seen:
                raise RemoteError(
                    f"the server redirected in a loop (back to {_shown(target)})"
                )
            seen.add(target)
            url = target
        raise RemoteError(f"the server redirected more than {MAX_REDIRECTS} times")

    def _send(self, url: str, headers: dict[str, str]) -> http.client.HTTPResponse:
        if self._over():
            raise RemoteError(self._expired_message())
        parts = urllib.parse.urlsplit(url)
        origin = _origin(parts)
        sent = {
            "Accept-Encoding": "identity",
            "User-Agent": f"stspec/{__version__}",
            **headers,
        }
        for key, value in self._extra.items():
            where, _, name = key.partition("\0")
            if where == origin:
                sent[name] = value
        target = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
        for attempt in range(2):
            connection = self._connection(parts, origin)
            try:
                connection.request("GET", target, headers=sent)
                return connection.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                self._drop(origin)
                # A kept-alive connection the server had closed: once more,
                # on a new one.
                if attempt or self._expired or not isinstance(exc, _STALE):
                    raise self._failure(exc, url) from None
        raise AssertionError  # pragma: no cover - the loop returns or raises

    def _failure(self, exc: Exception, url: str) -> RemoteError:  # noqa: PLR0911 - a table
        """Say what went wrong with a request, in the server's terms."""
        if self._over():  # the timer or the socket's timeout, whichever came first
            return RemoteError(self._expired_message())
        if isinstance(exc, TimeoutError):
            return RemoteError(self._stalled())
        if isinstance(exc, _STALE):
            return RemoteError(
                f"the server closed the connection without answering ({_shown(url)})"
            )
        if isinstance(exc, ssl.SSLError):
            return RemoteError(f"TLS failed: {exc.reason or exc}")
        if isinstance(exc, _HeadersTooLarge):
            return RemoteError(
                f"the server sent more than {MAX_RESPONSE_HEADERS >> 10} KiB of "
                "response headers (status line and header lines in all)"
            )
        if isinstance(exc, http.client.LineTooLong):
            return RemoteError(
                "the server sent a response header line longer than 64 KiB"
            )
        if isinstance(exc, http.client.HTTPException):
            return RemoteError(f"the server's answer is not HTTP: {exc}")
        host = urllib.parse.urlsplit(url).hostname
        reason = exc.strerror if isinstance(exc, OSError) else None
        return RemoteError(f"cannot connect to {host}: {reason or exc}")

    def _connection(
        self, parts: urllib.parse.SplitResult, origin: str
    ) -> http.client.HTTPConnection:
        pool: dict[str, http.client.HTTPConnection] = self._local.__dict__.setdefault(
            "pool", {}
        )
        connection = pool.get(origin)
        if connection is not None:
            return connection
        host = parts.hostname or ""
        try:
            port = parts.port
        except ValueError:
            raise RemoteError(f"the URL has a bad port: {_shown(origin)}") from None
        timeout = min(self.wait, max(self._ends - time.monotonic(), 0.001))
        if parts.scheme == "https":
            if self._tls is None:
                self._tls = ssl.create_default_context()
            connection = http.client.HTTPSConnection(
                host, port, timeout=timeout, context=self._tls
            )
        elif parts.scheme == "http" and _loopback(host):
            connection = http.client.HTTPConnection(host, port, timeout=timeout)
        elif parts.scheme == "http":
            raise RemoteError(
                f"plain http is refused for {host} (only a loopback address may "
                "be read without TLS)"
            )
        else:
            raise RemoteError(f"not an http(s) URL: {_shown(origin)}")
        connection.response_class = _Response
        pool[origin] = connection
        with self._lock:
            self._open.add(connection)
        return connection

    def _finish(self, response: http.client.HTTPResponse, url: str) -> None:
        """Close an answer; keep its connection only if nothing is left unread.

        A redirect's short body is read away; any other unread body (an
        error page, a refused answer) closes the connection, whose next
        answer would otherwise start with the rest of this one.
        """
        left = response.length
        if not response.isclosed() and left is not None and left <= _CHUNK:
            # RemoteError (an OSError) too: the run's limit is reported elsewhere.
            with contextlib.suppress(OSError, http.client.HTTPException):
                self._count(len(response.read(left)))
        if not response.isclosed():
            response.close()
            self._drop(_origin(urllib.parse.urlsplit(url)))

    def _drop(self, origin: str) -> None:
        pool: dict[str, http.client.HTTPConnection] = self._local.__dict__.get(
            "pool", {}
        )
        # Every request's origin has its connection here: _connection put it
        # there, and only this drops it.
        connection = pool.pop(origin)
        connection.close()
        with self._lock:
            self._open.discard(connection)

    def _over(self) -> bool:
        return self._expired or time.monotonic() >= self._ends

    def _expire(self) -> None:
        """At the deadline: unblock every thread waiting on a socket."""
        self._expired = True
        with self._lock:
            connections = list(self._open)
        for connection in connections:
            sock = connection.sock
            if sock is not None:
                with contextlib.suppress(OSError):  # closed meanwhile
                    sock.shutdown(socket.SHUT_RDWR)

    def _stalled(self) -> str:
        return f"the server sent nothing for {self.wait:g} s (--wait)"

    def _expired_message(self) -> str:
        return f"the run took longer than {self.deadline:g} s, its limit (--deadline)"


def _write_at(fd: int, data: bytes, offset: int) -> None:
    written = 0
    try:
        while written < len(data):
            written += os.pwrite(fd, data[written:], offset + written)
    except OSError as exc:
        raise RemoteError(
            f"cannot write what the server sent: {exc.strerror or exc}"
        ) from None


def _length(length: int) -> int:
    if length > MAX_STAND_IN:
        raise RemoteError(
            f"the server says the file is {length:,} bytes long, more than the "
            f"{MAX_STAND_IN:,} (4 TiB) this checker accepts"
        )
    return length


def _refuse_encoding(response: http.client.HTTPResponse) -> None:
    encoding = response.getheader("Content-Encoding")
    if encoding is not None and encoding.strip().lower() not in {"", "identity"}:
        raise RemoteError(
            f"the server compressed its answer (Content-Encoding {encoding[:40]!r}) "
            "although asked for identity: refused, a compressed size says "
            "nothing of the bytes it expands to"
        )


def _status(response: http.client.HTTPResponse) -> str:
    reason = (response.reason or "").strip()[:80]
    return f"{response.status} {reason}".rstrip()


def _origin(parts: urllib.parse.SplitResult) -> str:
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}".lower()


def _shown(url: str) -> str:
    """Shorten a URL for a message: no query (it may hold a signature)."""
    kept = url.split("?", 1)[0]
    return kept if len(kept) <= 200 else kept[:200] + "..."


def _loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
