"""The matrix's loopback Range server answers every Range as a real server does.

Remote readers are judged through it, so an answer no real server gives (a
negative Content-Length, the whole file for a suffix range) would be a fault
of the wrapper blamed on the reader.
"""

from __future__ import annotations

import http.client
from typing import TYPE_CHECKING

import pytest
from wrapper_modules import load_wrapper

if TYPE_CHECKING:
    from pathlib import Path
    from types import ModuleType

DATA = bytes(range(100))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, str]:
    module = load_wrapper("_range_server.py")
    path: Path = tmp_path_factory.mktemp("range") / "model.safetensors"
    path.write_bytes(DATA)
    module.serve_file(str(path))
    return module, module.endpoint()


def _get(
    server: tuple[ModuleType, str], asked: str | None, method: str = "GET"
) -> tuple[int, dict[str, str], bytes]:
    module, url = server
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request(
            method, module.FILE_PATH, headers={"Range": asked} if asked else {}
        )
        answer = connection.getresponse()
        body = answer.read()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, body
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("asked", "first", "last"),
    [
        ("bytes=0-7", 0, 7),
        ("bytes=90-", 90, 99),
        ("bytes=99-99", 99, 99),
        ("bytes=5-5", 5, 5),
        ("bytes=-5", 95, 99),  # a suffix: the last 5 bytes
        ("bytes=-500", 0, 99),  # longer than the file: all of it
        ("bytes=0-99999999999999999999", 0, 99),  # clamped to the file
    ],
)
def test_a_satisfiable_range_is_206_with_those_bytes(
    server: tuple[ModuleType, str], asked: str, first: int, last: int
) -> None:
    status, headers, body = _get(server, asked)
    assert status == 206
    assert headers["content-range"] == f"bytes {first}-{last}/{len(DATA)}"
    assert headers["content-length"] == str(last - first + 1)
    assert body == DATA[first : last + 1]


@pytest.mark.parametrize(
    "asked", ["bytes=5-3", "bytes=100-", "bytes=100-200", "bytes=-0", "bytes=-"]
)
def test_an_unsatisfiable_or_backwards_range_is_416(
    server: tuple[ModuleType, str], asked: str
) -> None:
    status, headers, body = _get(server, asked)
    assert status == 416
    assert headers["content-range"] == f"bytes */{len(DATA)}"
    assert (headers["content-length"], body) == ("0", b"")


@pytest.mark.parametrize("asked", [None, "bytes=0-1,5-6", "items=0-1", "bytes=a-b"])
def test_no_range_or_one_in_another_form_is_the_whole_file(
    server: tuple[ModuleType, str], asked: str | None
) -> None:
    status, headers, body = _get(server, asked)
    assert status == 200
    assert "content-range" not in headers
    assert (headers["content-length"], body) == (str(len(DATA)), DATA)


def test_head_answers_the_headers_of_get(server: tuple[ModuleType, str]) -> None:
    status, headers, body = _get(server, "bytes=-5", method="HEAD")
    assert (status, body) == (206, b"")
    assert headers["content-range"] == f"bytes 95-99/{len(DATA)}"
    assert headers["content-length"] == "5"


def test_an_empty_file_has_no_suffix(server: tuple[ModuleType, str]) -> None:
    module, _ = server
    assert module.byte_range("", "5", 0) is None
    assert module.byte_range("0", "", 0) is None
