#!/usr/bin/env python3
"""Build a seed folder that fits ``-max_len``: the corpus, findings, and shapes.

    python fuzz/seeds.py OUT [--max-len 8192] [--corpus corpus/files]

libFuzzer truncates every seed to ``-max_len``; a truncated safetensors file
claims more header than it holds, so it dies at HEADER-BOUNDS and seeds
nothing.  This copies the corpus files and past findings
(``fuzz/regressions/*/*``) that fit and adds small synthetic seeds for what
only big corpus files show: nesting past the depth limit, duplicates spelt
with escapes, surrogates, and inputs that are expensive for a super-linear
parser (long runs of out-of-range dimensions, many unknown members), each
sized to the limit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import struct
import sys
from pathlib import Path
from typing import Final

__all__ = ["main", "synthetic", "write_seeds"]

ROOT: Final = Path(__file__).resolve().parent.parent
_ENTRY: Final = '{"dtype":"F32","shape":[1],"data_offsets":[0,4]}'
_BUFFER: Final = b"\x00\x00\x80\x3f"


def _file(header: str, buffer: bytes = _BUFFER) -> bytes:
    raw = header.encode("utf-8", "surrogatepass")
    return struct.pack("<Q", len(raw)) + raw + buffer


def _deep(max_len: int) -> dict[str, bytes]:
    seeds = {}
    room = max(0, (max_len - 100) // 6)
    # The value sits inside the header and an entry (or the metadata): two
    # levels more, so the totals are 126-129 (the limit is 127), 1000, most.
    for total in sorted({126, 127, 128, 129, 1000, room}):
        depth = total - 2
        if total > room:
            continue
        arrays = "[" * depth + "]" * depth
        objects = '{"a":' * depth + "1" + "}" * depth
        entry = _ENTRY[:-1] + f',"deep":{arrays}}}'
        seeds[f"deep_arrays_{total}_in_entry"] = _file(f'{{"a":{entry}}}')
        seeds[f"deep_objects_{total}_in_metadata"] = _file(
            f'{{"__metadata__":{{"k":{objects}}},"a":{_ENTRY}}}'
        )
    return seeds


def _escapes() -> dict[str, bytes]:
    def meta(members: str) -> bytes:
        return _file(f'{{"__metadata__":{{{members}}},"a":{_ENTRY}}}')

    return {
        "escaped_duplicate_name": _file(f'{{"a":{_ENTRY},"\\u0061":{_ENTRY}}}'),
        "escaped_duplicate_field": _file(
            '{"a":{"dtype":"F32","\\u0064type":"I32","shape":[1],"data_offsets":[0,4]}}'
        ),
        "escaped_duplicate_metadata": meta('"k":"1","\\u006b":"2"'),
        "escaped_pair_duplicate_metadata": meta(
            '"\U0001f600":"1","\\ud83d\\ude00":"2"'
        ),
        "escaped_name_only": _file(f'{{"\\u0061\\u00e9":{_ENTRY}}}'),
        "lone_surrogate_name": _file(f'{{"\\ud800":{_ENTRY}}}'),
        "lone_surrogate_metadata": meta('"k":"\\udfff"'),
        "reversed_pair_metadata": meta('"k":"\\ude00\\ud83d"'),
        "non_bmp_name": _file(f'{{"\U0001d11e":{_ENTRY}}}'),
    }


def _costly(max_len: int) -> dict[str, bytes]:
    """Return inputs a quadratic parser spends seconds on, filling max_len."""
    room = max_len - 120
    dims = max(1, room // 21)
    shape = ",".join(["99999999999999999999"] * dims)
    names = max(1, room // 60)
    unknown = max(1, (room // 3) // 9)
    members = ",".join(f'"u{i}":0' for i in range(unknown))
    entries = ",".join(
        f'"t{i}":{{"dtype":"X","shape":[1],"data_offsets":[0,1]}}' for i in range(names)
    )
    return {
        "many_out_of_range_dims": _file(
            f'{{"a":{{"dtype":"F32","shape":[{shape}],"data_offsets":[0,4]}}}}'
        ),
        "long_name_many_unknown": _file(
            f'{{"{"n" * (room // 3)}":{{"dtype":"F32","shape":[1],'
            f'"data_offsets":[0,4],{members}}}}}'
        ),
        "non_ascii_many_bad_dtypes": _file(f'{{"\u00e9":{_ENTRY},{entries}}}'),
    }


def synthetic(max_len: int) -> dict[str, bytes]:
    """Return the synthetic seeds, by name, each at most ``max_len`` bytes."""
    seeds = {**_deep(max_len), **_escapes(), **_costly(max_len)}
    return {name: data for name, data in seeds.items() if len(data) <= max_len}


def write_seeds(out: Path, max_len: int, sources: list[Path]) -> dict[str, int]:
    """Fill ``out``; return counts of copied, skipped (too long) and synthetic."""
    out.mkdir(parents=True, exist_ok=True)
    counts = {"copied": 0, "too_long": 0, "synthetic": 0}
    for source in sources:
        files = (
            sorted(p for p in source.rglob("*") if p.is_file())
            if source.is_dir()
            else []
        )
        for path in files:
            if path.name == "OPEN":  # the list of open findings, not an input
                continue
            if path.stat().st_size > max_len:
                counts["too_long"] += 1
                continue
            shutil.copyfile(path, out / f"{path.parent.name}-{path.name}")
            counts["copied"] += 1
    for name, data in synthetic(max_len).items():
        digest = hashlib.sha1(data).hexdigest()[:8]  # noqa: S324 - a file name
        (out / f"synthetic-{name}-{digest}").write_bytes(data)
        counts["synthetic"] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    """Command line: write the seeds and print the counts as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--max-len", type=int, default=8192)
    parser.add_argument("--corpus", type=Path, default=ROOT / "corpus" / "files")
    parser.add_argument(
        "--regressions", type=Path, default=ROOT / "fuzz" / "regressions"
    )
    args = parser.parse_args(argv)
    counts = write_seeds(args.out, args.max_len, [args.corpus, args.regressions])
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
