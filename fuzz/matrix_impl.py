"""A results-matrix implementation as a differential fuzzing target.

``MatrixImpl(NAME)`` calls the implementation the way the matrix does, in the
environment ``python -m matrix setup`` built under ``.matrix/NAME``
(``STSPEC_MATRIX_DIR`` moves it): a Python wrapper through one long-lived
``matrix_worker.py`` process, a ``cmd:`` program once per input.  It honours
what the matrix recorded in ``results/NAME.json`` (``STSPEC_MATRIX_RESULTS``
moves the folder): the capabilities the implementation declares, and its
known deviations, the rules of the corpus cases it already fails there.
Without that file the baseline is measured on the spot: every corpus file
goes through the implementation and the same oracle, and the cases it fails
form the baseline (so a fuzzing run reports only what the corpus lacks).

:func:`judge` is the oracle, shared with the finding command: the reference
decides, and the answer must agree within the declaration.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import select
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import stspec

if TYPE_CHECKING:
    from collections.abc import Collection

ROOT: Final = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # the matrix package lives at the repository root

from matrix import envs, impls, probe  # noqa: E402

__all__ = [
    "Answer",
    "MatrixImpl",
    "crash_deviations",
    "judge",
    "known_deviations",
    "valid_deviations",
    "valid_features",
]

Answer = dict[str, Any]
PER_INPUT_S: Final = 10.0
_DTYPE_TOKEN: Final = re.compile(rb'"dtype"\s*:\s*"([A-Z0-9_]+)"')


def _results_dir() -> Path:
    return Path(os.environ.get("STSPEC_MATRIX_RESULTS", ROOT / "results"))


def _results(name: str) -> dict[str, Any]:
    path = _results_dir() / f"{name}.json"
    try:
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except OSError:
        return {}
    return loaded


def valid_deviations(results: dict[str, Any]) -> frozenset[str]:
    """Return the rules of the y_ corpus cases the matrix recorded as failed.

    A failed y_ case of the dtype family that names one dtype (its ``dtype:X``
    tag) adds that tag too: the implementation fails valid files of that dtype.
    """
    manifest = json.loads((ROOT / "corpus" / "manifest.json").read_text("utf-8"))
    tags = {case["id"]: case.get("tags", []) for case in manifest["cases"]}
    dtypes = set()
    for cid, row in results.get("cases", {}).items():
        named = [t for t in tags.get(cid, []) if t.startswith("dtype:")]
        if cid.startswith("y_dtype_") and not row.get("ok") and len(named) == 1:
            dtypes.add(named[0])
    return _failed_rules(results, "y_") | dtypes


def known_deviations(results: dict[str, Any]) -> frozenset[str]:
    """Return the rules of the n_ corpus cases the matrix recorded as failed.

    Those are the rules whose files the implementation may accept.  Failed
    y_ cases excuse nothing here: a valid file has no rule to match, so each
    rejection of one is reported and triaged against the baseline by hand.
    """
    return _failed_rules(results, "n_")


def crash_deviations(results: dict[str, Any]) -> frozenset[str]:
    """Return the rules of the corpus cases the implementation crashed or hung on.

    Running past the suite's resource allowance counts too: what the suite
    reports as its own outcome (a MemoryError under the memory limit) is a
    crash to the fuzzer's worker, so the same file would be reported again.
    """
    return _failed_rules(results, "", outcomes=("crashed", "hung", "resource"))


def _manifest_rules() -> dict[str, list[str]]:
    manifest = json.loads((ROOT / "corpus" / "manifest.json").read_text("utf-8"))
    return {case["id"]: case["rules"] for case in manifest["cases"]}


def _failed_rules(
    results: dict[str, Any], prefix: str, outcomes: tuple[str, ...] = ()
) -> frozenset[str]:
    rules = _manifest_rules()
    failed = [
        cid
        for cid, row in results.get("cases", {}).items()
        if cid.startswith(prefix)
        and not row.get("ok")
        and (not outcomes or row.get("outcome") in outcomes)
    ]
    return frozenset(rule for cid in failed for rule in rules.get(cid, ()))


def _declared(results: dict[str, Any]) -> dict[str, Any]:
    described = results.get("implementation", {}).get("described", {})
    capabilities: dict[str, Any] = described.get("capabilities", {})
    return capabilities


def _dtypes_named(data: bytes) -> set[str]:
    return {match.decode() for match in _DTYPE_TOKEN.findall(data[:65536])}


_COMMON: Final = frozenset(
    {
        "BOOL",
        "U8",
        "I8",
        "I16",
        "U16",
        "F16",
        "BF16",
        "I32",
        "U32",
        "F32",
        "F64",
        "I64",
        "U64",
    }
)
_SAFE_INT: Final = 2**53
# What a file with a __metadata__ member stands near (a reader may crash on any).
_METADATA_RULES: Final = frozenset({"META-NULL", "META-OBJECT", "META-STRING"})


def valid_features(data: bytes) -> frozenset[str]:
    """Return the rules whose boundary a valid file stands on (a heuristic).

    The reference finds no rule broken in a valid file, so nothing says which
    known deviation a rejection of it repeats.  These features name the rule
    of the corpus's boundary cases the file resembles: a shape whose product
    overflows before a zero (SIZE-OVERFLOW), numbers past 2^53 (NUM-RANGE),
    offsets past 4 GiB (LAYOUT-BOUNDS), rarer or sub-byte dtypes (DTYPE-NAME,
    SIZE-BITS), empty tensors (LAYOUT-HOLE, SIZE-MATCH), metadata (META-*),
    non-ASCII or escaped text (HEADER-UTF8, KEY-UNIQUE, JSON-SURROGATE),
    whitespace around the object (HEADER-PADDING, HEADER-LEADING-WS), and each
    dtype used (``dtype:X``, the corpus's tag).
    """
    features: set[str] = set()
    with stspec.read(data) as file:
        for info in file.tensors.values():
            product = 1
            for dim in info.shape:
                product *= dim
                features |= {"SIZE-OVERFLOW"} if product >= 2**64 else set()
                features |= {"NUM-RANGE"} if dim >= _SAFE_INT else set()
            features |= {"LAYOUT-BOUNDS"} if info.end >= 2**32 else set()
            features |= {"NUM-RANGE"} if info.end >= _SAFE_INT else set()
            features |= (
                {"DTYPE-NAME", "SIZE-BITS"} if info.dtype not in _COMMON else set()
            )
            features |= {"LAYOUT-HOLE", "SIZE-MATCH"} if info.nbytes == 0 else set()
            features.add(f"dtype:{info.dtype}")
        if file.metadata is not None:
            features |= _METADATA_RULES
        header = data[8 : file.data_start]
    if not header.isascii():
        features.add("HEADER-UTF8")
    if b"\\" in header:
        features |= {"KEY-UNIQUE", "JSON-SURROGATE"}
    if header != header.strip():
        features |= {"HEADER-PADDING", "HEADER-LEADING-WS"}
    return frozenset(features)


_PREFIX: Final = 8


class _Pairs(list[tuple[str, Any]]):
    """A JSON object's members in order, repeats kept (json's object_pairs_hook)."""


def masked(data: bytes) -> frozenset[str]:
    """Return rules a lenient reader's view of a broken file breaks (a heuristic).

    The reference judges nothing after some faults: a length prefix past the
    limit or the file (HEADER-LIMIT, HEADER-BOUNDS) stops it at byte 0, and a
    repeated name, an entry without fields or three offsets stop the layout
    check.  A reader that trusts N (and reads the header up to the end of the
    file), takes the last of two names, or the first two offsets goes on, and
    crashes where it crashes on the corpus cases of the rules found here:
    HEADER-OBJECT when those bytes are JSON that is not an object,
    LAYOUT-BOUNDS when a ``data_offsets`` array (any entry's, any repeat's)
    holds a number past the buffer, OFFSETS-ORDER when one runs backwards,
    JSON-DEPTH when the text (invalid UTF-8 replaced) nests too deep to parse.
    A ``__metadata__`` member names the META-* rules, as for a valid file in
    :func:`valid_features`: a reader that crashes on any metadata (the npm
    package) crashes on a tolerated or invalid file's metadata too.
    """
    if len(data) < _PREFIX:
        return frozenset()
    length = int.from_bytes(data[:_PREFIX], "little")
    buffer = max(len(data) - _PREFIX - length, 0)
    # Lenient readers replace what is not UTF-8 (or ignore it) and parse on.
    text = data[_PREFIX : _PREFIX + length].decode("utf-8", "replace")
    try:
        root = json.loads(text, object_pairs_hook=_Pairs)
    except RecursionError:
        # Deeper than Python's json goes (about 1,000 levels), so past 127.
        return frozenset({"JSON-DEPTH"})
    except ValueError:
        return frozenset()
    if not isinstance(root, _Pairs):
        return frozenset({"HEADER-OBJECT"})
    found: set[str] = set()
    for name, entry in root:
        if name == "__metadata__":
            found |= _METADATA_RULES
        for key, offsets in entry if isinstance(entry, _Pairs) else ():
            if key == "data_offsets" and type(offsets) is list:
                found |= _offset_faults(offsets, buffer)
    return frozenset(found)


def _offset_faults(offsets: list[Any], buffer: int) -> set[str]:
    """LAYOUT-BOUNDS and OFFSETS-ORDER in one data_offsets array, of any length."""
    numbers = [value for value in offsets if type(value) is int]
    found = set()
    if any(number > buffer for number in numbers):
        found.add("LAYOUT-BOUNDS")
    if any(low > high for low, high in itertools.pairwise(numbers)):
        found.add("OFFSETS-ORDER")
    return found


def judge(  # noqa: PLR0913 - the answer, the declaration and three baselines
    data: bytes,
    answer: Answer,
    capabilities: dict[str, Any],
    *,
    ignore_rules: Collection[str] = (),
    valid_ignore: Collection[str] = (),
    crash_ignore: Collection[str] = (),
) -> None:
    """AssertionError if ``answer`` (a probe answer) disagrees with the reference.

    A crash or hang is always a finding.  Files naming a dtype outside the
    declared ``read_dtypes`` are not judged.  A valid file must be accepted
    with the reference's names, dtypes, shapes, bytes (unless header-only) and
    metadata (unless ``metadata_presence`` is false and one side is empty); an
    invalid file must be rejected unless it breaks an ignored rule; a
    tolerated file may go either way.  A valid file's rejection is excused
    when its :func:`valid_features` meet ``valid_ignore`` (the rules of the
    y_ cases the implementation is known to fail); a crash or hang, when the
    file's rules (or a valid file's features) meet ``crash_ignore``, the rules
    of the corpus cases it is known to crash on; for a file that is not
    valid, also the rules of :func:`masked` (what the reference's first
    fault hid, and metadata).  An answer that is not tensors
    (``invalid-output``) counts as an acceptance of a file that is not valid.
    """
    result = answer.get("result")
    errors = stspec.validate(data)
    rules = {error.rule for error in errors}
    verdict = stspec.verdict_of(rules)
    about = f"file {verdict} {sorted(rules)}"
    if result == "invalid-output" and verdict != "valid":
        # Loaded, but what came back is not tensors (the suite's
        # invalid-output): an acceptance, excused where one would be.
        assert verdict == "tolerated" or rules & set(ignore_rules), (
            f"{about}: accepted, with a malformed answer: {answer.get('error')}"
        )
        return
    if result not in {"accepted", "rejected"} and crash_ignore:
        seen = rules | (valid_features(data) if verdict == "valid" else masked(data))
        if seen & set(crash_ignore):
            return
    assert result in {"accepted", "rejected"}, (
        f"{about}: {result}: {answer.get('error')}"
    )
    readable = capabilities.get("read_dtypes")
    if readable is not None and not _dtypes_named(data) <= set(readable):
        return
    if verdict == "invalid" and not rules & set(ignore_rules):
        assert result == "rejected", f"{about}: accepted {_show(answer)}"
    if verdict != "valid":
        return
    if result == "rejected" and valid_features(data) & set(valid_ignore):
        return
    assert result == "accepted", f"{about}: rejected: {answer.get('error')}"
    problems = _differences(data, answer, capabilities)
    if problems and valid_features(data) & set(valid_ignore):
        return
    assert not problems, f"{about}: {'; '.join(problems)}"


def _differences(
    data: bytes, answer: Answer, capabilities: dict[str, Any]
) -> list[str]:
    with stspec.read(data) as file:
        expected = {
            name: [info.dtype, list(info.shape), _sha256(file.tensor_bytes(name))]
            for name, info in file.tensors.items()
        }
        metadata = file.metadata
    got = answer.get("tensors") or {}
    problems = []
    if set(got) != set(expected):
        problems.append(f"names {sorted(got)} instead of {sorted(expected)}")
    for name in set(got) & set(expected):
        dtype, shape, digest = got[name]
        want = expected[name]
        if [dtype, list(shape)] != want[:2]:
            problems.append(f"{name!r}: {dtype}{shape} instead of {want[0]}{want[1]}")
        elif (
            digest is not None
            and not capabilities.get("header_only")
            and digest != want[2]
        ):
            problems.append(f"{name!r}: other bytes")
    loaded = answer.get("metadata")
    if capabilities.get("metadata_presence", True) is False:
        loaded, metadata = loaded or None, metadata or None
    if "metadata" in answer and loaded != metadata:
        problems.append(f"metadata {loaded!r} instead of {metadata!r}")
    return problems


def _sha256(view: memoryview) -> str:
    import hashlib  # noqa: PLC0415 - only for accepted files

    try:
        return hashlib.sha256(view).hexdigest()
    finally:
        view.release()


def _show(answer: Answer) -> str:
    return json.dumps({k: answer.get(k) for k in ("metadata", "tensors")})[:300]


@dataclass
class MatrixImpl:
    """One matrix implementation, answering one input at a time."""

    name: str
    impl: impls.Impl = field(init=False)
    capabilities: dict[str, Any] = field(init=False)
    known_deviations: frozenset[str] = field(init=False)
    valid_ignore: frozenset[str] = field(init=False)
    crash_ignore: frozenset[str] = field(init=False)
    _worker: subprocess.Popen[str] | None = field(default=None, init=False)
    _worker_declared: dict[str, Any] = field(default_factory=dict, init=False)
    _path: Path = field(init=False)

    def __post_init__(self) -> None:
        """Read the implementation's pins, declaration and baseline."""
        self.impl = impls.by_name(self.name)
        import targets  # noqa: PLC0415 - its scratch folder

        self._path = targets.scratch() / f"matrix-{self.name}.safetensors"
        results = _results(self.name)
        self.capabilities = _declared(results) or self._declaration()
        if not results.get("cases"):
            results = self._cached_baseline()
        self.known_deviations = known_deviations(results)
        self.valid_ignore = valid_deviations(results)
        self.crash_ignore = crash_deviations(results)

    def _declaration(self) -> dict[str, Any]:
        """Ask the wrapper (its CAPABILITIES, or a program's --describe)."""
        if self.impl.kind == "cmd":
            program = ROOT / "matrix" / "wrappers" / self.impl.wrapper
            argv = (  # as matrix.probe.probe_cmd calls it
                ["node", str(program)]
                if self.impl.wrapper.endswith(".mjs")
                else [str(envs.env_dir(self.name) / "bin" / self.impl.wrapper)]
            )
            done = subprocess.run(  # noqa: S603
                [*argv, "--describe"],
                capture_output=True,
                text=True,
                env=envs.run_env(self.impl),
                timeout=60,
                check=False,
            )
            try:
                described: dict[str, Any] = json.loads(done.stdout)["capabilities"]
            except (ValueError, KeyError, TypeError):
                return {}
            return described
        if self._worker is None or self._worker.poll() is not None:
            self._worker = self._start()
        return self._worker_declared

    def _cached_baseline(self) -> dict[str, Any]:
        """Measure once per corpus: -fork and -jobs start a process per job."""
        cache = ROOT / "fuzz" / "work" / "baselines" / f"{self.name}.json"
        manifest = ROOT / "corpus" / "manifest.json"
        if cache.exists() and cache.stat().st_mtime >= manifest.stat().st_mtime:
            cached: dict[str, Any] = json.loads(cache.read_text(encoding="utf-8"))
            return cached
        measured = self.measure_baseline()
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(measured, sort_keys=True), encoding="utf-8")
        return measured

    def measure_baseline(self) -> dict[str, Any]:
        """Run every committed corpus file through the oracle: the cases it fails."""
        cases: dict[str, Any] = {}
        for path in sorted((ROOT / "corpus" / "files").glob("*.safetensors")):
            data = path.read_bytes()
            answer = self.answer(data)
            try:
                judge(data, answer, self.capabilities)
            except AssertionError:
                ok = False
            else:
                ok = True
            cases[path.stem] = {"ok": ok, "outcome": answer.get("result")}
        return {"cases": cases}

    def label(self) -> str:
        """Return a one-line description for logs."""
        return f"{self.impl.title} (matrix:{self.name}, {self.impl.kind})"

    def answer(self, data: bytes) -> Answer:
        """Return what the implementation makes of ``data`` (a probe answer)."""
        self._path.write_bytes(data)
        if self.impl.kind == "cmd":
            try:
                return probe.probe_cmd(self.impl, [str(self._path)])[str(self._path)]
            except RecursionError:  # matrix.probe decodes the answer with json
                return {"result": "invalid-output", "error": "answer nested too deep"}
        return self._ask(str(self._path))

    def check(self, data: bytes, ignore_rules: Collection[str]) -> None:
        """Judge the answer on ``data`` against the reference."""
        answer = self.answer(data)
        judge(
            data,
            answer,
            self.capabilities,
            ignore_rules=ignore_rules,
            valid_ignore=self.valid_ignore,
            crash_ignore=self.crash_ignore,
        )

    def _start(self) -> subprocess.Popen[str]:
        env = envs.run_env(self.impl)
        wrappers = ROOT / "matrix" / "wrappers"
        env["PYTHONPATH"] += os.pathsep + str(wrappers)
        wrapper = wrappers / (self.impl.probe or self.impl.wrapper)
        script = Path(__file__).parent / "matrix_worker.py"
        worker = subprocess.Popen(  # noqa: S603
            [str(envs.python_of(self.name)), str(script), str(wrapper)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=ROOT,
            preexec_fn=probe._limit(self.impl.memory_limit_mib),  # noqa: PLW1509, SLF001
        )  # fmt: skip
        assert worker.stdout is not None
        first = worker.stdout.readline()  # the wrapper's CAPABILITIES
        try:
            self._worker_declared = dict(json.loads(first)["capabilities"])
        except (ValueError, KeyError, TypeError):
            self._worker_declared = {}
        return worker

    def _ask(self, path: str) -> Answer:
        if self._worker is None or self._worker.poll() is not None:
            self._worker = self._start()
        worker = self._worker
        assert worker.stdin is not None
        assert worker.stdout is not None
        try:
            worker.stdin.write(path + "\n")
            worker.stdin.flush()
        except BrokenPipeError:
            return self._died(worker)
        ready, _, _ = select.select([worker.stdout], [], [], PER_INPUT_S + 30)
        line = worker.stdout.readline() if ready else ""
        if not line:
            return self._died(worker)
        try:
            answer: Answer = json.loads(line)
        except (ValueError, RecursionError):
            return {"result": "invalid-output", "error": line[:200]}
        return answer

    def _died(self, worker: subprocess.Popen[str]) -> Answer:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
            self._worker = None
            return {"result": "hung", "error": f"no answer in {PER_INPUT_S + 30:g} s"}
        self._worker = None
        code = worker.returncode
        cause = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
        return {"result": "crashed", "error": cause}
