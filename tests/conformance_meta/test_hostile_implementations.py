"""Implementations that attack the suite: each attack fails, and is seen.

Every implementation here is built by its test: one that damages the file it
is given, one that looks for the verdict instead of judging the bytes, ...
The runs use a copy of the corpus, so an attack that succeeds never damages
the checkout's.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _suite_runner import BROKEN, ROOT, Run, run_suite

from stspec_conformance._corpus import load_corpus

# Answers with the reference's content, so every case passes unless the
# suite catches what the reader does besides.
STRICT_ANSWER = """
def answer(data):
    with stspec.read(data) as st:
        tensors = {n: (i.dtype, list(i.shape), bytes(st.tensor_bytes(n)))
                   for n, i in st.tensors.items()}
        return tensors, st.metadata
"""


def _corpus_copy(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus", corpus, ignore=shutil.ignore_patterns("*.py"))
    return corpus


def _adapter(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.py"
    source = "import json, os, sys\nimport stspec\n" + STRICT_ANSWER
    path.write_text(source + textwrap.dedent(body), encoding="utf-8")
    return path


def _run(impl: str | Path, tmp_path: Path, corpus: Path, *args: str) -> Run:
    return run_suite(
        str(impl), f"--corpus={corpus}", *args, tmp_path=tmp_path, timeout=600
    )


# --- 1. data loss --------------------------------------------------------------------


DAMAGING = """
def load(path):
    with open(path, "rb") as file:
        data = file.read()
    mode = len(data) % 3
    if mode == 0:
        os.remove(path)
    elif mode == 1:
        with open(path, "r+b") as file:
            file.truncate(0)
    else:
        with open(path, "ab") as file:
            file.write(b"\\0" * 64)
    return answer(data)
"""


@pytest.mark.parametrize("form", ["isolated", "in-process"])
def test_a_reader_that_damages_its_input_leaves_the_corpus_intact(
    tmp_path: Path, form: str
) -> None:
    corpus = _corpus_copy(tmp_path)
    impl = _adapter(tmp_path, "damaging", DAMAGING)
    extra = ("--in-process",) if form == "in-process" else ()
    run = _run(impl, tmp_path, corpus, "-k", "y_arith or n_layout_hole", *extra)
    assert load_corpus(corpus).damaged() == []
    assert run.returncode == 0, run.output[-3000:]
    assert len(run.results) >= 8
    # and the next run (a strict reader) still scores everything
    again = _run("reference", tmp_path, corpus, "-k", "y_arith or n_layout_hole")
    assert again.returncode == 0, again.output[-3000:]


def test_a_damaged_corpus_stops_the_run_before_any_verdict(tmp_path: Path) -> None:
    corpus = _corpus_copy(tmp_path)
    victim = next((corpus / "files").glob("y_arith*.safetensors"))
    victim.write_bytes(victim.read_bytes()[:-1])
    run = _run("reference", tmp_path, corpus, "-k", "y_arith")
    assert run.returncode == 4, run.output[-3000:]
    assert f"files/{victim.name} is " in run.output
    assert "differs from its manifest" in run.output
    assert not run.results


def test_an_edited_manifest_stops_the_run_naming_it(tmp_path: Path) -> None:
    # Same-user code can flip a verdict in the manifest; every file still
    # matches it, so only the manifest's own digest tells.
    corpus = _corpus_copy(tmp_path)
    manifest = corpus / "manifest.json"
    text = manifest.read_text(encoding="utf-8")
    flipped = text.replace('"verdict": "valid"', '"verdict": "invalid"', 1)
    assert flipped != text
    manifest.write_text(flipped, encoding="utf-8")
    run = _run("reference", tmp_path, corpus, "-k", "y_arith")
    assert run.returncode == 4, run.output[-3000:]
    assert f"{manifest} has sha256 " in run.output
    assert "restore it" in run.output
    assert not run.results


# --- 2. gaming -----------------------------------------------------------------------


# Judges nothing: slices tensors out of any JSON header, and rejects only
# what the name, a manifest nearby or the environment says is invalid.
CHEAT = """
def _told_invalid(path):
    name = os.path.basename(path)
    if name.startswith("n_") or "[n_" in os.environ.get("PYTEST_CURRENT_TEST", ""):
        return True
    here = os.path.dirname(os.path.abspath(path))
    for folder in (here, os.path.dirname(here)):
        manifest = os.path.join(folder, "manifest.json")
        if os.path.exists(manifest):
            cases = json.load(open(manifest))
            cases = cases["cases"] if isinstance(cases, dict) else cases
            for case in cases:
                if str(case.get("file", "")).endswith(name):
                    return case["verdict"] == "invalid"
    return False


def load(path):
    if _told_invalid(path):
        raise ValueError("invalid, says the manifest")
    data = open(path, "rb").read()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    metadata = header.pop("__metadata__", None)
    base = 8 + size
    tensors = {
        name: (entry["dtype"], entry["shape"],
               data[base + entry["data_offsets"][0]:base + entry["data_offsets"][1]])
        for name, entry in header.items()
    }
    return tensors, metadata
"""

CHEAT_COMMAND = """
def main():
    *_, target = sys.argv
    if target == "--describe":
        print(json.dumps({"protocol": 2, "name": "cheat", "version": "1"}))
        return 0
    name = os.path.basename(target)  # the staging folder's random name may hold n_
    if "[n_" in os.environ.get("PYTEST_CURRENT_TEST", "") or name.startswith("n_"):
        print(json.dumps({"result": "rejected"}))
        return 1
    import hashlib
    tensors, metadata = load(target)
    print(json.dumps({"result": "accepted", "metadata": metadata, "tensors": {
        n: {"dtype": d, "shape": s, "sha256": hashlib.sha256(b).hexdigest()}
        for n, (d, s, b) in tensors.items()}}))
    return 0


sys.exit(main())
"""

HOLES = "n_layout_hole"  # faults json.loads cannot see


# Looks its input up in the corpus the suite ships, under the cheap normal
# forms of broken/_lookup.py (padding off, JSON whitespace out, the buffer
# alone); and if it finds the run's seed in its own or an ancestor's
# environment or command line, makes the run's variants and looks it up exactly.
LOOKUP = f"""
import sys
sys.path.insert(0, {str(BROKEN)!r})
from _lookup import CORPUS, looked_up


def _ancestors():
    pid = os.getpid()
    while pid > 1:
        yield pid
        try:
            stat = open(f"/proc/{{pid}}/stat", "rb").read()
        except OSError:
            return
        pid = int(stat[stat.rindex(b")") + 2:].split()[1])


def _seed():
    for pid in _ancestors():
        for what in ("environ", "cmdline"):
            try:
                parts = open(f"/proc/{{pid}}/{{what}}", "rb").read().split(b"\\0")
            except OSError:
                continue
            for part in parts:
                for prefix in (b"STSPEC_CORPUS_SEED=", b"--corpus-seed="):
                    if part.startswith(prefix):
                        return part[len(prefix):].decode()
    return None


def _told_invalid(path):
    data = open(path, "rb").read()
    seed = _seed()
    if seed:
        from stspec_conformance import _variants
        manifest = json.load(open(CORPUS / "manifest.json"))
        for case in manifest["cases"]:
            if "file" in case:
                made = _variants.variant(case, CORPUS / case["file"], seed)
                if made is not None and made.data == data:
                    return case["verdict"] == "invalid"
    return looked_up(data) == "invalid"
"""
LOOKED_UP = "n_layout or n_structure_shape or n_dtype_name"


def test_a_reader_looking_its_input_up_in_the_corpus_judges_nothing(
    tmp_path: Path,
) -> None:
    # Each run hands over a variant of every committed file whose header and
    # buffer both differ from every committed one, in ways no cheap form
    # takes back (new order, names, a metadata member, tensor bytes), and
    # the run's seed is nowhere an implementation's process can read it.
    source = CHEAT[: CHEAT.index("def _told_invalid")] + LOOKUP
    source += CHEAT[CHEAT.index("def load(path):") :]
    impl = _adapter(tmp_path, "lookup", source)
    run = run_suite(str(impl), "-k", LOOKED_UP, tmp_path=tmp_path, corpus_seed=False)
    # (the large cases made at run time are no file of the corpus)
    files = {c["id"]: c for c in load_corpus(ROOT / "corpus").cases if "file" in c}
    rejects = [
        t
        for t in run.results
        if t.startswith("test_must_reject[") and t[17:-1] in files
    ]
    assert len(rejects) >= 40, run.output[-3000:]
    accepted = [t for t in rejects if run.test(t)["outcome"] == "accepted"]
    # the reader rejects only what json.loads or its slicing cannot take
    unjudged = [t for t in rejects if run.test(t)["outcome"] == "rejected"]
    assert len(accepted) >= 0.8 * len(rejects), (unjudged, run.output[-3000:])
    assert "accepted a file that breaks" in run.output
    assert run.report["corpus_seed"]
    # the same reader handed the committed files would have rejected every
    # one, and handed padded ones (what the variants were before) nearly all
    spec = importlib.util.spec_from_file_location("_lookup", BROKEN / "_lookup.py")
    assert spec is not None
    assert spec.loader is not None
    lookup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lookup)
    looked_up = lookup.looked_up
    padded_found = 0
    for test in rejects:
        case = files[test[17:-1]]
        data = (ROOT / "corpus" / case["file"]).read_bytes()
        assert looked_up(data) == "invalid", case["id"]
        stated = int.from_bytes(data[:8], "little")
        padded = (stated + 64).to_bytes(8, "little") + data[8 : 8 + stated]
        padded += b" " * 64 + data[8 + stated :]
        padded_found += looked_up(padded) == "invalid"
    assert padded_found >= 0.9 * len(rejects)


@pytest.mark.parametrize("form", ["isolated", "command"])
def test_a_reader_told_the_verdict_is_still_judged_on_the_bytes(
    tmp_path: Path, form: str
) -> None:
    corpus = _corpus_copy(tmp_path)
    cheat = _adapter(tmp_path, "cheat", CHEAT)
    if form == "command":
        cheat.write_text(cheat.read_text() + textwrap.dedent(CHEAT_COMMAND))
        impl = f"cmd:{sys.executable} {cheat}"
    else:
        impl = str(cheat)
    run = _run(impl, tmp_path, corpus, "-k", HOLES)
    hole_cases = [t for t in run.results if HOLES in t]
    assert hole_cases, run.output[-3000:]
    assert all(run.results[t] == "failed" for t in hole_cases), run.results
    assert "accepted a file that breaks LAYOUT-HOLE" in run.output


def test_the_reports_never_show_the_private_copy_as_the_case(tmp_path: Path) -> None:
    corpus = _corpus_copy(tmp_path)
    run = _run(str(_adapter(tmp_path, "cheat", CHEAT)), tmp_path, corpus, "-k", HOLES)
    assert f"file:    {corpus}/files/n_layout_hole" in run.output
    assert json.dumps(run.report)  # the report was written


# --- commands and workers that misbehave as processes ---------------------------------

# Processes that outlive whoever started them (``marker`` finds them).
SPAWN = """
import subprocess, sys


def smoke(path):  # the smoke gate's minimal file: one tensor named "weight"
    return b'"weight"' in open(path, "rb").read()


def sleeper(marker, **options):
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    code += "time.sleep(300)"
    return subprocess.Popen([sys.executable, "-c", code, marker], **options)


def daemon(marker):
    # double fork + setsid: out of the program's group and session
    code = "import os, sys, time\\nif os.fork(): os._exit(0)\\nos.setsid()\\n"
    code += "time.sleep(300)"
    subprocess.run([sys.executable, "-c", code, marker],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
"""

# A protocol-2 reader built on the reference; ``misbehave(code)`` runs before
# it answers (code 0: accepted, 1: rejected).
COMMAND = """
import hashlib, json, os, signal, subprocess, sys, time
import stspec


def answer(path):
    try:
        with stspec.read(path) as st:
            tensors = {
                n: {"dtype": i.dtype, "shape": list(i.shape),
                    "sha256": hashlib.sha256(st.tensor_bytes(n)).hexdigest()}
                for n, i in st.tensors.items()
            }
            return 0, {"result": "accepted", "metadata": st.metadata,
                       "tensors": tensors}
    except stspec.SafetensorsError as exc:
        return 1, {"result": "rejected", "rule": exc.rule}


def main():
    target = sys.argv[-1]
    if target == "--describe":
        print(json.dumps({"protocol": 2, "name": "hostile", "version": "1"}))
        return 0
    code, result = answer(target)
    misbehave(code, target)
    print(json.dumps(result))
    return code
"""

# An adapter module built on the reference; ``misbehave(ok)`` runs first.
MODULE = """
import json, mmap, os, subprocess, sys, time
import stspec


def load(path):
    with stspec.read(path) as st:
        tensors = {n: (i.dtype, list(i.shape), bytes(st.tensor_bytes(n)))
                   for n, i in st.tensors.items()}
        result = tensors, st.metadata
    misbehave(path)
    return result
"""


def _program(tmp_path: Path, misbehave: str, marker: str = "") -> str:
    script = tmp_path / "hostile_command.py"
    source = SPAWN + COMMAND.replace(
        "def main():", textwrap.dedent(misbehave) + "\n\ndef main():"
    )
    script.write_text(source + f"\nMARKER = {marker!r}\nsys.exit(main())\n")
    return f"cmd:{sys.executable} {script}"


def _module(tmp_path: Path, misbehave: str, head: str = "") -> str:
    path = tmp_path / "hostile_module.py"
    path.write_text(
        textwrap.dedent(head) + MODULE + textwrap.dedent(misbehave), encoding="utf-8"
    )
    return str(path)


def _alive(marker: str) -> list[str]:
    """Processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in line:
                found.append(f"{entry.name}: {line!r}")
    return found


# --- 3. hangs ------------------------------------------------------------------------


def test_a_helper_holding_stdout_cannot_hang_the_suite(tmp_path: Path) -> None:
    marker = f"stspec-hold-{tmp_path.name}"
    impl = _program(
        tmp_path,
        """
        def misbehave(code, path):
            if code == 1:  # on invalid files: a setsid helper keeps stdout open
                sleeper(MARKER, start_new_session=True)
                time.sleep(120)
        """,
        marker,
    )
    run = run_suite(
        impl,
        "-k",
        "n_layout_hole_between_tensors",
        "--case-timeout=2",
        "--wall-timeout=5",
        tmp_path=tmp_path,
        timeout=150,
    )
    test = run.test("test_must_reject[n_layout_hole_between_tensors]")
    assert test["outcome"] == "hung", run.output[-3000:]
    assert "it also left 1 process running" in run.output
    assert not _alive(marker)


# --- 4. unbounded output -------------------------------------------------------------


def _limited_suite(impl: str, tmp_path: Path, limit: str, *args: str) -> Run:
    """The suite under a resource limit (``prlimit`` option), as on a CI runner."""
    report = tmp_path / "report.json"
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        pytest.fail("prlimit (util-linux) is needed")
    process = subprocess.run(
        [
            prlimit,
            limit,
            sys.executable,
            "-m",
            "pytest",
            str(ROOT / "conformance"),
            f"--impl={impl}",
            f"--report-json={report}",
            "-q",
            "-p",
            "no:cacheprovider",
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    data = json.loads(report.read_text()) if report.exists() else {}
    return Run(process.returncode, process.stdout + process.stderr, data, tmp_path)


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_flood_of_output_is_cut_at_its_cap(tmp_path: Path, stream: str) -> None:
    impl = _program(
        tmp_path,
        f"""
        def misbehave(code, path):
            if code == 1:  # 2 GiB on {stream}
                chunk = b"x" * (1 << 20)
                for _ in range(2048):
                    sys.{stream}.buffer.write(chunk)
        """,
    )
    # what is judged is the cap, not the speed of 2 GiB through a pipe on a
    # loaded machine: the wall-clock backstop is far away
    run = _limited_suite(
        impl,
        tmp_path,
        f"--data={1 << 30}",
        "-k",
        "n_layout_hole_between_tensors",
        "--wall-timeout=240",
    )
    assert "INTERNALERROR" not in run.output, run.output[-3000:]
    test = run.test("test_must_reject[n_layout_hole_between_tensors]")
    if stream == "stdout":  # no answer: not a rejection, so the n_ case fails
        assert test["result"] == "failed", run.output[-3000:]
        assert "bytes on stdout (an answer about this file needs less" in run.output
    else:
        assert test["outcome"] == "rejected", run.output[-3000:]


LAX = """
def load(path):
    data = open(path, "rb").read()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    metadata = header.pop("__metadata__", None)
    base = 8 + size
    return {n: (e["dtype"], e["shape"],
                data[base + e["data_offsets"][0]:base + e["data_offsets"][1]])
            for n, e in header.items()}, metadata
"""


def test_a_banner_on_fd_1_at_import_does_not_break_the_worker(tmp_path: Path) -> None:
    impl = _module(
        tmp_path,
        "def misbehave(path):\n    os.write(1, b'banner ' * 4096)\n",
        head="import os\nos.write(1, b'\\xff' * 65536)  # a C library's banner\n",
    )
    run = run_suite(impl, "-k", "y_arith", tmp_path=tmp_path)
    assert run.returncode == 0, run.output[-3000:]
    assert "INTERNALERROR" not in run.output


def test_printing_until_the_disk_is_full_is_no_rejection(tmp_path: Path) -> None:
    # Under RLIMIT_FSIZE a write to a file past the limit fails (EFBIG), as a
    # full disk's does (ENOSPC): the worker's output must go to no file.
    impl = _module(
        tmp_path,
        LAX + "\n\ndef misbehave(path):\n    pass\n",
    )
    source = Path(impl).read_text()
    source = source.replace(
        "def load(path):\n    data",
        "def load(path):\n    for _ in range(96):\n"
        "        os.write(1, b'y' * (1 << 20))\n    data",
        1,
    )
    Path(impl).write_text(source)
    run = _limited_suite(
        impl, tmp_path, f"--fsize={64 << 20}", "-k", "n_layout_hole_between_tensors"
    )
    test = run.test("test_must_reject[n_layout_hole_between_tensors]")
    assert test["outcome"] == "accepted", run.output[-3000:]
    assert test["result"] == "failed"


# --- 5. leftovers --------------------------------------------------------------------


LEFTOVERS_COMMAND = """
def misbehave(code, path):
    if smoke(path):
        return
    sleeper(MARKER, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)  # same group, stdio detached
    daemon(MARKER)
"""


def test_a_command_leaves_no_process_behind(tmp_path: Path) -> None:
    marker = f"stspec-left-{tmp_path.name}"
    impl = _program(tmp_path, LEFTOVERS_COMMAND, marker)
    run = run_suite(impl, "-k", "y_arith_zero", tmp_path=tmp_path)
    assert not _alive(marker)
    outcomes = {t: run.test(t)["outcome"] for t in run.results}
    assert outcomes
    assert set(outcomes.values()) == {"resource"}, run.output[-3000:]
    # one or two: the daemon may be caught before or after it leaves the session
    left = re.search(r"left \d+ process(es)? running after its answer", run.output)
    assert left, run.output[-3000:]


GROUP_CHILD_COMMAND = """
def misbehave(code, path):
    if not smoke(path):  # a child in the program's own group, stdio detached
        sleeper(MARKER, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
"""


def test_a_child_left_in_the_programs_group_is_named_on_every_call(
    tmp_path: Path,
) -> None:
    # Killing the group first and listing after used to lose the child (a
    # zombie is not "left running") on some calls and not others.
    marker = f"stspec-group-{tmp_path.name}"
    impl = _program(tmp_path, GROUP_CHILD_COMMAND, marker)
    run = run_suite(impl, "-k", "y_arith or n_layout_hole", tmp_path=tmp_path)
    assert not _alive(marker)
    outcomes = {t: run.test(t)["outcome"] for t in run.results}
    assert len(outcomes) >= 9, run.output[-3000:]
    assert set(outcomes.values()) == {"resource"}, run.output[-3000:]
    left = re.findall(r"left \d+ process(?:es)? running after its answer", run.output)
    assert len(left) >= len(outcomes), run.output[-3000:]


def test_an_isolated_reader_leaves_no_process_behind(tmp_path: Path) -> None:
    marker = f"stspec-left-{tmp_path.name}"
    impl = _module(
        tmp_path,
        LEFTOVERS_COMMAND.replace("code, ", "").replace("MARKER", repr(marker)),
        head=SPAWN,
    )
    run = run_suite(impl, "-k", "y_arith_zero", tmp_path=tmp_path)
    assert not _alive(marker), run.output[-2000:]
    outcomes = {t: run.test(t)["outcome"] for t in run.results}
    assert outcomes
    assert set(outcomes.values()) == {"resource"}, run.output[-3000:]


# --- 6. memory limits ----------------------------------------------------------------


def test_peak_memory_is_judged_on_valid_files_too(tmp_path: Path) -> None:
    impl = _module(
        tmp_path,
        """
        def misbehave(path):
            if b'"weight"' not in open(path, "rb").read():  # not the smoke file
                shared = mmap.mmap(-1, 400 << 20)  # RLIMIT_DATA does not count it
                for page in range(0, len(shared), mmap.PAGESIZE):
                    shared[page] = 1
        """,
    )
    run = run_suite(impl, "-k", "y_arith_zero_first", tmp_path=tmp_path)
    test = run.test("test_must_accept[y_arith_zero_first]")
    assert test["outcome"] == "resource", run.output[-3000:]
    assert "MiB (peak)" in run.output


# 3,000 MiB of shared memory (RLIMIT_DATA does not count it) touched on every
# file but the smoke gate's, then the kernel's high-water mark reset.
RESET_PEAK = """
def misbehave(*args):  # (code, path) for a command, (path) for a module
    import mmap
    if b'"weight"' in open(args[-1], "rb").read():
        return
    shared = mmap.mmap(-1, 3000 << 20)
    for page in range(0, len(shared), mmap.PAGESIZE):
        shared[page] = 1
    shared.close()
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
"""


@pytest.mark.parametrize("form", ["isolated", "command"])
def test_a_reset_of_the_peak_mark_does_not_hide_memory(
    tmp_path: Path, form: str
) -> None:
    maker = _program if form == "command" else _module
    impl = maker(tmp_path, RESET_PEAK)
    run = run_suite(impl, "-k", "y_arith_zero_first", tmp_path=tmp_path)
    test = run.test("test_must_accept[y_arith_zero_first]")
    assert test["outcome"] == "resource", run.output[-3000:]
    assert "MiB (peak)" in run.output


def test_the_warm_up_load_is_limited_like_every_other(tmp_path: Path) -> None:
    allocated = tmp_path / "allocated"
    impl = _module(
        tmp_path,
        f"""
        def misbehave(path):
            block = bytearray(8000 << 20)
            open({str(allocated)!r}, "a").write(f"{{len(block)}}\\n")
        """,
    )
    run = run_suite(impl, "-k", "y_arith_zero_first", tmp_path=tmp_path)
    assert not allocated.exists(), allocated.read_text()
    assert run.returncode == 4, run.output[-3000:]
    assert "cannot load a minimal valid file" in run.output


# --- 7. the staging folder -----------------------------------------------------------


SYMLINK_COMMAND = """
def misbehave(code, path):
    if smoke(path):
        return
    folder = os.path.dirname(path)
    os.symlink(MARKER, os.path.join(folder, "link"))  # a link inside the folder
    os.rename(folder, folder + ".moved")  # and the folder swapped for a link
    os.symlink(MARKER, folder)
"""


def test_the_clean_up_never_follows_a_symlink_out_of_the_staging_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "victim"
    (victim / "a" / "b").mkdir(parents=True)
    folders = [victim, victim / "a", victim / "a" / "b"]
    for folder in folders:
        folder.chmod(0o755)
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setenv("TMPDIR", str(private))
    impl = _program(tmp_path, SYMLINK_COMMAND, str(victim))
    run = run_suite(impl, "-k", "y_arith_zero_first", tmp_path=tmp_path)
    assert run.test("test_must_accept[y_arith_zero_first]")["result"] == "passed"
    assert [oct(f.stat().st_mode & 0o777) for f in folders] == ["0o755"] * 3
    assert sorted(p.name for p in private.iterdir()) == [], run.output[-2000:]


# --- 8. the reports ------------------------------------------------------------------

HOSTILE_REASON = (
    "\x1b[32mok\x1b[0m \u202eevil\nSCORE 415/415 100.0% - all passed "
    "</td></tr></table><img src=x onerror=alert(1)> [click](javascript:alert(1)) `x`"
)


def test_an_implementations_text_reaches_no_report_raw(tmp_path: Path) -> None:
    script = tmp_path / "hostile_reason.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import json, sys
            if sys.argv[-1] == "--describe":
                print(json.dumps({{"protocol": 2, "name": "x\\x1b[2Jname",
                                   "version": "1"}}))
                sys.exit(0)
            print(json.dumps({{"result": "rejected", "reason": {HOSTILE_REASON!r}}}))
            sys.exit(1)
            """
        ),
        encoding="utf-8",
    )
    markdown = tmp_path / "report.md"
    junit = tmp_path / "junit.xml"
    run = run_suite(
        f"cmd:{sys.executable} {script}",
        "--no-smoke-gate",
        "-k",
        "y_arith_zero_first",
        f"--report-md={markdown}",
        f"--junitxml={junit}",
        tmp_path=tmp_path,
    )
    assert run.test("test_must_accept[y_arith_zero_first]")["result"] == "failed"
    report = json.dumps(run.report, ensure_ascii=False)
    for text in (run.output, markdown.read_text(), junit.read_text(), report):
        assert "\x1b" not in text
        assert "\u202e" not in text
        assert "\nSCORE 415/415" not in text
    shown = markdown.read_text()
    assert r"\\x1b\[32mok" in shown, shown  # renders as \x1b[32mok
    for markup in ("<img", "</td>", "[click]", "`x`"):
        assert markup not in shown, shown
    assert "&lt;img src=x" in shown
