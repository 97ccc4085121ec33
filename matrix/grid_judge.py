"""The interop grid's verdicts: on a writer's file, and on a reader's answer.

``judge`` says whether a writer's file is its fault (it breaks the spec, or
holds something other than the request) and what the reference reads from
it; ``cell`` gives one reader's verdict on one file against that.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any, Final

import stspec
from matrix.scrub import scrub

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from matrix.grid_requests import Request

__all__ = ["FAILURES", "Answer", "cell", "compare", "judge"]

Answer = dict[str, Any]
FAILURES: Final = ("refused", "different", "crashed", "hung", "invalid-output")


def _digest(data: object) -> str:
    return hashlib.sha256(memoryview(data).cast("B")).hexdigest()  # type: ignore[arg-type]


def _as_answer(request: Request) -> Answer:
    return {
        "result": "accepted",
        "metadata": request.metadata,
        "tensors": {
            name: [dtype, list(shape), _digest(data)]
            for name, (dtype, shape, data) in request.tensors.items()
        },
    }


def _extent(path: Path, infos: Sequence[stspec.TensorInfo]) -> dict[str, int]:
    """How far a valid file reaches, by the name of each limit a reader may declare.

    The declarable implementation limits of SPEC 1.6, measured as the suite
    measures them: only on a file the reference has read.
    """
    dims = [dim for info in infos for dim in info.shape]
    with path.open("rb") as file:
        header = int.from_bytes(file.read(8), "little")
    return {
        "max_file_size": path.stat().st_size,
        "max_header_size": header,
        "max_tensor_size": max((info.nbytes for info in infos), default=0),
        "max_tensors": len(infos),
        "max_name_length": max(
            (len(i.name.encode("utf-8", "surrogatepass")) for i in infos), default=0
        ),
        "max_rank": max((len(info.shape) for info in infos), default=0),
        "max_dimension": max(dims, default=0),
        "max_number": max(
            [*dims, *(v for i in infos for v in (i.begin, i.end))], default=0
        ),
    }


def judge(path: Path, request: Request) -> tuple[str, Answer | None]:
    """What the reference reads from a written file: (the writer's fault or "", it).

    What it read also holds the file's ``extent`` (see ``_extent``).
    """
    try:
        with stspec.read(path, mapped=False) as st:
            truth: Answer = {
                "result": "accepted",
                "metadata": st.metadata,
                "tensors": {
                    name: [info.dtype, list(info.shape), _digest(st.tensor_bytes(name))]
                    for name, info in st.tensors.items()
                },
                "extent": _extent(path, list(st.tensors.values())),
            }
    except stspec.SafetensorsError as exc:
        return f"wrote an invalid file: {exc}", None
    differed = compare(_as_answer(request), truth, {"metadata_presence": True})
    if differed:
        return f"wrote something other than the request: {differed}", truth
    return "", truth


def _few(names: Sequence[str]) -> str:
    shown = ", ".join(repr(n) for n in sorted(names)[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def compare(expected: Answer, got: Answer, caps: dict[str, Any]) -> str:
    """How ``got`` differs from ``expected`` ("" if it does not), as ``caps`` allow.

    Order does not count (a reader may list tensors in any order); bytes are
    compared where the reader gave them, metadata where it reads metadata,
    and an absent ``__metadata__`` equals ``{}`` for a reader that cannot
    tell them apart (``metadata_presence``).
    """
    want, have = expected.get("tensors") or {}, got.get("tensors") or {}
    found = []
    if missing := set(want) - set(have):
        found.append(f"tensors missing: {_few(list(missing))}")
    if extra := set(have) - set(want):
        found.append(f"tensors not in the file: {_few(list(extra))}")
    for name in sorted(set(want) & set(have)):
        dtype, shape, digest = want[name]
        other_dtype, other_shape, other_digest = have[name]
        if dtype != other_dtype:
            found.append(f"{name!r} dtype {other_dtype!r}, not {dtype!r}")
        if list(shape) != (
            list(other_shape) if isinstance(other_shape, list) else other_shape
        ):
            found.append(f"{name!r} shape {other_shape}, not {list(shape)}")
        gave_bytes = isinstance(other_digest, str) and not other_digest.startswith(
            "windows:"
        )
        if gave_bytes and digest != other_digest:
            found.append(f"{name!r} bytes differ")
    if caps.get("metadata", True):
        meta, other = expected.get("metadata"), got.get("metadata")
        if not caps.get("metadata_presence", False):
            meta, other = meta or {}, other or {}
        if meta != other:
            found.append(
                f"metadata {json.dumps(other)[:120]}, not {json.dumps(meta)[:120]}"
            )
    return "; ".join(found[:4]) + ("; ..." if len(found) > 4 else "")


def cell(
    answer: Answer | None, truth: Answer, request: Request, caps: dict[str, Any]
) -> dict[str, str]:
    """One reader's verdict on one good file: ``{"verdict", "detail"}``.

    ``truth`` is what the reference read from the file; ``caps`` the reader's
    declaration.  A file holding a dtype outside ``read_dtypes``, or beyond a
    limit the reader declares, is outside its declaration: refusing it is no
    failure, nor is an exception its runtime raised on it (as the suite
    judges one); a process that died or hung on it still failed.
    """
    if answer is None:
        return {"verdict": "crashed", "detail": "no answer"}
    result = answer.get("result")
    if result == "accepted":
        differed = compare(truth, answer, caps)
        return (
            {"verdict": "different", "detail": differed}
            if differed
            else {"verdict": "same", "detail": ""}
        )
    error = scrub(str(answer.get("error") or ""))[:300]
    outside = _outside(request, truth, caps)
    if result == "rejected":
        if outside:
            return {"verdict": "refused-declared", "detail": f"{outside}: {error}"}
        return {"verdict": "refused", "detail": error}
    if result == "crashed" and outside and _raised(error):
        return {"verdict": "refused-declared", "detail": f"{outside}: raised {error}"}
    verdict = result if result in {"hung", "invalid-output"} else "crashed"
    return {"verdict": verdict, "detail": error}


# how matrix.probe words a process that died rather than raised
_DIED: Final = ("killed by signal", "exit status")


def _raised(error: str) -> bool:
    """Whether a crash is an exception the reader's runtime raised and caught."""
    return bool(error) and not error.startswith(_DIED)


def _outside(request: Request, truth: Answer, caps: dict[str, Any]) -> str:
    """How the file lies outside the reader's declaration ("" if it does not)."""
    declared = caps.get("read_dtypes")
    if declared is not None and not request.dtypes <= set(declared):
        return f"declares no {', '.join(sorted(request.dtypes - set(declared)))}"
    return _beyond(truth.get("extent") or {}, caps)


def _beyond(extent: dict[str, int], caps: dict[str, Any]) -> str:
    """The first limit ``caps`` declares that the file goes beyond ("" if none)."""
    for key, size in extent.items():
        limit = caps.get(key)
        if isinstance(limit, int) and size > limit:
            return f"declares {key} {limit:,} (this file: {size:,})"
    return ""
