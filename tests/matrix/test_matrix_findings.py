"""Findings for upstream trackers: generated from results/, never hand-edited."""

import base64
import json
import re
import shutil
import subprocess
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import pytest
from matrix import envs, findings, findings_check

REPO = Path(__file__).resolve().parents[2]


def _case(
    case_id: str, verdict: str, rules: list[str], size: int = 10
) -> dict[str, Any]:
    return {"id": case_id, "verdict": verdict, "rules": rules, "size": size}


@pytest.mark.parametrize(
    ("verdict", "rules", "outcome", "kind"),
    [
        ("valid", ["SIZE-MATCH"], "crashed", "crash"),
        ("tolerated", ["META-NULL"], "hung", "hang"),
        ("invalid", ["HEADER-LIMIT"], "resource", "resource"),
        ("invalid", ["LAYOUT-BOUNDS"], "accepted", "bounds"),
        ("invalid", ["OFFSETS-ORDER"], "accepted", "bounds"),
        ("invalid", ["SIZE-OVERFLOW"], "accepted", "size"),
        ("invalid", ["LAYOUT-HOLE", "LAYOUT-OVERLAP"], "accepted", "overlap"),
        # accepting a duplicate key or a hole is a finding, not a danger
        ("invalid", ["KEY-UNIQUE"], "accepted", None),
        ("invalid", ["LAYOUT-HOLE"], "accepted", None),
        # accepting a valid or tolerated file is right
        ("valid", ["LAYOUT-OVERLAP"], "accepted", None),
        ("tolerated", ["LAYOUT-BOUNDS"], "accepted", None),
        ("invalid", ["LAYOUT-BOUNDS"], "rejected", None),
    ],
)  # fmt: skip
def test_classify(
    verdict: str, rules: list[str], outcome: str, kind: str | None
) -> None:
    got = findings.classify(_case("c", verdict, rules), outcome)
    assert (got.key if got else None) == kind


def test_findings_smallest_first_most_dangerous_first_excluded_dropped() -> None:
    manifest = {
        "big": _case("big", "invalid", ["LAYOUT-OVERLAP"], 900),
        "small": _case("small", "invalid", ["LAYOUT-OVERLAP"], 12),
        "boom": _case("boom", "invalid", ["JSON-DEPTH"], 5),
        "wrapper": _case("wrapper", "invalid", ["NUM-INTEGER"], 1),
        "fine": _case("fine", "invalid", ["LAYOUT-OVERLAP"], 1),
    }
    result = {
        "cases": {
            "big": {"ok": False, "outcome": "accepted"},
            "small": {"ok": False, "outcome": "accepted"},
            "boom": {"ok": False, "outcome": "crashed"},
            "wrapper": {"ok": False, "outcome": "crashed"},
            "fine": {"ok": True, "outcome": "rejected"},
            "unknown": {"ok": False, "outcome": "crashed"},  # not in the manifest
        }
    }
    got = findings.findings_of(result, manifest, excluded={"wrapper"})
    assert [(f.kind.key, [c["id"] for c in f.cases]) for f in got] == [
        ("crash", ["boom"]),
        ("overlap", ["small", "big"]),
    ]
    # a failure only the run's variant shows is listed, never the smallest file
    later = findings.findings_of(result, manifest, {"wrapper"}, {"small"})
    assert [(f.kind.key, [c["id"] for c in f.cases]) for f in later] == [
        ("crash", ["boom"]),
        ("overlap", ["big", "small"]),
    ]


def test_a_failed_setup_has_no_findings() -> None:
    record = {"implementation": {"name": "x"}, "setup_error": "npm ERR! 404"}
    assert findings.findings_of(record, {}) == []


def test_every_report_names_an_existing_reproducer() -> None:
    hands = tomllib.loads(findings.DATA.read_text("utf-8"))
    assert hands
    for name, hand in hands.items():
        assert (REPO / "matrix" / "repro" / hand["script"]).is_file(), name
        for more in hand.get("more", []):
            assert (REPO / "matrix" / "repro" / more).is_file(), (name, more)
        for kind, own in hand.get("scripts", {}).items():
            assert kind in {k.key for k in findings.KINDS}, (name, kind)
            assert (REPO / "matrix" / "repro" / own).is_file(), (name, own)
        assert set(hand.get("fix", {})) <= {k.key for k in findings.KINDS}, name
        for check in hand.get("checks", []):
            assert set(check) <= {"case", "script", "says"}, (name, check)
            assert check["says"].strip(), (name, check)
            script = check.get("script", hand["script"])
            assert (REPO / "matrix" / "repro" / script).is_file(), (name, script)


def test_every_check_names_a_case_of_the_corpus_and_is_in_its_report() -> None:
    hands = tomllib.loads(findings.DATA.read_text("utf-8"))
    data = json.loads((REPO / "corpus" / "manifest.json").read_text("utf-8"))
    known = {case["id"] for case in data["cases"]}
    checked = {n: h["checks"] for n, h in hands.items() if h.get("checks")}
    assert checked
    for name, checks in checked.items():
        text = (REPO / "results" / "findings" / f"{name}.md").read_text("utf-8")
        for check in checks:
            assert check["case"] in known, (name, check["case"])
            assert f"### `{check['case']}`" in text, (name, check["case"])
            assert f"{check['case']}.safetensors\n```" in text, (name, check["case"])


def test_committed_findings_are_what_the_script_makes(tmp_path: Path) -> None:
    """results/findings/ is generated (python -m matrix findings): a hand edit fails."""
    out = tmp_path / "results"
    shutil.copytree(REPO / "results", out, ignore=shutil.ignore_patterns("findings"))
    findings.write_dir(out)
    committed = REPO / "results" / "findings"
    made = sorted(p.name for p in (out / "findings").iterdir())
    assert made == sorted(p.name for p in committed.iterdir())
    assert "README.md" in made
    assert len(made) > 1
    for name in made:
        assert (out / "findings" / name).read_text("utf-8") == (
            committed / name
        ).read_text("utf-8"), (
            f"results/findings/{name} differs: run python -m matrix findings"
        )


def test_reports_paste_the_corpus_files_byte_for_byte() -> None:
    """Each smallest file a report pastes is the corpus file, hex and base64."""
    reports = sorted((REPO / "results" / "findings").glob("*.md"))
    checked = 0
    for report in reports:
        text = report.read_text("utf-8")
        for case_id in re.findall(r"### Smallest file: `([a-z0-9_]+)`", text):
            path = REPO / "corpus" / "files" / f"{case_id}.safetensors"
            if not path.is_file() or path.stat().st_size > 2048:
                continue
            data = path.read_bytes()
            assert (
                "".join(re.findall(r"^[0-9a-f]{1,64}$", text, re.MULTILINE)).find(
                    data.hex()
                )
                >= 0
            ), (report.name, case_id)
            assert base64.b64encode(data).decode() in text, (report.name, case_id)
            checked += 1
    assert checked >= len(reports) - 1  # the index has no file


@pytest.mark.parametrize(
    ("kind", "detail", "code", "out", "err", "reproduces"),
    [
        ("overlap", "accepted a file", 0, "a: F32 [1]\naccepted\n", "", True),
        ("overlap", "accepted a file", 1, "", "ValueError: overlap", False),
        ("exception", "crashed (AttributeError): x", 1, "", "AttributeError: x", True),
        # fixed upstream: now its own error type, not the crash the report shows
        ("exception", "crashed (AttributeError): x", 1, "", "ValueError: no", False),
        # matched by name exactly, wherever the run's detail names it
        ("exception", "crashed (KeyError): 'F4'", 1, "", "TypeError: 'F4'", False),
        ("exception", "stderr: TypeError: y", 1, "", "TypeError: y", True),
        # a run that named no type cannot be confirmed by any exit status
        ("exception", "crashed (exit status 70): x", 1, "", "TypeError: y", False),
        ("crash", "crashed (PanicException): x", 1, "", "pyo3.PanicException: x", True),
        ("crash", "crashed (signal 11 (SIGSEGV)): x", -11, "", "", True),
        ("hang", "hung: used more than its 11 s of CPU time", -24, "", "", True),
        ("hang", "hung: used more than its 11 s of CPU time", 0, "accepted", "", False),
        ("fail-open", "fail-open: x", 0, "MFV-SKIP-003 low\nfail-open: x\n", "", True),
        ("resource", "resource (MemoryError)", 1, "", "MemoryError", True),
        ("resource", "resource (MemoryError)", 1, "", "ValueError: N too large", False),
    ],
)  # fmt: skip
def test_reproducer_verdict(
    kind: str, detail: str, code: int, out: str, err: str, reproduces: bool
) -> None:
    finding = findings.Finding(
        next(k for k in findings.KINDS if k.key == kind), ({"id": "c"},)
    )
    run = subprocess.CompletedProcess(["x"], code, out, err)
    crash = re.search(r"crashed \(([^)]*\)?)\)", detail)
    got = {"detail": detail, "crash": crash.group(1) if crash else ""}
    assert findings_check._verdict(finding, got, run)[0] is reproduces


@pytest.mark.parametrize(
    ("invalid", "code", "out", "holds"),
    [
        (False, 0, "a: F32 [1]\naccepted\n", True),
        (False, 1, "", False),
        # an invalid file the library accepts is the library's failure, not
        # the wrapper's, whatever the wrapper did with the answer
        (True, 0, "a: F32 [1]\naccepted\n", False),
        (True, 1, "", True),
        (True, -11, "", False),  # a signal is a crash, not a refusal
        (True, 2, "", False),  # and so is a Go panic
    ],
)  # fmt: skip
def test_a_not_the_library_record_holds_only_if_the_library_is_right(
    invalid: bool, code: int, out: str, holds: bool
) -> None:
    err = "panic: runtime error\n" if code == 2 else "ValueError: no"
    run = subprocess.CompletedProcess(["x"], code, out, err)
    assert findings_check._library_right(run, invalid=invalid)[0] is holds


@pytest.mark.parametrize(("code", "holds"), [(0, True), (1, False), (-9, False)])
def test_a_check_holds_only_if_its_reproducer_exits_0(
    code: int,
    holds: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ran: list[list[str]] = []

    def run(command: list[str], *_: object) -> subprocess.CompletedProcess[str]:
        ran.append(command)
        return subprocess.CompletedProcess(command, code, "a: F32 [2]\nsaid\n", "")

    monkeypatch.setattr(findings_check, "_run", run)
    monkeypatch.setattr(envs, "env_dir", lambda _name: tmp_path)
    hand = {"script": "open_npm_safetensors.mjs"}
    checker = findings_check._Checker("npm-safetensors", hand, str(tmp_path))
    checker.statement({"case": "n_layout_size_match_short", "says": "x"})
    checker.statement(
        {"case": "n_layout_size_match_long", "script": "reminis_import_peak.py"}
    )
    assert checker.failures == (0 if holds else 2)
    # the report's reproducer unless the check names its own, on the case
    assert Path(ran[0][-2]).name == "open_npm_safetensors.mjs"
    assert Path(ran[0][-1]).name == "n_layout_size_match_short.safetensors"
    assert Path(ran[1][-2]).name == "reminis_import_peak.py"
    said = capsys.readouterr().out.splitlines()
    mark = "holds: said" if holds else "DOES NOT HOLD: said"
    assert said[0] == f"npm-safetensors check n_layout_size_match_short: {mark}"


def test_every_not_the_library_record_names_a_case_of_the_corpus() -> None:
    hands = tomllib.loads(findings.DATA.read_text("utf-8"))
    data = json.loads((REPO / "corpus" / "manifest.json").read_text("utf-8"))
    known = {case["id"] for case in data["cases"]}
    for name, hand in hands.items():
        for case_id in hand.get("not_the_library", {}):
            assert case_id in known, (name, case_id)


def test_a_torch_reproducer_gets_room_for_torch_but_not_for_the_claim() -> None:
    # importing torch maps ~3.1 GiB: under 1 GiB the import itself failed,
    # so an allocation finding of a torch-layer row could never reproduce
    assert findings_check.memory_limit("stsw") == 1 << 30
    room = findings_check.memory_limit("runai-model-streamer") - int(3.2 * (1 << 30))
    assert 0 < room < 4 << 30  # n_prefix_n_2pow32 asks for 4 GiB more


def test_a_kind_with_its_own_reproducer_uses_it() -> None:
    hand = {"script": "open.py", "scripts": {"resource": "allocates.py"}}
    assert findings.script_of(hand, "resource") == "allocates.py"
    assert findings.script_of(hand, "crash") == "open.py"
    assert findings.script_of({}, "crash") is None


def test_a_report_shows_the_own_reproducer_in_its_finding() -> None:
    hands = tomllib.loads(findings.DATA.read_text("utf-8"))
    # a row added before its first run has no results and no report yet
    run = {p.stem for p in (REPO / "results").glob("*.json")}
    named = {n: h for n, h in hands.items() if "scripts" in h and n in run}
    assert named
    for name in named:
        text = (REPO / "results" / "findings" / f"{name}.md").read_text("utf-8")
        for own in named[name]["scripts"].values():
            assert f"`{own}` shows this one by itself" in text, (name, own)
            assert f"{own} n_" in text, (name, own)


def test_a_reproducer_that_times_out_is_reported_and_the_rest_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_answer(argv: list[str], **_: object) -> None:
        raise subprocess.TimeoutExpired(argv, 120)

    djl = json.loads((REPO / "results" / "djl.json").read_text("utf-8"))
    monkeypatch.setattr("matrix.findings_check.load_results", lambda _folder: [djl])
    monkeypatch.setattr(envs, "env_dir", lambda _name: tmp_path)
    monkeypatch.setattr(subprocess, "run", no_answer)
    failed = findings_check.check(["djl"])
    lines = capsys.readouterr().out.splitlines()
    assert failed == len(lines) > 1
    assert all("DOES NOT REPRODUCE: no answer within 120 s" in line for line in lines)


@pytest.mark.parametrize(
    ("got", "kind"),
    [
        # a native crash: a signal, a panic through pyo3
        ({"outcome": "crashed", "crash": "signal 11 (SIGSEGV)"}, "crash"),
        ({"outcome": "crashed", "crash": "PanicException"}, "crash"),
        # a managed runtime's exception, recorded as the suite's own outcome
        # or, in older results, as a crash named after its type
        ({"outcome": "exception", "crash": "KeyError"}, "exception"),
        ({"outcome": "crashed", "crash": "KeyError"}, "exception"),
        ({"outcome": "crashed", "crash": "error"}, "exception"),  # struct.error
        ({"outcome": "crashed", "crash": "exit status 70"}, "exception"),
        ({"outcome": "fail-open"}, "fail-open"),
    ],
)
def test_a_native_crash_is_told_from_an_exception(
    got: dict[str, Any], kind: str
) -> None:
    case = _case("n_x", "invalid", ["LAYOUT-BOUNDS"])
    found = findings.classify(case, findings.outcome_of({**got, "ok": False}))
    assert found is not None
    assert found.key == kind


def test_a_resource_finding_says_reserved_or_resident() -> None:
    reserved = {"outcome": "resource", "detail": "resource (reserved): ran out"}
    assert findings.memory_of(reserved) == "reserved"
    assert findings.memory_of({"outcome": "resource", "detail": "resource: x"}) == ""
    case = _case("n_x", "invalid", ["HEADER-LIMIT"])
    result = {"cases": {"n_x": {**reserved, "ok": False}}, "probe": {}}
    (finding,) = findings.findings_of(result, {"n_x": case})
    lines = findings._memory_line(finding, result["cases"]["n_x"])
    assert lines == [f"- Memory: {findings._MEMORY_WORDS['reserved']}"]


# a build machine's absolute path, a file URL, or a stack frame of a wrapper
# (V8's "at f (file:...)", the JVM's "at a.B.c(B.java:1)")
_MACHINE: Final = re.compile(
    r"(?<![\w.~-])/(?:tmp|work|home|root|usr|var|opt)/|file:/"
    r"|\bat [\w$.<>]+ ?\([\w$]+\.(?:java|mjs|js):\d+"
)


def test_a_machine_path_or_frame_would_be_found() -> None:
    for text in (
        "file: /tmp/pytest-of-root/pytest-3/n_x.safetensors",
        "at async serve (file:///w/matrix/wrappers/_protocol.mjs:79:13)",
        "at DjlReader.main(DjlReader.java:68)",
    ):
        assert _MACHINE.search(text), text
    assert not _MACHINE.search("read/write 1/2 corpus/files/n_x.safetensors")


def test_no_findings_report_holds_a_machine_path_or_wrapper_frame() -> None:
    reports = sorted((REPO / "results" / "findings").glob("*.md"))
    assert reports
    for report in reports:
        found = _MACHINE.findall(report.read_text("utf-8"))
        assert found == [], (report.name, found)


def test_a_rust_reproducer_is_run_by_its_cargo_project() -> None:
    """A .rs file has no runner of its own: the report runs the project's binary."""
    hands = tomllib.loads(findings.DATA.read_text("utf-8"))
    rust = {n: h for n, h in hands.items() if h["script"].endswith(".rs")}
    assert rust
    for name, hand in rust.items():
        text, language, run = findings._script(hand)
        assert language == "rust"
        assert run == "cargo run --release --quiet --", name
        assert "fn main()" in text
        # its install lines make the project the reproducer is copied into
        assert f"cp ../{hand['script']} src/main.rs" in hand["install"], name
    go = findings._script({"script": "open_go_syft.go"})
    assert go[1:] == ("go", "go run open_go_syft.go")


def test_a_reproducer_the_check_cannot_run_is_skipped_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A program of no known language is never handed to Python and judged."""
    for runs in ("open_x.py", "open_x.mjs", "open_x.java", "open_x.go", "open_x.rs"):
        assert findings_check.can_run(runs)
    assert not findings_check.can_run("open_x.cpp")
    hands = tmp_path / "findings.toml"
    hands.write_text('[aprender]\nscript = "open_aprender.cpp"\n')
    record = {
        "implementation": {"name": "aprender"},
        "cases": {"n_prefix_n_u64_max": {"ok": False, "outcome": "crashed"}},
    }

    def never(argv: list[str], **_: object) -> None:
        raise AssertionError(f"ran {argv}")

    monkeypatch.setattr("matrix.findings_check.DATA", hands)
    monkeypatch.setattr("matrix.findings_check.load_results", lambda _f: [record])
    monkeypatch.setattr(envs, "env_dir", lambda _name: tmp_path)
    monkeypatch.setattr(subprocess, "run", never)
    assert findings_check.check(["aprender"]) == 0
    assert capsys.readouterr().out == (
        "aprender: skipped, open_aprender.cpp is not a reproducer it runs\n"
    )


_GO_PANIC: Final = (
    "panic: runtime error: makeslice: len out of range\n\n"
    "goroutine 1 [running]:\nmain.main()\n\tmain.go:30 +0x1d\nexit status 2\n"
)


@pytest.mark.parametrize(
    ("kind", "code", "err", "native", "reproduces"),
    [
        # a Go panic or runtime error is its first stderr line, not a name
        ("crash", 2, _GO_PANIC, True, True),
        ("crash", 2, "fatal error: concurrent map writes\n\ngoroutine 7", True, True),
        # the same text from a Python program names no exception: not confirmed
        ("crash", 2, _GO_PANIC, False, False),
        # fixed upstream: the Go program refuses the file with its own error
        ("crash", 1, "open: invalid header length\n", True, False),
        ("resource", 2, "fatal error: runtime: out of memory\n\ngoroutine 1", True,
         True),
    ],
)  # fmt: skip
def test_a_go_reproducer_crashes_by_its_panic_line(
    kind: str, code: int, err: str, native: bool, reproduces: bool
) -> None:
    finding = findings.Finding(
        next(k for k in findings.KINDS if k.key == kind), ({"id": "c"},)
    )
    run = subprocess.CompletedProcess(["repro"], code, "", err)
    got = {"detail": "crashed (exit status 2): x", "crash": "exit status 2"}
    verdict = findings_check._verdict(finding, got, run, native=native)
    assert verdict[0] is reproduces
    if reproduces:  # said by the runtime's own first line
        assert verdict[1] == err.splitlines()[0]


Build = tuple[list[str], Path, dict[str, str]]  # argv, cwd, env of one build


def _built_once(
    monkeypatch: pytest.MonkeyPatch,
    row: Path,
    binary_of: Callable[[], Path],
    output: Callable[[Path, dict[str, str]], Path],
) -> tuple[Path, Build]:
    """Ask ``binary_of`` twice for a reproducer of ``row``, its toolchain a stand-in.

    The stand-in records each build and leaves a binary where ``output``
    (of the build's cwd and env) says; the second call must reuse it.
    """
    builds: list[Build] = []

    def build(argv: list[str], *, cwd: Path, env: dict[str, str], **_: object) -> None:
        builds.append((argv, cwd, env))
        made = output(cwd, env)
        made.parent.mkdir(parents=True, exist_ok=True)
        made.write_text("binary")

    monkeypatch.setattr(envs, "env_dir", lambda _name: row)
    monkeypatch.setattr(subprocess, "run", build)
    binary = binary_of()
    assert binary == binary_of()
    (only,) = builds  # built once, then reused
    return binary, only


def test_a_go_reproducer_is_built_in_the_rows_pinned_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """go.mod, go.sum and _gowire from the row's set-up, the script as main.go."""
    row = tmp_path / "env"
    (row / "src").mkdir(parents=True)
    (row / "src" / "go.mod").write_text("module w\n\nrequire x v1.2.3\n")
    (row / "src" / "go.sum").write_text("x v1.2.3 h1:abc=\n")
    (row / "_gowire").mkdir()
    (row / "_gowire" / "wire.go").write_text("package wire\n")
    script = REPO / "matrix" / "repro" / "open_go_syft.go"
    scratch = tmp_path / "scratch"
    binary, (argv, cwd, env) = _built_once(
        monkeypatch,
        row,
        lambda: findings_check.go_binary("go-syft", script, str(scratch)),
        lambda cwd, _env: cwd / "repro",
    )
    assert argv[:2] == ["go", "build"]
    assert binary == cwd / "repro"
    assert (env["GOFLAGS"], env["GOPROXY"]) == ("-mod=readonly", "off")
    assert (cwd / "main.go").read_text() == script.read_text()
    for pinned in ("go.mod", "go.sum"):
        assert (cwd / pinned).read_text() == (row / "src" / pinned).read_text()
    # go.mod's replace of matrix/wire with ../_gowire finds it as in the set-up
    assert (cwd.parent / "_gowire" / "wire.go").read_text() == "package wire\n"
    command, _env = findings_check._command("go-syft", script, Path("f"), str(scratch))
    assert command == [str(binary), "f"]


_RUST_PANIC: Final = (
    "\nthread 'main' (28486) panicked at /root/.cargo/registry/src/index.crates.io-1/"
    "aprender-core-0.72.3/src/serialization/safetensors_reader.rs:33:31:\n"
    "slice index starts at 8 but ends at 7\n"
    "stack backtrace:\n   0: __rustc::rust_begin_unwind\n"
    "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose"
    " backtrace.\n"
)
_RUST_SAID: Final = (
    "panicked at /root/.cargo/registry/src/index.crates.io-1/aprender-core-0.72.3/"
    "src/serialization/safetensors_reader.rs:33:31: slice index starts at 8 but "
    "ends at 7"
)


@pytest.mark.parametrize(
    ("kind", "recorded", "code", "out", "err", "reproduces", "said"),
    [
        # a panic: exit status 101 and the message, never the backtrace hint
        ("crash", "exit status 101", 101, "", _RUST_PANIC, True, _RUST_SAID),
        # fixed: the crate returns its own error, which the reproducer prints
        ("crash", "exit status 101", 1, 'rejected: InvalidOffset("a")\n', "", False,
         'rejected: InvalidOffset("a")'),
        # an abort is its signal; a panic does not stand in for a recorded signal
        ("crash", "killed by signal 6 (SIGABRT)", -6, "",
         "memory allocation of 16 bytes failed\n", True, "killed by SIGABRT"),
        ("crash", "killed by signal 6 (SIGABRT)", 101, "", _RUST_PANIC, False,
         _RUST_SAID),
        ("resource", "", -6, "", "memory allocation of 17179869184 bytes failed\n",
         True, "memory allocation of 17179869184 bytes failed"),
        # an accepted-file finding still reads what the reproducer printed
        ("size", "", 0, "a: F32 [2], 4 bytes\naccepted\n", "", True, "accepted"),
    ],
)  # fmt: skip
def test_a_rust_reproducer_is_judged_by_its_panic(
    kind: str,
    recorded: str,
    code: int,
    out: str,
    err: str,
    reproduces: bool,
    said: str,
) -> None:
    finding = findings.Finding(
        next(k for k in findings.KINDS if k.key == kind),
        ({"id": "c", "verdict": "invalid", "rules": ["SIZE-MATCH"]},),
    )
    run = subprocess.CompletedProcess(["open_aprender"], code, out, err)
    got = {"detail": f"crashed ({recorded}): x", "crash": recorded}
    assert findings_check._verdict(finding, got, run, native=True) == (reproduces, said)


def _rust_row(root: Path) -> Path:
    """A row's environment as matrix/build/rust_crate.sh leaves it."""
    row = root / "env"
    (row / "cli" / "src").mkdir(parents=True)
    (row / "cli" / "Cargo.toml").write_text(
        '[package]\nname = "stcli"\nversion = "0.1.0"\nedition = "2021"\n\n'
        '[dependencies]\nsafetensors = "=0.2.8"\n'
    )
    (row / "cli" / "Cargo.lock").write_text('version = 4\n\n[[package]]\nname = "x"\n')
    (row / "cli" / "src" / "main.rs").write_text("fn main() {}\n")
    (row / "bin").mkdir()
    (row / "bin" / "stcli").write_text("the row's own program")
    return row


@pytest.mark.parametrize("caller_target", [False, True])
def test_a_rust_reproducer_is_built_in_a_copy_of_the_rows_cargo_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caller_target: bool
) -> None:
    """The row's Cargo.toml and Cargo.lock, one more binary, offline, its target."""
    row = _rust_row(tmp_path)
    target = tmp_path / "shared-target" if caller_target else row / "target"
    if caller_target:
        monkeypatch.setenv("CARGO_TARGET_DIR", str(target))
    else:
        monkeypatch.delenv("CARGO_TARGET_DIR", raising=False)
    script = REPO / "matrix" / "repro" / "open_hf_rust_0_2_8.rs"
    scratch = tmp_path / "scratch"
    binary, (argv, cwd, env) = _built_once(
        monkeypatch,
        row,
        lambda: findings_check.rust_binary("hf-rust-0.2.8", script, str(scratch)),
        lambda _cwd, env: Path(env["CARGO_TARGET_DIR"]) / "release" / script.stem,
    )
    assert argv[:3] == ["cargo", "build", "--release"]
    assert {"--locked", "--offline"} <= set(argv)
    assert argv[argv.index("--bin") + 1] == script.stem  # only the reproducer
    assert env["CARGO_TARGET_DIR"] == str(target)
    assert binary.read_text() == "binary"
    assert binary.parent == cwd != row / "cli"
    assert (cwd / "Cargo.lock").read_text() == (row / "cli" / "Cargo.lock").read_text()
    manifest = tomllib.loads((cwd / "Cargo.toml").read_text())
    assert manifest["dependencies"] == {"safetensors": "=0.2.8"}
    assert manifest["bin"] == [{"name": script.stem, "path": "repro.rs"}]
    assert (cwd / "repro.rs").read_text() == script.read_text()
    assert not (cwd / "src").exists()  # the row's program is not built
    assert (row / "bin" / "stcli").read_text() == "the row's own program"
    command, _env = findings_check._command(
        "hf-rust-0.2.8", script, Path("f"), str(scratch)
    )
    assert command == [str(binary), "f"]


def _check_rust_row(
    monkeypatch: pytest.MonkeyPatch,
    row: Path,
    case: dict[str, Any],
    run: Callable[..., object],
) -> int:
    """check() on one crash of hf-rust-0.2.8, with ``run`` for subprocess.run."""
    record = {
        "implementation": {"name": "hf-rust-0.2.8"},
        "cases": {"n_layout_bounds_empty_buffer": case},
    }
    monkeypatch.setattr("matrix.findings_check.load_results", lambda _f: [record])
    monkeypatch.setattr(envs, "env_dir", lambda _name: row)
    monkeypatch.setattr(subprocess, "run", run)
    return findings_check.check(["hf-rust-0.2.8"])


def test_a_rust_finding_is_checked_by_its_reproducer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """check() builds the .rs reproducer and quotes the panic it died of."""
    ran: list[list[str]] = []

    def run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        ran.append(argv)
        if argv[0] == "cargo":
            release = Path(kwargs["env"]["CARGO_TARGET_DIR"]) / "release"
            release.mkdir(parents=True, exist_ok=True)
            (release / "open_hf_rust_0_2_8").write_text("binary")
            return subprocess.CompletedProcess(argv, 0, "", "")
        return subprocess.CompletedProcess(argv, 101, "", _RUST_PANIC)

    crash = {
        "ok": False,
        "outcome": "crashed",
        "crash": "exit status 101",
        "detail": "crashed (exit status 101): exit status 101",
    }
    assert _check_rust_row(monkeypatch, _rust_row(tmp_path), crash, run) == 0
    assert len(ran) == 2  # built, then run on the case's file
    assert ran[0][0] == "cargo"
    assert ran[1][0].endswith("open_hf_rust_0_2_8")
    assert capsys.readouterr().out == (
        "hf-rust-0.2.8 crash n_layout_bounds_empty_buffer: reproduces: panicked at "
        "aprender-core-0.72.3/src/serialization/safetensors_reader.rs:33:31: slice "
        "index starts at 8 but ends at 7\n"
    )


def test_a_rust_reproducer_that_does_not_compile_says_the_first_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    said = (
        "error[E0432]: unresolved import `safetensors::tensor::SafeTensors`\n"
        " --> repro.rs:13:5\n"
        'error: could not compile `stcli` (bin "open_hf_rust_0_2_8") due to 1 '
        "previous error\n"
    )

    def fail(argv: list[str], **_: object) -> None:
        raise subprocess.CalledProcessError(101, argv, "", said)

    crash = {"ok": False, "outcome": "crashed"}
    assert _check_rust_row(monkeypatch, _rust_row(tmp_path), crash, fail) == 1
    assert capsys.readouterr().out == (
        "hf-rust-0.2.8: open_hf_rust_0_2_8.rs does not build: error[E0432]: "
        "unresolved import `safetensors::tensor::SafeTensors`\n"
    )


@pytest.mark.slow  # compiles and links a small Rust program: about 1 s of CPU
@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs rustup's cargo")
def test_a_rust_reproducer_really_builds_offline_and_its_panic_is_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build and the run for real, on a project with no crates to fetch."""
    row = tmp_path / "env"
    (row / "cli").mkdir(parents=True)
    (row / "cli" / "Cargo.toml").write_text(
        '[package]\nname = "stub"\nversion = "0.1.0"\nedition = "2021"\n'
    )
    (row / "cli" / "Cargo.lock").write_text(
        'version = 3\n\n[[package]]\nname = "stub"\nversion = "0.1.0"\n'
    )
    script = tmp_path / "open_stub.rs"
    script.write_text(
        "fn main() {\n"
        "    let path = std::env::args().nth(1).unwrap();\n"
        "    let bytes = std::fs::read(&path).unwrap();\n"
        "    let n = bytes[0] as usize;\n"
        '    println!("{} bytes", bytes[1..n].len());\n'
        '    println!("accepted");\n'
        "}\n"
    )
    monkeypatch.setattr(envs, "env_dir", lambda _name: row)
    monkeypatch.delenv("CARGO_TARGET_DIR", raising=False)
    monkeypatch.setenv("RUST_BACKTRACE", "1")
    crash = findings.Finding(findings.KINDS[0], ({"id": "c"},))
    got = {"detail": "crashed (exit status 101): x", "crash": "exit status 101"}
    said = []
    for content, reproduces in ((b"\x09short", True), (b"\x03abc", False)):
        (tmp_path / "f").write_bytes(content)
        command, env = findings_check._command(
            "stub", script, tmp_path / "f", str(tmp_path)
        )
        run = findings_check._run(command, env, findings_check._limiter(1 << 30, 10))
        assert not isinstance(run, str)
        verdict = findings_check._verdict(crash, got, run, native=True)
        assert verdict[0] is reproduces
        said.append(verdict[1])
    assert said[0].startswith("panicked at repro.rs:5:")
    assert said[0].endswith("range end index 9 out of range for slice of length 6")
    assert said[1] == "accepted"
    assert (row / "target" / "release" / "open_stub").exists()


@pytest.mark.parametrize(
    ("seed", "shown"),
    [("56749189f28bbcb5", True), ("x`; rm -rf /", False), (None, False)],
)
def test_a_report_says_how_to_repeat_the_runs_variants(
    seed: str | None, shown: bool
) -> None:
    result = json.loads((REPO / "results" / "stsw.json").read_text("utf-8"))
    result["run"]["corpus_seed"] = seed
    manifest = json.loads((REPO / "corpus" / "manifest.json").read_text("utf-8"))
    hand = tomllib.loads(findings.DATA.read_text("utf-8"))["stsw"]
    text = findings.report(result, manifest, hand)
    line = f"`STSPEC_CORPUS_SEED={seed} python -m matrix run --only stsw`"
    assert (line in text) is shown
    assert ("variant of each corpus file" in text) is shown
