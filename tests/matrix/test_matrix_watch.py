"""``python -m matrix watch`` against a fake registry on loopback (no network)."""

from __future__ import annotations

import io
import json
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, ClassVar

import pytest
from matrix import registries, watch
from matrix.__main__ import main
from matrix.impls import IMPLS, by_name
from matrix.versions import Scheme, parse

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

# path -> (status, body, extra headers); filled per test
Answers = dict[str, tuple[int, bytes, dict[str, str]]]


class _Handler(BaseHTTPRequestHandler):
    answers: ClassVar[Answers] = {}
    asked: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.asked.append(self.path)
        status, body, headers = self.answers.get(self.path, (404, b"not found", {}))
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def registry() -> Iterator[tuple[str, Answers, list[str]]]:
    answers: Answers = {}
    asked: list[str] = []
    handler = type("Handler", (_Handler,), {"answers": answers, "asked": asked})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", answers, asked
    finally:
        server.shutdown()
        server.server_close()


def _pypi(*versions: str, yanked: tuple[str, ...] = ()) -> bytes:
    releases = {
        v: [{"filename": f"x-{v}.whl", "yanked": v in yanked}] for v in versions
    }
    return json.dumps({"info": {"version": versions[0]}, "releases": releases}).encode()


def _bases(base: str) -> dict[str, str]:
    return {name: f"{base}/{name}" for name in registries.DEFAULT_BASES}


def test_a_row_behind_its_registry_is_flagged_and_a_pre_release_shown_apart(
    registry: tuple[str, Answers, list[str]],
) -> None:
    base, answers, _ = registry
    answers["/pypi/safetensors/json"] = (
        200,
        _pypi("0.8.0", "0.9.1", "0.4.5", "0.9.0rc1", "1.0.0rc1"),
        {},
    )
    answers["/pypi/mlx/json"] = (200, _pypi("0.32.4", "0.33.0", yanked=("0.33.0",)), {})
    statuses = watch.check([by_name("hf-0.8.0"), by_name("mlx")], _bases(base))
    hf, mlx = statuses
    assert (hf.state, hf.newest, hf.pre) == ("behind", "0.9.1", "1.0.0rc1")
    # a yanked release is not one pip installs: mlx is current
    assert (mlx.state, mlx.newest, mlx.pre) == ("current", "0.32.4", "")
    out = io.StringIO()
    watch.report(statuses, out)
    assert "1 of 2 rows behind" in out.getvalue()
    assert (
        "| hf-0.8.0 | pypi | safetensors | 0.8.0 | 0.9.1 | 1.0.0rc1 | behind |"
        in out.getvalue()
    )


def test_a_pre_release_alone_does_not_put_a_row_behind(
    registry: tuple[str, Answers, list[str]],
) -> None:
    base, answers, _ = registry
    answers["/pypi/safetensors/json"] = (200, _pypi("0.8.0", "0.9.0rc1", "0.7.0"), {})
    [hf] = watch.check([by_name("hf-0.8.0")], _bases(base))
    assert (hf.state, hf.newest, hf.pre) == ("current", "0.8.0", "0.9.0rc1")


def test_older_pins_of_one_package_are_an_older_line_and_asked_once(
    registry: tuple[str, Answers, list[str]],
) -> None:
    base, answers, asked = registry
    index = "\n".join(
        json.dumps({"name": "safetensors", "vers": v, "yanked": v == "0.9.0"})
        for v in ("0.3.3", "0.8.0", "0.8.1", "0.9.0", "0.10.0-alpha.1")
    )
    answers["/crates/sa/fe/safetensors"] = (200, index.encode(), {})
    rows = [by_name("hf-rust-0.8.0"), by_name("hf-rust-0.3.3")]
    new, old = watch.check(rows, _bases(base))
    assert (new.state, new.newest, new.pre) == ("behind", "0.8.1", "0.10.0-alpha.1")
    assert old.state == "older-line"
    assert "0.8.0" in old.detail
    assert asked == ["/crates/sa/fe/safetensors"]


def test_npm_scoped_names_go_modules_and_maven_artifacts_are_asked_their_way(
    registry: tuple[str, Answers, list[str]],
) -> None:
    base, answers, _ = registry
    answers["/npm/@huggingface%2Fhub"] = (
        200,
        json.dumps(
            {"versions": {"2.17.5": {}, "2.18.0": {}, "3.0.0-beta.2": {}}}
        ).encode(),
        {},
    )
    # no tags: the proxy's @latest names the newest pseudo-version
    module = "/go/github.com/nlpodyssey/safetensors/@v"
    answers[f"{module}/list"] = (200, b"", {})
    answers[f"{module}/@latest".replace("/@v/@latest", "/@latest")] = (
        200, b'{"Version":"v0.0.0-20260101000000-0123456789ab"}', {},
    )  # fmt: skip
    answers["/maven/ai/djl/api/maven-metadata.xml"] = (
        200,
        (
            b"<metadata><versioning><versions><version>0.37.0</version>"
            b"<version>0.38.0</version><version>0.39.0</version></versions>"
            b"</versioning></metadata>"
        ),
        {},
    )
    rows = [by_name("hf-hub-js"), by_name("go-nlpodyssey"), by_name("djl")]
    js, go, djl = watch.check(rows, _bases(base))
    assert (js.state, js.newest, js.pre) == ("behind", "2.18.0", "3.0.0-beta.2")
    # a pseudo-version names a commit: a newer one is a newer release
    assert (go.state, go.newest) == ("behind", "v0.0.0-20260101000000-0123456789ab")
    assert go.pre == ""
    assert (djl.state, djl.newest) == ("behind", "0.39.0")


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        pytest.param((404, b"", {}), "404", id="not-served"),
        pytest.param((500, b"", {}), "HTTP 500", id="server-error"),
        pytest.param((200, b"<html>", {}), "not JSON", id="not-json"),
        pytest.param(
            (200, b'{"releases": []}', {}), "no releases object", id="wrong-shape"
        ),
        pytest.param(
            (200, b'{"releases": {"latest": [{}], "x.y": [{}]}}', {}),
            "no version",
            id="no-version-strings",
        ),
        pytest.param(
            (302, b"", {"Location": "ftp://127.0.0.1/x"}),
            "not http(s)",
            id="redirect-to-ftp",
        ),
    ],
)
def test_an_untrustworthy_answer_is_unanswered_never_a_version(
    registry: tuple[str, Answers, list[str]],
    answer: tuple[int, bytes, dict[str, str]],
    why: str,
) -> None:
    base, answers, _ = registry
    answers["/pypi/safetensors/json"] = answer
    [hf] = watch.check([by_name("hf-0.8.0")], _bases(base))
    assert hf.state == "unanswered"
    assert why in hf.detail


def test_an_answer_over_the_size_cap_is_refused(
    registry: tuple[str, Answers, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, answers, _ = registry
    monkeypatch.setattr(registries, "MAX_ANSWER", 100)
    answers["/pypi/safetensors/json"] = (
        200,
        _pypi(*(f"0.{i}.0" for i in range(20))),
        {},
    )
    [hf] = watch.check([by_name("hf-0.8.0")], _bases(base))
    assert (hf.state, "more than 100 bytes" in hf.detail) == ("unanswered", True)


def test_maven_metadata_with_a_document_type_is_refused(
    registry: tuple[str, Answers, list[str]],
) -> None:
    base, answers, _ = registry
    answers["/maven/ai/djl/api/maven-metadata.xml"] = (
        200,
        (
            b'<!DOCTYPE m [<!ENTITY a "aaaa">]><metadata><versioning><versions>'
            b"<version>&a;</version></versions></versioning></metadata>"
        ),
        {},
    )
    [djl] = watch.check([by_name("djl")], _bases(base))
    assert djl.state == "unanswered"
    assert "document type" in djl.detail


def test_every_row_has_a_registry_pin_but_the_reference() -> None:
    pins = {impl.name: watch.pin_of(impl) for impl in IMPLS}
    assert [name for name, pin in pins.items() if pin is None] == ["reference"]
    for name, pin in pins.items():
        if pin is not None:
            scheme = registries.SCHEMES[pin.registry]
            assert parse(pin.version, scheme) is not None, (name, pin)
    assert pins["torch-dcp"] == watch.Pin("pypi", "torch", "2.13.0")
    assert pins["mlx"] == watch.Pin("pypi", "mlx", "0.32.4")
    assert pins["paddlenlp"] == watch.Pin("pypi", "paddlenlp", "2.8.1")
    assert pins["jlama"] == watch.Pin("maven", "com.github.tjake:jlama-core", "0.8.4")
    assert pins["aprender"] == watch.Pin("crates", "aprender-core", "0.72.3")


def test_a_row_with_no_registry_is_reported_without_asking(
    registry: tuple[str, Answers, list[str]],
) -> None:
    base, _, asked = registry
    fake = replace(by_name("reference"), name="ours")
    [status] = watch.check([fake], _bases(base))
    assert status.state == "no-registry"
    assert asked == []


def test_the_command_exits_1_when_a_row_is_behind_and_writes_json(
    registry: tuple[str, Answers, list[str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base, answers, _ = registry
    answers["/pypi/safetensors/json"] = (200, _pypi("0.8.0", "0.8.1"), {})
    out = tmp_path / "watch.json"
    argv = [
        "watch",
        "--only",
        "hf-0.8.0",
        "--registry",
        f"pypi={base}/pypi",
        "--json",
        str(out),
    ]
    assert main(argv) == 1
    assert "| hf-0.8.0 |" in capsys.readouterr().out
    [entry] = json.loads(out.read_text())
    assert (entry["state"], entry["newest"], entry["pin"]) == (
        "behind",
        "0.8.1",
        "0.8.0",
    )
    answers["/pypi/safetensors/json"] = (200, _pypi("0.8.0"), {})
    assert main(["watch", "--only", "hf-0.8.0", "--registry", f"pypi={base}/pypi"]) == 0


def test_a_registry_option_naming_no_registry_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["watch", "--registry", "cran=http://127.0.0.1:1"])
    assert stop.value.code == 2
    assert "NAME one of pypi, npm, crates, go, maven" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("older", "newer", "scheme"),
    [
        ("0.9.0rc1", "0.9.0", "pep440"),
        ("0.8.0", "0.9.0rc1", "pep440"),
        ("1.0.0-alpha.2", "1.0.0-alpha.10", "semver"),
        ("1.0.0-alpha.beta", "1.0.0", "semver"),
        ("0.9.9", "0.10.0", "semver"),
        (
            "v0.0.0-20250209183917-bfb01cc25f7c",
            "v0.0.0-20260101000000-0123456789ab",
            "go",
        ),
        ("v0.0.0-20250209183917-bfb01cc25f7c", "v0.1.0", "go"),
    ],
)
def test_versions_sort_as_their_registry_does(
    older: str, newer: str, scheme: Scheme
) -> None:
    a, b = parse(older, scheme), parse(newer, scheme)
    assert a is not None
    assert b is not None
    assert a.key < b.key


@pytest.mark.parametrize(
    ("text", "scheme"),
    [("latest", "pep440"), ("1.0", "semver"), ("0.1.0", "go"), ("1" * 200, "pep440")],
)
def test_strings_that_are_not_versions_are_not_read_as_ones(
    text: str, scheme: Scheme
) -> None:
    assert parse(text, scheme) is None
