"""Ask one implementation what it loads from each file, directly (not the suite).

The suite says whether a reader accepted a file and whether the content was
the expected one; it does not keep what an accepting reader loaded from an
invalid file.  Parser differentials need exactly that: two readers that both
accept one file but load different tensors.  ``probe(impl, files)`` calls the
implementation's wrapper on each file (Python wrappers through
``wrappers/_probe.py`` inside the implementation's environment, ``cmd:``
programs one process per file) and returns, per file, the outcome and for an
accepted file each tensor's dtype, shape and sha256 (None when the reader
gives no bytes).  Each process runs under the implementation's memory limit
(``RLIMIT_DATA``).  A fuzzing campaign can use the same calls.

An answer is JSON, and a lenient reader may echo what a file holds, nested as
deep as the file nests it.  That is content, not a fault of the reader: such
an answer is decoded like any other (``decode``), with every value nested
deeper than ``MAX_DEPTH`` levels replaced by a string that names its depth,
length and digest, so the probe, the results files and their renderers never
recurse deeper than that.  An answer that is not JSON at all is the
``invalid-output`` outcome.
"""

from __future__ import annotations

import hashlib
import json
import re
import resource
import subprocess
from typing import TYPE_CHECKING, Any, Final

from matrix import envs
from matrix.crash_line import crash_line
from matrix.scrub import scrub

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

    from matrix.impls import Impl

__all__ = [
    "DIFFERENCES",
    "KEPT_TENSORS",
    "MAX_DEPTH",
    "Answer",
    "declared_but_refused",
    "decode",
    "difference",
    "differs",
    "probe",
    "probe_cmd",
    "probe_node",
    "probe_python",
    "stated",
]

Answer = dict[str, Any]
PER_FILE_S: Final = 20
# results/NAME.json keeps the first tensors by name of each answer
KEPT_TENSORS: Final = 16
_WRAPPERS: Final = envs.REPO / "matrix" / "wrappers"
# Deeper than any valid header nests (JSON-DEPTH: 127 levels) plus the answer's
# own levels; shallow enough that results/NAME.json, written with indentation
# by json's Python encoder, stays far from the interpreter's recursion limit.
MAX_DEPTH: Final = 200
# A string (escapes included) or one bracket: what decides nesting depth.
_TOKEN: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


def decode(text: str) -> Any:  # noqa: ANN401 - any JSON value
    """``json.loads``, with values nested deeper than MAX_DEPTH summarised.

    A value that opens at depth MAX_DEPTH becomes the string
    ``"<JSON nested N levels below depth MAX_DEPTH: L characters, sha256 H>"``
    (N its own depth, L and H of its text).  ValueError: not JSON.  The
    summarised text is not parsed, so its own syntax is not checked: the probe
    keeps no content that deep, and a wrong verdict cannot hide there.
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return json.loads(text)  # cannot be too deep: no scan
    return json.loads(_summarise_deep(text))


def _summarise_deep(text: str) -> str:
    pieces: list[str] = []
    kept = 0  # text[:kept] is in pieces
    depth = deepest = start = 0
    for token in _TOKEN.finditer(text):
        char = token.group()
        if char in ("[", "{"):
            depth += 1
            if depth == MAX_DEPTH + 1:
                start, deepest = token.start(), depth
            deepest = max(deepest, depth)
        elif char in ("]", "}"):
            depth -= 1
            if depth == MAX_DEPTH:
                deep = text[start : token.end()]
                digest = hashlib.sha256(deep.encode("utf-8", "replace")).hexdigest()
                summary = (
                    f"<JSON nested {deepest - MAX_DEPTH} levels below depth "
                    f"{MAX_DEPTH}: {len(deep)} characters, sha256 {digest[:16]}>"
                )
                pieces += [text[kept:start], json.dumps(summary)]
                kept = token.end()
    if depth > MAX_DEPTH:
        raise ValueError(f"a value opened at character {start} is never closed")
    return "".join([*pieces, text[kept:]])


def _limit(mib: int) -> Callable[[], None]:
    # RLIMIT_DATA, as the suite's limits: it counts what a process can write
    # (a hostile allocation fails), not address space merely reserved (a mapped
    # 4 GiB file, WebAssembly's guard regions in Node).
    def apply() -> None:  # in the child, between fork and exec
        size = mib * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_DATA, (size, size))

    return apply


def probe_python(
    impl: Impl, files: list[str], python: Path | None = None
) -> dict[str, Answer]:
    """Run the wrapper's ``load`` on every file, restarting after a death.

    ``python``: this interpreter instead of the implementation's environment.
    """
    wrapper = str(_WRAPPERS / (impl.probe or impl.wrapper))
    interpreter = str(python or envs.python_of(impl.name))
    return _batched(impl, [interpreter, str(_WRAPPERS / "_probe.py"), wrapper], files)


def probe_node(impl: Impl, files: list[str]) -> dict[str, Answer]:
    """The Node wrapper's ``--each`` mode: one process for all files."""
    return _batched(impl, ["node", str(_WRAPPERS / impl.wrapper), "--each"], files)


def _batched(impl: Impl, argv: list[str], files: list[str]) -> dict[str, Answer]:
    """Run ``argv FILE...`` (one JSON line per file), restarting after a death."""
    env = envs.run_env(impl)
    env["PYTHONPATH"] += ":" + str(_WRAPPERS)
    answers: dict[str, Answer] = {}
    todo = list(files)
    while todo:
        done = subprocess.run(  # noqa: S603
            [*argv, *todo],
            capture_output=True,
            text=True,
            env=env,
            cwd=envs.REPO,
            timeout=PER_FILE_S * len(todo) + 60,
            preexec_fn=_limit(impl.memory_limit_mib),
            check=False,
        )
        for line in done.stdout.splitlines():
            try:
                answer = decode(line)
            except ValueError:  # a library printing to stdout; not an answer
                continue
            if not isinstance(answer, dict) or answer.get("file") not in todo:
                continue
            if isinstance(answer.get("tensors"), dict):
                answer["tensors"] = _normal(answer["tensors"])
            answers[answer["file"]] = answer
        todo = [f for f in todo if f not in answers]
        if todo:  # the process died on todo[0]
            code = done.returncode
            cause = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
            # without stack frames, the last line names what was raised
            said = crash_line(scrub(done.stderr))
            answers[todo[0]] = {
                "file": todo[0],
                "result": "crashed",
                "error": f"{cause}: {said}"[:300],
            }
            todo = todo[1:]
    return answers


def _plain(value: object) -> object:
    """An int stays an int, a string a string; anything else its JSON text.

    Readers that pass through what the header holds give dtypes like
    ``{"F32": null}`` and dimensions like ``"1"`` or ``true``; in this form
    they compare equal across languages and never equal a real dtype or size.
    """
    if isinstance(value, str) or (
        isinstance(value, int) and not isinstance(value, bool)
    ):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def _normal(tensors: dict[str, Any]) -> dict[str, list[Any]]:
    out = {}
    for name, info in tensors.items():
        if isinstance(info, dict):  # the command protocol's form
            digest = info.get("sha256")
            if digest is None and "hex" in info:
                digest = hashlib.sha256(bytes.fromhex(info["hex"])).hexdigest()
            if digest is None and "windows" in info:
                digest = "windows:" + json.dumps(info["windows"])
            dtype, shape = info.get("dtype"), info.get("shape")
        else:  # _probe.py's [dtype, shape, digest]
            dtype, shape, digest = info
        dims = [_plain(d) for d in shape] if isinstance(shape, list) else _plain(shape)
        out[str(name)] = [_plain(dtype), dims, digest]
    return out


def probe_cmd(impl: Impl, files: list[str]) -> dict[str, Answer]:
    """Run the program once per file and read its protocol-2 answer."""
    program = envs.REPO / "matrix" / "wrappers" / impl.wrapper
    argv = (
        ["node", str(program)]
        if impl.wrapper.endswith(".mjs")
        else [str(envs.env_dir(impl.name) / "bin" / impl.wrapper)]
    )
    env = envs.run_env(impl)
    answers: dict[str, Answer] = {}
    for path in files:
        try:
            done = subprocess.run(  # noqa: S603
                [*argv, path],
                capture_output=True,
                text=True,
                env=env,
                timeout=PER_FILE_S,
                preexec_fn=_limit(impl.memory_limit_mib),
                check=False,
            )
        except subprocess.TimeoutExpired:
            answers[path] = {"file": path, "result": "hung"}
            continue
        answers[path] = _cmd_answer(path, done)
    return answers


def _cmd_answer(path: str, done: subprocess.CompletedProcess[str]) -> Answer:
    """The protocol-2 answer: accepted, rejected, invalid-output or crashed."""
    try:
        body = decode(done.stdout)
    except ValueError:
        body = None
    if done.returncode == 0 and isinstance(body, dict):
        tensors = body.get("tensors")
        if isinstance(tensors, dict):
            return {
                "file": path,
                "result": "accepted",
                "metadata": body.get("metadata"),
                "tensors": _normal(tensors),
            }
    if (
        done.returncode == 1
        and isinstance(body, dict)
        and body.get("result") == "rejected"
    ):
        return {"file": path, "result": "rejected", "error": body.get("reason")}
    code = done.returncode
    if code == 0:  # it finished, but its answer says nothing the protocol defines
        shown = done.stdout.strip()[:200]
        return {"file": path, "result": "invalid-output", "error": shown}
    cause = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
    # a native program's panic, not the backtrace hint or frame below it
    said = crash_line(scrub(done.stderr))
    return {"file": path, "result": "crashed", "error": f"{cause}: {said}"[:300]}


def probe(
    impl: Impl, files: Iterable[Path], python: Path | None = None
) -> dict[str, Answer]:
    """What ``impl`` makes of each file, keyed by the file's stem (the case id)."""
    paths = [str(p) for p in files]
    if impl.kind == "python":
        answers = probe_python(impl, paths, python)
    elif impl.wrapper.endswith(".mjs"):
        answers = probe_node(impl, paths)
    else:
        answers = probe_cmd(impl, paths)
    for answer in answers.values():
        # what a library says may name the file it was given: kept is its name
        if isinstance(answer.get("error"), str):
            answer["error"] = scrub(answer["error"])
    return {path.rsplit("/", 1)[-1].removesuffix(".safetensors"): answers[path]
            for path in paths}  # fmt: skip


# What two accepting readers can disagree on, most dangerous first.
DIFFERENCES: Final = ("bytes", "names", "dtype", "shape")


def _dims(shape: object) -> object:
    """A shape as a list, or as given when a reader passed a non-list through."""
    return list(shape) if isinstance(shape, list | tuple) else shape


def difference(a: Answer, b: Answer) -> str | None:
    """How two accepting readers' tensors differ (a name from DIFFERENCES), or None.

    Bytes are compared where both readers gave them (a header-only validator
    gives none); the most dangerous difference found is named.
    """
    ta, tb = a.get("tensors") or {}, b.get("tensors") or {}
    found: set[str] = set()
    if set(ta) != set(tb):
        found.add("names")
    for name in set(ta) & set(tb):
        dtype, shape, digest = ta[name]
        other_dtype, other_shape, other_digest = tb[name]
        if dtype != other_dtype:
            found.add("dtype")
        if _dims(shape) != _dims(other_shape):
            found.add("shape")
        if digest and other_digest and digest != other_digest:
            found.add("bytes")
    return next((kind for kind in DIFFERENCES if kind in found), None)


def differs(a: Answer, b: Answer) -> bool:
    """Whether two accepting readers loaded different tensors."""
    return difference(a, b) is not None


def stated(case: dict[str, Any]) -> Answer | None:
    """What a valid corpus case states (its manifest entry), as a probe answer.

    None for other cases.  Trimmed to the tensors results/ keeps, so that
    ``differs(stated(case), answer)`` says whether a reader loaded it right.
    """
    expected = case.get("expected")
    if case.get("verdict") != "valid" or not isinstance(expected, dict):
        return None
    tensors = sorted(expected.get("tensors", {}).items())[:KEPT_TENSORS]
    return {
        "result": "accepted",
        "tensors": {
            name: [info["dtype"], [int(d) for d in info["shape"]], info["sha256"]]
            for name, info in tensors
        },
    }


def declared_but_refused(
    result: dict[str, Any], manifest: dict[str, dict[str, Any]]
) -> dict[str, list[str]]:
    """Each dtype a row declares it reads but its library refused, with the files.

    A dtype counts as read when the probe's answer for at least one valid
    corpus file holding that dtype alone (its only ``dtype:`` tag) is
    ``accepted``; a declared dtype with such files, all refused or failed,
    is a declaration the library contradicts.
    """
    described = result.get("implementation", {}).get("described") or {}
    declared = (described.get("capabilities") or {}).get("read_dtypes") or []
    probed = result.get("probe", {})
    files: dict[str, list[str]] = {}
    for case_id, case in manifest.items():
        dtypes = [t for t in case.get("tags", []) if t.startswith("dtype:")]
        if case.get("verdict") == "valid" and len(dtypes) == 1 and case_id in probed:
            files.setdefault(dtypes[0].removeprefix("dtype:"), []).append(case_id)
    return {
        dtype: sorted(files[dtype])
        for dtype in declared
        if files.get(dtype)
        and all(probed[c].get("result") != "accepted" for c in files[dtype])
    }
