"""Remote checks: ``stspec check https://...`` and ``hf://ORG/REPO``, header only.

Against a real HTTP server on loopback (hub_server.py) that serves folders as
Hub repositories: the verdicts equal the local ones, only headers are read,
and every misbehaving server is refused with a message naming what it did.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from stspec.audit.cli import main
from stspec.audit.remote import MAX_REDIRECTS, MAX_STAND_IN, Session

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
    "short-body": "closed the connection after 4 of the 8 bytes it announced",
    "long-header": "header line longer than 64 KiB",
    "many-headers": "got more than 100 headers",
    "not-found": "answered 404",
    "bad-name": "lists a file name that is not a plain path: '../escape.safetensors'",
    "api-huge": "announced 1099511627776 bytes, more than the 67,108,864",
    "size-mismatch": "the Hub lists it as 209 bytes, the file server says 208",
    "ghost": "hf://org/model/ghost.safetensors: the server answered 404",
}


def test_every_hostile_mode_has_a_test() -> None:
    assert sorted(_REFUSALS) == sorted(MODES)


@pytest.mark.parametrize("mode", sorted(_REFUSALS))
@pytest.mark.usefixtures("endpoint")
def test_a_hostile_server_is_refused_without_a_verdict(
    mode: str, hub: HubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    hub.mode = mode
    status, out, err = run(
        capsys, "check", "hf://org/model", "--wait", "0.5", "--deadline", "1"
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
