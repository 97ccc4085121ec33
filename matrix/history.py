"""The matrix over time: a line per recorded run of a row, ``results/history.jsonl``.

Each line is a JSON object.  ``"kind": "row"``: one run of one row (its date,
the versions it had installed, the suite's commit and digest, a digest of the
corpus cases it ran, and its scores, counted from its cases).  ``"kind":
"interop"``: the headline interop number of the rows as they stood then
(``matrix/interop.toml`` names the readers).  Recording is idempotent: a
result already recorded (same row, same file digest) is not recorded again.

``python -m matrix.history append`` records the rows of ``results/`` now;
``python -m matrix.history seed`` rebuilds the file from every version of
``results/*.json`` in git's history, each dated by the commit that wrote it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import subprocess
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from matrix import envs

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping

__all__ = [
    "DATA",
    "FILE",
    "INVALID",
    "headline_readers",
    "interop_entry",
    "lines",
    "read",
    "record",
    "row_entry",
    "seed_from_git",
]

DATA: Final = Path(__file__).resolve().parent / "interop.toml"
FILE: Final = "history.jsonl"
# files under results/ that are not a row's result
_NOT_ROWS: Final = frozenset({"history"})
# the prefixes of the corpus's invalid cases: n_ breaks one rule, x_ several
# at once (judged on rejection alone); both must be refused
INVALID: Final = ("n_", "x_")


def _config() -> dict[str, Any]:
    return tomllib.loads(DATA.read_text("utf-8"))


def headline_readers() -> list[str]:
    """The rows whose agreement is the headline number (``interop.toml``)."""
    return list(_config()["headline"]["readers"])


def lines() -> dict[str, list[str]]:
    """Version lines: a title and its rows, oldest version first."""
    return {title: list(rows) for title, rows in _config()["lines"].items()}


def _share(cases: Mapping[str, Any], prefix: str | tuple[str, ...]) -> list[int]:
    picked = [
        c for k, c in cases.items() if k.startswith(prefix) and isinstance(c, dict)
    ]
    return [sum(c.get("ok") is True for c in picked), len(picked)]


def row_entry(
    name: str, result: Mapping[str, Any], digest: str, date: str
) -> dict[str, Any]:
    """The history line of one run of one row (``result``: its results/NAME.json)."""
    cases = result.get("cases") or {}
    described = (result.get("implementation") or {}).get("described") or {}
    environment = result.get("environment") or {}
    run = result.get("run") or {}
    return {
        "kind": "row",
        "row": name,
        "date": date,
        "result": digest,
        "title": (result.get("implementation") or {}).get("title"),
        "version": described.get("version"),
        "pins": environment.get("pins"),
        "suite_commit": (result.get("suite") or {}).get("commit"),
        "suite_digest": (result.get("inputs") or {}).get("suite"),
        "corpus_cases": hashlib.sha256("\n".join(sorted(cases)).encode()).hexdigest(),
        "complete": run.get("complete"),
        "setup_error": result.get("setup_error"),
        # [passed, total]: valid cases loaded correctly, invalid ones refused,
        # tolerated ones handled as the suite allows
        "valid": _share(cases, "y_"),
        "invalid": _share(cases, INVALID),
        "tolerated": _share(cases, "i_"),
    }


def interop_entry(
    rows: Mapping[str, Mapping[str, Any]], digests: Mapping[str, str], date: str
) -> dict[str, Any] | None:
    """The headline number over the readers present in ``rows`` (None: none present)."""
    present = [r for r in headline_readers() if r in rows and rows[r].get("cases")]
    if not present:
        return None
    all_cases = sorted({c for r in present for c in rows[r]["cases"]})

    def everyone(case: str, outcome: str) -> bool:
        return all(
            isinstance(e := rows[r]["cases"].get(case), dict)
            and e.get("ok") is True
            and e.get("outcome") == outcome
            for r in present
        )

    valid = [c for c in all_cases if c.startswith("y_")]
    invalid = [c for c in all_cases if c.startswith(INVALID)]
    key = "\n".join(f"{r} {digests[r]}" for r in present)
    return {
        "kind": "interop",
        "date": date,
        "readers": present,
        "missing": [r for r in headline_readers() if r not in present],
        "results": hashlib.sha256(key.encode()).hexdigest(),
        "valid_same": [sum(everyone(c, "accepted") for c in valid), len(valid)],
        "invalid_refused": [
            sum(everyone(c, "rejected") for c in invalid),
            len(invalid),
        ],
    }


def read(path: Path) -> list[dict[str, Any]]:
    """Every line of a history file (none if it does not exist)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def _key(entry: Mapping[str, Any]) -> tuple[str, str, str]:
    return (
        entry["kind"],
        entry.get("row", ""),
        entry.get("result") or entry["results"],
    )


def _append(path: Path, entries: Iterable[dict[str, Any]]) -> int:
    known = {_key(e) for e in read(path)}
    new = [e for e in entries if _key(e) not in known]
    if new:
        with path.open("a", encoding="utf-8") as out:
            for entry in new:
                # names may hold lone surrogates: ensure_ascii escapes them
                out.write(json.dumps(entry, sort_keys=True) + "\n")
    return len(new)


def _load(path: Path) -> tuple[dict[str, Any], str]:
    data = path.read_bytes()
    return json.loads(data), hashlib.sha256(data).hexdigest()


def record(
    folder: Path, names: Iterable[str] | None = None, date: str | None = None
) -> int:
    """Append the runs of ``names`` (default: all in ``folder``) and the headline.

    Returns the number of lines added.
    """
    when = date or dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    loaded = {
        p.stem: _load(p)
        for p in sorted(folder.glob("*.json"))
        if p.stem not in _NOT_ROWS
    }
    chosen = loaded if names is None else {n: loaded[n] for n in names if n in loaded}
    entries = [row_entry(n, r, d, when) for n, (r, d) in chosen.items()]
    rows = {n: r for n, (r, _) in loaded.items()}
    digests = {n: d for n, (_, d) in loaded.items()}
    headline = interop_entry(rows, digests, when)
    return _append(folder / FILE, [*entries, *([headline] if headline else [])])


def _git(*args: str) -> bytes:
    return subprocess.run(  # noqa: S603 - fixed arguments, our repository
        ["git", "-C", str(envs.REPO), *args],  # noqa: S607 - git from PATH, as envs
        capture_output=True,
        check=True,
    ).stdout


def _blobs(blob_ids: list[str]) -> Iterator[bytes]:
    """The contents of ``blob_ids``, in order, through one ``git cat-file``."""
    done = subprocess.run(  # noqa: S603 - fixed arguments, our repository
        ["git", "-C", str(envs.REPO), "cat-file", "--batch"],  # noqa: S607
        input="".join(f"{b}\n" for b in blob_ids).encode(),
        capture_output=True,
        check=True,
    ).stdout
    at = 0
    for _ in blob_ids:
        header_end = done.index(b"\n", at)
        size = int(done[at:header_end].split()[2])
        yield done[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1


def seed_from_git(path: Path, ref: str = "HEAD") -> int:
    """Write ``path`` anew from every committed results/*.json up to ``ref``."""
    log = _git(
        "log", "--reverse", "--format=@%cI", "--raw", "--no-abbrev", "--no-renames",
        ref, "--", "results/*.json",
    ).decode()  # fmt: skip
    commits: list[tuple[str, list[tuple[str, str]]]] = []
    for line in log.splitlines():
        if line.startswith("@"):
            commits.append((line[1:], []))
        elif line.startswith(":") and commits:
            meta, _, file = line.partition("\t")
            blob = meta.split()[3]
            name = Path(file).stem
            if Path(file).parent.name == "results" and name not in _NOT_ROWS:
                commits[-1][1].append((name, blob))
    path.unlink(missing_ok=True)
    added = 0
    rows: dict[str, dict[str, Any]] = {}
    digests: dict[str, str] = {}
    for date, changed in commits:
        live = [(n, b) for n, b in changed if set(b) != {"0"}]
        for n, b in changed:
            if set(b) == {"0"}:  # deleted in this commit
                rows.pop(n, None)
                digests.pop(n, None)
        entries = []
        for (name, _), data in zip(live, _blobs([b for _, b in live]), strict=True):
            rows[name] = json.loads(data)
            digests[name] = hashlib.sha256(data).hexdigest()
            entries.append(row_entry(name, rows[name], digests[name], date))
        headline = interop_entry(rows, digests, date)
        added += _append(path, [*entries, *([headline] if headline else [])])
    return added


def main(argv: list[str] | None = None) -> int:
    """``python -m matrix.history append|seed [--results DIR]``."""
    parser = argparse.ArgumentParser(
        prog="python -m matrix.history", description=__doc__
    )
    parser.add_argument("action", choices=("append", "seed"))
    parser.add_argument("--results", type=Path, default=envs.REPO / "results")
    args = parser.parse_args(argv)
    if args.action == "seed":
        added = seed_from_git(args.results / FILE)
    else:
        added = record(args.results)
    print(f"[matrix] {added} lines added to {args.results / FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
