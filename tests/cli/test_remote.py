"""Remote checks: ``stspec check https://...`` and ``hf://ORG/REPO``, header only.

Against a real HTTP server on loopback (hub_server.py) that serves folders as
Hub repositories: the verdicts equal the local ones, only headers are read,
and every misbehaving server is refused with a message naming what it did.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import io
import json
import os
import resource
import shutil
import signal
import socket
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pytest

from stspec.audit import check as check_module
from stspec.audit import command as command_module
from stspec.audit.cli import main
from stspec.audit.remote import (
    MAX_REDIRECTS,
    MAX_RESPONSE_HEADERS,
    MAX_STAND_IN,
    RemoteError,
    Session,
)

from .hub_server import MODES, HubServer
from .models import INDEX, SHARDS, run, write_model

if TYPE_CHECKING:
    from collections.abc import Iterator

CORPUS = Path(__file__).parents[2] / "corpus" / "files"
FIRST, SECOND = sorted(SHARDS)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_model(tmp_path_factory.mktemp("remote") / "m")


@pytest.fixture(scope="module")
def hub(model: Path) -> Iterator[HubServer]:
    with HubServer({"corpus/cases": CORPUS, "org/model": model}) as server:
        yield server


@pytest.fixture
def endpoint(hub: HubServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    hub.mode = None
    yield hub.url
    hub.mode = None


def _json(*argv: str) -> tuple[int, dict[str, Any]]:
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        status = main(["check", "--json", *argv])
    return status, json.loads(text.getvalue())


def _files(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    files = document["files"]
    assert isinstance(files, list)
    return {str(report["file"]).rsplit("/", 1)[-1]: report for report in files}


# Same verdicts as on disk -----------------------------------------------------


@pytest.mark.usefixtures("endpoint")
def test_every_corpus_case_gets_its_local_verdict_remotely() -> None:
    local_status, local = _json(str(CORPUS))
    remote_status, remote = _json("hf://corpus/cases")
    assert remote_status == local_status
    here, there = _files(local), _files(remote)
    assert sorted(there) == sorted(here)
    assert len(here) == len(list(CORPUS.glob("*.safetensors")))
    for name, report in here.items():
        other = dict(there[name])
        fetched = other.pop("remote")
        assert fetched["tensor_bytes_read"] is False
        assert other == {**report, "file": f"hf://corpus/cases/{name}"}, name


@pytest.mark.usefixtures("endpoint")
def test_a_sharded_model_is_checked_from_its_headers(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "check", "hf://org/model")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"hf://org/model/{FIRST}: valid (2 tensors, 208 bytes)"
    assert lines[1].startswith(
        f"hf://org/model/{FIRST}: header only, tensor bytes not read (184 of 208 "
        "bytes transferred); sha256 "
    )
    assert lines[4] == (
        f"hf://org/model/{INDEX}: model valid (2 shards, 3 tensors, 11 parameters)"
    )
    assert lines[5].startswith("transferred: ")


@pytest.mark.usefixtures("endpoint")
def test_only_the_prefix_and_the_header_are_read(hub: HubServer, model: Path) -> None:
    before = hub.sent
    status, document = _json("hf://org/model")
    assert status == 0
    headers = {
        name: 8 + int.from_bytes((model / name).read_bytes()[:8], "little")
        for name in (FIRST, SECOND)
    }
    index = (model / INDEX).stat().st_size
    for name, size in headers.items():
        assert _files(document)[name]["remote"]["transferred"] == size
    assert hub.sent - before == sum(headers.values()) + index
    assert document["transferred"] > sum(headers.values()) + index  # + the listing


def test_an_index_url_brings_the_shards_it_names(
    endpoint: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"{endpoint}/cdn/org/model/{INDEX}"
    status, out, _ = run(capsys, "check", url)
    assert status == 0
    assert f"{endpoint}/cdn/org/model/{FIRST}: header only" in out


@pytest.mark.usefixtures("endpoint")
def test_a_broken_model_gets_the_local_findings(hub: HubServer, tmp_path: Path) -> None:
    folder = write_model(tmp_path / "broken")
    (folder / SECOND).unlink()
    hub.repos["org/broken"] = folder
    local_status, local = _json(str(folder))
    remote_status, remote = _json("hf://org/broken")
    assert (remote_status, local_status) == (1, 1)
    [here], [there] = local["models"], remote["models"]
    assert [f["rule"] for f in there["findings"]] == ["SHARD-MISSING"]
    assert {**there, "index": here["index"], "findings": []} == {
        **here,
        "findings": [],
    }


def test_a_shard_an_index_url_names_and_nobody_serves_is_missing(
    endpoint: str, hub: HubServer, tmp_path: Path
) -> None:
    folder = write_model(tmp_path / "gone")
    (folder / SECOND).unlink()
    hub.repos["org/gone"] = folder
    status, document = _json(f"{endpoint}/cdn/org/gone/{INDEX}")
    assert status == 1
    [model] = document["models"]
    assert [f["rule"] for f in model["findings"]] == ["SHARD-MISSING"]
    assert model["findings"][0]["file"] == f"{endpoint}/cdn/org/gone/{INDEX}"


@pytest.mark.usefixtures("endpoint")
def test_a_folder_of_the_repository_is_checked_alone(
    hub: HubServer, tmp_path: Path
) -> None:
    write_model(tmp_path / "nested" / "unet")
    write_model(tmp_path / "nested" / "text_encoder")
    hub.repos["org/nested"] = tmp_path / "nested"
    status, document = _json("hf://org/nested/unet")
    assert status == 0
    assert sorted(report["file"] for report in document["files"]) == [
        f"hf://org/nested/unet/{FIRST}",
        f"hf://org/nested/unet/{SECOND}",
    ]
    [model] = document["models"]
    assert model["index"] == f"hf://org/nested/unet/{INDEX}"


@pytest.mark.usefixtures("endpoint")
def test_a_path_in_the_repository_names_one_file(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "check", f"hf://org/model@main/{SECOND}")
    assert status == 0
    assert (
        out.splitlines()[0]
        == f"hf://org/model@main/{SECOND}: valid (1 tensor, 124 bytes)"
    )
    assert FIRST not in out


@pytest.mark.usefixtures("endpoint")
def test_a_sarif_log_names_remote_files_by_their_uri(tmp_path: Path) -> None:
    case = "n_layout_bounds_buffer_short.safetensors"
    log = tmp_path / "check.sarif"
    with contextlib.redirect_stdout(io.StringIO()):
        status = main(["check", f"hf://corpus/cases/{case}", "--sarif", str(log)])
    assert status == 1
    [result] = json.loads(log.read_text())["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == f"hf://corpus/cases/{case}"
    assert result["ruleId"] == "LAYOUT-BOUNDS"


@pytest.mark.usefixtures("endpoint")
@pytest.mark.parametrize("jobs", [1, 3])
def test_jobs_bound_the_files_read_at_once(
    jobs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    reading = {"now": 0, "peak": 0}
    lock = threading.Lock()
    original = Session.get_range

    def counted(self: Session, *args: Any, **kwargs: Any) -> Any:
        with lock:
            reading["now"] += 1
            reading["peak"] = max(reading["peak"], reading["now"])
        try:
            return original(self, *args, **kwargs)
        finally:
            with lock:
                reading["now"] -= 1

    monkeypatch.setattr(Session, "get_range", counted)
    status, _ = _json("-j", str(jobs), "hf://corpus/cases")
    assert status == 1
    assert 1 <= reading["peak"] <= jobs


class _Pools:
    """A stand-in for ProcessPoolExecutor: records each pool, maps in place."""

    made: ClassVar[list[int]] = []

    def __init__(self, max_workers: int, initializer: object = None) -> None:
        assert callable(initializer)
        self.made.append(max_workers)

    def map(self, function: Any, items: Any, chunksize: int) -> Any:
        assert chunksize >= 1
        return map(function, items)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Nothing to stop."""


@pytest.mark.usefixtures("endpoint")
@pytest.mark.parametrize(
    ("options", "pool_bytes", "pools"),
    [
        pytest.param([], 8 << 20, [], id="headers-checked-here"),
        pytest.param([], 1000, [3], id="large-headers-pooled"),
        pytest.param(["-j", "2"], 8 << 20, [2], id="jobs-given"),
    ],
)
def test_remote_headers_are_checked_without_a_pool_unless_large(
    options: list[str],
    pool_bytes: int,
    pools: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 376 corpus files: a folder that many would be checked by a pool, but
    # their stand-ins hold about 600 KB of headers in all.
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _Pools)
    monkeypatch.setattr(_Pools, "made", [])
    monkeypatch.setattr(check_module, "default_jobs", lambda: 3)
    monkeypatch.setattr(command_module, "_REMOTE_POOL_BYTES", pool_bytes)
    status, document = _json(*options, "hf://corpus/cases")
    assert status == 1
    assert len(document["files"]) == len(list(CORPUS.glob("*.safetensors")))
    assert _Pools.made == pools


def test_a_token_goes_to_the_hub_only(
    hub: HubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_TOKEN", "hf_test")
    hub.authorized.clear()
    status, _ = _json("hf://org/model")
    assert status == 0
    hub_host = hub.url.removeprefix("http://")
    # The listing, the index and the resolve URLs: all at the Hub's address;
    # none of the CDN's (the same server under the name localhost).
    assert hub.authorized
    assert set(hub.authorized) == {hub_host}


# Hostile servers ---------------------------------------------------------------

_REFUSALS = {
    "ignore-range": "answered 200 (the whole file) to a Range request",
    "extra-bytes": "declared Content-Length '108' for 8 bytes of Content-Range",
    "extra-unsized": "sent more than the 8 bytes asked for",
    "wrong-range": "expected 'bytes 0-7/208'",
    "no-content-range": "answered 206 without a Content-Range header",
    "gzip": "compressed its answer (Content-Encoding 'gzip')",
    "stall": "sent nothing for 0.5 s (--wait)",
    "trickle": "took longer than 1 s, its limit (--deadline)",
    "redirect-loop": "redirected in a loop",
    "redirect-chain": f"redirected more than {MAX_REDIRECTS} times",
    "huge-length": f"more than the {MAX_STAND_IN:,} (4 TiB) this checker accepts",
    "short-body": f"{INDEX}: the server closed the connection after 120 of the 240 "
    "bytes it announced",
    "long-header": "header line longer than 64 KiB",
    "many-headers": "got more than 100 headers",
    "huge-headers": "the server sent more than 256 KiB of response headers (status "
    "line and header lines in all)",
    "not-found": "answered 404",
    "bad-name": "lists a file name that is not a plain path: '../escape.safetensors'",
    "api-huge": "announced 1099511627776 bytes, more than the 67,108,864",
    "size-mismatch": "the Hub lists it as 209 bytes, the file server says 208",
    "ghost": "hf://org/model/ghost.safetensors: the server answered 404",
    "api-not-json": "the Hub's API answer is not JSON",
    "api-no-siblings": "the Hub's API answer has no list of files (siblings)",
    "bad-lfs": "an LFS sha256 that is not 64 hex digits: 'not-a-digest'",
    "file-and-folder": "': File exists",
    "false-416": "answered 416 (range not satisfiable) to bytes 0-7 with "
    "Content-Range 'bytes */",
    "range-star": "expected 'bytes 0-LAST/LENGTH'",
    "no-location": "the server answered 302 Found without a Location",
    "redirect-ftp": "not an http(s) URL: ftp://127.0.0.1",
    "no-answer": "the server closed the connection without answering",
    "length-changes": "the file's length changed between two requests",
    "mute": "the server sent nothing for 0.5 s (--wait)",
    "bad-chunk": "the connection failed while reading: IncompleteRead(0 bytes read)",
}


# The modes that are about time get the short limits their messages name;
# the others generous ones, so a loaded machine cannot turn them into a
# timeout: (--wait, --deadline).
_TIMED = {"stall": ("0.5", "120"), "mute": ("0.5", "120"), "trickle": ("30", "1")}
_UNTIMED = ("30", "120")


def test_every_hostile_mode_has_a_test() -> None:
    assert sorted(_REFUSALS) == sorted(MODES)


@pytest.mark.parametrize("mode", sorted(_REFUSALS))
@pytest.mark.usefixtures("endpoint")
def test_a_hostile_server_is_refused_without_a_verdict(
    mode: str, hub: HubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    hub.mode = mode
    wait, deadline = _TIMED.get(mode, _UNTIMED)
    status, out, err = run(
        capsys, "check", "hf://org/model", "--wait", wait, "--deadline", deadline
    )
    assert status == 2
    assert err.startswith("stspec: cannot read hf://org/model: ")
    assert _REFUSALS[mode] in err
    assert "valid" not in out  # no verdict on partial data
    assert out.startswith("transferred: ")


@pytest.mark.usefixtures("endpoint")
def test_a_run_stops_at_its_transfer_limit(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "check", "hf://org/model", "--max-transfer", "300")
    assert status == 2
    assert "read more than 300 bytes, its limit (--max-transfer)" in err


def test_inspect_points_remote_files_to_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "inspect", "hf://org/model/x.safetensors")
    assert (status, out) == (2, "")
    assert "inspect reads local files; `stspec check` reads remote ones" in err


def test_plain_http_is_for_loopback_only(capsys: pytest.CaptureFixture[str]) -> None:
    # 192.0.2.0/24 is TEST-NET-1: refused before any connection is tried.
    status, _, err = run(capsys, "check", "http://192.0.2.1/model.safetensors")
    assert status == 2
    assert err.startswith(
        "stspec: cannot read http://192.0.2.1/model.safetensors: plain http is "
        "refused for 192.0.2.1"
    )


@pytest.mark.parametrize(
    ("argument", "why"),
    [
        ("hf://org", "expected hf://ORG/REPO[@REVISION][/PATH]"),
        ("hf://org/..", "not a Hub repository name"),
        ("hf://org/model/a/../b", "not a path in a repository"),
        ("hf://org/model/a\\b", "not a path in a repository"),
        ("hf://org/model@%00", "not a revision: '%00'"),
        ("hf://org/missing", "answered 404"),
        ("hf://org/model/nothing-here", "the repository has no file 'nothing-here'"),
    ],
)
@pytest.mark.usefixtures("endpoint")
def test_a_bad_hub_argument_is_refused(
    argument: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "check", argument)
    assert status == 2
    assert why in err


# TLS ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed: no certificate to test TLS with")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@contextlib.contextmanager
def _tls_redirect(cert: Path, key: Path, location: str) -> Iterator[str]:
    class Redirect(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            """Quiet."""

        def do_GET(self) -> None:
            self.send_response(302)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_tls_certificates_are_verified(
    tls: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with _tls_redirect(*tls, "/x") as url:
        status, _, err = run(capsys, "check", f"{url}/model.safetensors")
    assert status == 2
    assert "TLS failed: CERTIFICATE_VERIFY_FAILED" in err


def test_every_https_argument_is_verified(
    tls: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # One TLS context serves the run: the second connection is verified too.
    with _tls_redirect(*tls, "/x") as url:
        status, _, err = run(capsys, "check", f"{url}/a.safetensors", f"{url}/b")
    assert status == 2
    lines = err.splitlines()
    assert [line.split(": ", 2)[1] for line in lines] == [
        f"cannot read {url}/a.safetensors",
        f"cannot read {url}/b",
    ]
    assert all("TLS failed: CERTIFICATE_VERIFY_FAILED" in line for line in lines)


def test_a_redirect_never_drops_tls(
    tls: tuple[Path, Path],
    endpoint: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tls[0]))
    plain = f"{endpoint}/cdn/org/model/{FIRST}"
    with _tls_redirect(*tls, plain) as url:
        status, _, err = run(capsys, "check", f"{url}/model.safetensors")
    assert status == 2
    assert f"redirected from https to {plain}: refused" in err


# Integrity ------------------------------------------------------------------


def test_a_manifest_is_checked_as_integrity(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sums = {
        name: hashlib.sha256((model / name).read_bytes()).hexdigest() for name in SHARDS
    }
    manifest = tmp_path / "SHA256SUMS"
    folder = tmp_path / "copy"
    shutil.copytree(model, folder)
    manifest = folder / "SHA256SUMS"
    manifest.write_text("".join(f"{h}  {n}\n" for n, h in sums.items()))
    status, out, _ = run(
        capsys, "check", "-q", str(folder / INDEX), "--manifest", str(manifest)
    )
    assert status == 0
    assert f"{folder / FIRST}: integrity: sha256 matches" in out
    (folder / FIRST).write_bytes((folder / FIRST).read_bytes()[:-1] + b"\1")
    status, out, _ = run(
        capsys, "check", "-q", str(folder / INDEX), "--manifest", str(manifest)
    )
    assert status == 1  # the file is valid, and not the file published
    assert (
        f"{folder / FIRST}: integrity: sha256 mismatch: expected {sums[FIRST]}, got "
        in out
    )


def test_hash_prints_each_local_files_digest(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "check", "-q", "--hash", str(model / FIRST))
    assert status == 0
    digest = hashlib.sha256((model / FIRST).read_bytes()).hexdigest()
    assert out.splitlines() == [f"{model / FIRST}: sha256 {digest}"]


def test_a_bad_pin_is_a_usage_error(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(
        capsys, "check", str(model), "--sha256", f"{model / FIRST}=abc"
    )
    assert (status, out) == (2, "")
    assert "expected FILE=SHA256 with 64 hex digits" in err


@pytest.mark.usefixtures("endpoint")
def test_a_remote_pin_is_compared_with_the_hubs_record(
    hub: HubServer, model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    digest = hub.digest(model / FIRST)
    pin = f"hf://org/model/{FIRST}={digest}"
    status, out, _ = run(capsys, "check", "-q", "hf://org/model", "--sha256", pin)
    assert status == 0
    assert "integrity: sha256 matches (the Hub's LFS record, not computed here)" in out
    wrong = f"hf://org/model/{FIRST}={'0' * 64}"
    status, out, _ = run(capsys, "check", "-q", "hf://org/model", "--sha256", wrong)
    assert status == 1
    assert f"mismatch: expected {'0' * 64}, got {digest}" in out


@pytest.mark.usefixtures("endpoint")
def test_a_hash_of_a_remote_file_is_the_hubs_record(
    hub: HubServer, model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "check", "-q", "--hash", f"hf://org/model/{FIRST}")
    assert status == 0
    assert out.splitlines()[0] == (
        f"hf://org/model/{FIRST}: sha256 {hub.digest(model / FIRST)} (the Hub's LFS "
        "record, not computed here)"
    )


def test_a_url_has_no_recorded_digest_to_show(
    endpoint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"{endpoint}/cdn/org/model/{FIRST}"
    status, out, _ = run(capsys, "check", "-q", "--hash", url)
    assert status == 2  # valid, and its integrity not checked
    assert f"{url}: integrity not checked: the server records no SHA-256" in out


@pytest.mark.usefixtures("endpoint")
def test_a_remote_pin_on_a_file_not_checked_is_not_checked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pin = f"hf://org/model/{SECOND}={'0' * 64}"
    status, out, _ = run(
        capsys, "check", "-q", f"hf://org/model/{FIRST}", "--sha256", pin
    )
    assert status == 2
    assert (
        f"hf://org/model/{SECOND}: integrity not checked: not among the remote files "
        "checked"
    ) in out


# Repository contents ------------------------------------------------------------


@pytest.mark.usefixtures("endpoint")
def test_an_index_named_in_the_repository_brings_its_shards(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "check", f"hf://org/model/{INDEX}")
    assert status == 0
    assert f"hf://org/model/{FIRST}: valid (2 tensors, 208 bytes)" in out
    assert f"hf://org/model/{INDEX}: model valid (2 shards" in out


@pytest.mark.usefixtures("endpoint")
def test_a_repository_without_weights_is_refused(
    hub: HubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").write_text("{}")
    hub.repos["org/config"] = tmp_path
    status, _, err = run(capsys, "check", "hf://org/config")
    assert status == 2
    assert err == (
        "stspec: cannot read hf://org/config: no .safetensors or index files in "
        "hf://org/config\n"
    )


@pytest.mark.usefixtures("endpoint")
def test_other_repository_files_are_named_never_read(
    hub: HubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "extra")
    (folder / "pytorch_model.bin").write_bytes(b"PK\3\4" + bytes(60))  # a zip
    hub.repos["org/extra"] = folder
    status, out, _ = run(capsys, "check", "hf://org/extra")
    assert status == 0
    assert "hf://org/extra: 1 other file not checked (pytorch_model.bin)" in out
    # Only names are known of a repository's other files: none is sniffed.
    assert "like model weights" not in out
    status, document = _json("hf://org/extra")
    assert document["skipped"] == {"hf://org/extra": ["pytorch_model.bin"]}
    assert document["unchecked_weights"] == {}


def test_a_url_without_a_file_name_is_checked_under_its_url(
    endpoint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"{endpoint}/cdn/org/model/{FIRST}/"  # the server ignores the slash
    status, out, _ = run(capsys, "check", url)
    assert status == 0
    assert out.startswith(f"{url}: valid (2 tensors, 208 bytes)\n")


# Connections ---------------------------------------------------------------------


def test_a_closed_port_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # Nobody listens on the port any more: the connection is refused at once.
    status, _, err = run(capsys, "check", f"http://127.0.0.1:{port}/m.safetensors")
    assert status == 2
    assert "cannot connect to 127.0.0.1: Connection refused" in err


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:99999/m.safetensors", "the URL has a bad port"),
        (
            "http://example.invalid/m.safetensors",
            "plain http is refused for example.invalid",
        ),
    ],
)
def test_a_url_is_refused_before_connecting(
    url: str, why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "check", url)
    assert status == 2
    assert why in err


@contextlib.contextmanager
def _one_answer(answer: bytes) -> Iterator[str]:
    """Answer one request on 127.0.0.1 with ``answer``, byte for byte."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            asked = b""
            while b"\r\n\r\n" not in asked:
                asked += connection.recv(4096)
            connection.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/m.safetensors"
    finally:
        thread.join(5)
        listener.close()


def _headers_of(size: int) -> bytes:
    """A 206 for bytes 0-7 whose status line and header lines take ``size`` bytes."""
    head = b"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-7/16\r\n"
    head += b"Content-Length: 8\r\n"
    pad = size - len(head) - 2  # the blank line that ends them
    while pad:
        line = min(pad, 60_000)  # each line well within http.client's 64 KiB
        head += b"X-Pad: " + b"x" * (line - 9) + b"\r\n"
        pad -= line
    head += b"\r\n"
    assert len(head) == size
    return head


def test_response_headers_are_capped_in_all() -> None:
    # Every line within http.client's own limits; the total decides.
    at_cap = _headers_of(MAX_RESPONSE_HEADERS) + b"8 bytes!"
    with _one_answer(at_cap) as url, Session() as session:
        assert session.get_range(url, 0, 7).body == b"8 bytes!"
    over = _headers_of(MAX_RESPONSE_HEADERS + 1) + b"8 bytes!"
    with (
        _one_answer(over) as url,
        Session() as session,
        pytest.raises(RemoteError) as refused,
    ):
        session.get_range(url, 0, 7)
    assert refused.value.strerror == (
        "the server sent more than 256 KiB of response headers (status line and "
        "header lines in all)"
    )


def test_without_a_sink_the_bytes_are_returned(endpoint: str, model: Path) -> None:
    with Session() as session:
        answer = session.get_range(f"{endpoint}/cdn/org/model/{FIRST}", 0, 7)
    assert answer.body == (model / FIRST).read_bytes()[:8]
    assert (answer.size, answer.length) == (8, 208)


def test_a_sink_that_cannot_be_written_is_named(endpoint: str, tmp_path: Path) -> None:
    (tmp_path / "read-only").touch()
    fd = os.open(tmp_path / "read-only", os.O_RDONLY)
    try:
        with Session() as session, pytest.raises(RemoteError) as refused:
            session.get_range(f"{endpoint}/cdn/org/model/{FIRST}", 0, 7, sink=fd)
    finally:
        os.close(fd)
    assert refused.value.strerror == (
        "cannot write what the server sent: Bad file descriptor"
    )


def test_an_unsized_answer_stops_at_the_limit(endpoint: str, hub: HubServer) -> None:
    hub.mode = "extra-unsized"  # no Content-Length: the body ends when it closes
    with Session() as session, pytest.raises(RemoteError) as refused:
        session.get_json(f"{endpoint}/cdn/org/model/{INDEX}", 50)
    assert refused.value.strerror == (
        "the server sent more than 50 bytes, the most this checker reads of it"
    )


@contextlib.contextmanager
def _file_size_limit(size: int) -> Iterator[None]:
    """Let no file this process writes grow past ``size`` bytes (EFBIG)."""
    ignored = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else it ends the process
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, ignored)


@pytest.mark.usefixtures("endpoint")
def test_a_stand_in_that_cannot_be_written_is_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The 184 bytes of prefix and header fit; the stand-in's 208 do not.
    with _file_size_limit(200):
        status = main(["check", f"hf://org/model/{FIRST}"])
    _, err = capsys.readouterr()
    assert status == 2
    assert err == (
        f"stspec: cannot read hf://org/model/{FIRST}: cannot write its stand-in: "
        "File too large\n"
    )


@pytest.mark.usefixtures("endpoint")
def test_an_index_that_cannot_be_copied_is_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with _file_size_limit(10):
        status = main(["check", f"hf://org/model/{INDEX}"])
    _, err = capsys.readouterr()
    assert status == 2
    assert err.startswith(f"stspec: cannot read hf://org/model/{INDEX}: cannot write ")
    assert err.endswith(f"{INDEX}: File too large\n")


def test_a_body_cut_short_is_refused(
    endpoint: str, hub: HubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    hub.mode = "short-body"
    url = f"{endpoint}/cdn/org/model/{FIRST}"
    status, _, err = run(capsys, "check", url)
    assert status == 2
    assert err == (
        f"stspec: cannot read {url}: the server closed the connection after 4 of "
        "the 8 bytes it announced\n"
    )


def test_the_deadline_ends_a_request_left_unanswered(
    endpoint: str, hub: HubServer
) -> None:
    cdn = f"{hub.cdn}/cdn/org/model/{FIRST}"
    with Session(wait=30, deadline=3) as session:
        # An answer with Connection: close leaves a closed connection behind,
        # which the deadline's timer passes over.
        hub.mode = "extra-unsized"
        session.get_json(f"{endpoint}/cdn/org/model/{INDEX}", 1 << 20)
        hub.mode = None
        session.get_range(cdn, 0, 7)  # kept alive: its timeout runs from each read
        time.sleep(2)  # before the deadline, by 3 s
        hub.mode = "mute"
        with pytest.raises(RemoteError) as refused:
            session.get_range(cdn, 0, 7)
    assert refused.value.strerror == (
        "the run took longer than 3 s, its limit (--deadline)"
    )


def test_no_request_starts_past_the_deadline(endpoint: str) -> None:
    with Session(deadline=0.01) as session:
        time.sleep(0.05)
        with pytest.raises(RemoteError) as refused:
            session.get_range(f"{endpoint}/cdn/org/model/{FIRST}", 0, 7)
    assert refused.value.strerror == (
        "the run took longer than 0.01 s, its limit (--deadline)"
    )


def test_the_capped_header_reader_closes_what_it_reads() -> None:
    from stspec.audit import remote  # noqa: PLC0415 - its private reader

    raw = io.BytesIO(b"HTTP/1.1 200 OK\r\n")
    capped = remote._CappedLines(io.BufferedReader(raw), 64)
    assert capped.readline() == b"HTTP/1.1 200 OK\r\n"
    capped.close()
    assert raw.closed
