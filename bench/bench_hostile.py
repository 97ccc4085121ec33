"""Hostile headers: stspec.read vs HF safetensors 0.8.0, measured in one run.

Run: python bench/bench_hostile.py [--mb 4] [--only NAME ...] [--validate]

Builds one file per family with a header of about ``--mb`` megabytes (100 for
the real measurement; the HEADER-LIMIT is 100,000,000 bytes), then opens each
with stspec and with HF ``safe_open`` in separate child processes (one at a
time, stspec first then HF, ``--repeat`` rounds) and prints CPU seconds
(user + system of the child, from ``os.wait4``) and peak RSS of each, and
the ratios stspec / HF.  An interpreter that only imported the library is
measured too (``baseline``), so that small files can be judged.  The stspec
measured is a byte-compiled copy, as pip installs it (HF's package is
compiled too); otherwise every child compiles the sources, e.g. under
PYTHONDONTWRITEBYTECODE.  Not run in CI: timings belong in a benchmark, not
in a test.
"""

from __future__ import annotations

import argparse
import compileall
import itertools
import json
import os
import random
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

LIMIT = 100_000_000  # HEADER-LIMIT
ENTRY = '{{"dtype":"{dtype}","shape":[{shape}],"data_offsets":[{begin},{end}]}}'


def _file(members: Iterator[str], data: bytes = b"") -> bytes:
    header = ("{" + ",".join(members) + "}").encode()
    header += b" " * (-len(header) % 8)
    return struct.pack("<Q", len(header)) + header + data


def _entry(dtype: str, shape: str, begin: int, end: int) -> str:
    return ENTRY.format(dtype=dtype, shape=shape, begin=begin, end=end)


def _count(size: int, per_item: int) -> int:
    return max(1, size // per_item)


def _with_members(entry: str, members: str) -> str:
    """``entry`` (an entry object's text) with ``members`` added at its end."""
    return f"{entry[:-1]},{members}}}"


def _layer(i: int) -> str:
    return f"model.layers.{i}.weight"


def _layers(
    size: int,
    per_item: int,
    entry: Callable[[int], str],
    *,
    name: Callable[[int], str] = _layer,
    first: tuple[str, ...] = (),
) -> bytes:
    """Tensors F32 [2], 8 bytes each, named like a real model's.

    ``entry(i)`` writes the i-th tensor's entry, ``name(i)`` its name;
    ``first`` are members placed before the tensors.
    """
    n = _count(size, per_item)
    members = (f'"{name(i)}":{entry(i)}' for i in range(n))
    return _file(itertools.chain(first, members), bytes(8 * n))


def _canonical(i: int) -> str:
    return _entry("F32", "2", 8 * i, 8 * i + 8)


def _in_order(*fields: str) -> Callable[[int], str]:
    """Write valid_tiny's i-th entry with its fields in the order given."""
    text = {
        "dtype": '"dtype":"F32"',
        "shape": '"shape":[2]',
        "data_offsets": '"data_offsets":[{0},{1}]',
    }
    template = "{{" + ",".join(text[field] for field in fields) + "}}"
    return lambda i: template.format(8 * i, 8 * i + 8)


# Families: each takes the wanted header size in bytes and returns the file.


def valid_tiny(size: int) -> bytes:
    """Tensors F32 [2] named like a real model's (the 1 M-tensor file at 65 MB)."""
    return _layers(size, 66, _canonical)


def valid_minus_zero(size: int) -> bytes:
    """valid_tiny with one tensor named w-0 (once a trip to the slow path)."""
    return _layers(size, 66, _canonical, name=lambda i: "w-0" if i == 5 else _layer(i))


def valid_emoji(size: int) -> bytes:
    """valid_tiny with an escaped emoji in the metadata."""
    meta = '"__metadata__":{"note":"\\ud83d\\ude00"}'
    return _layers(size, 66, _canonical, first=(meta,))


def valid_pretty(size: int) -> bytes:
    """valid_tiny pretty-printed (json.dumps indent=1)."""
    n = _count(size, 120)
    header = {
        _layer(i): {"dtype": "F32", "shape": [2], "data_offsets": [8 * i, 8 * i + 8]}
        for i in range(n)
    }
    text = json.dumps(header, indent=1).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + bytes(8 * n)


def valid_sorted_keys(size: int) -> bytes:
    """valid_tiny as json.dumps(sort_keys=True) writes it: data_offsets first."""
    return _layers(size, 66, _in_order("data_offsets", "dtype", "shape"))


def valid_escaped_fields(size: int) -> bytes:
    r"""valid_tiny with its field names escaped ("\u0064type" is "dtype")."""
    return _layers(
        size,
        86,
        lambda i: (
            f'{{"\\u0064type":"F32","\\u0073hape":[2],'
            f'"data\\u005foffsets":[{8 * i},{8 * i + 8}]}}'
        ),
    )


def valid_any_order(size: int) -> bytes:
    """valid_tiny with its fields in neither the canonical nor the sorted order."""
    return _layers(size, 66, _in_order("shape", "data_offsets", "dtype"))


def escaped_metadata(size: int) -> bytes:
    """One metadata value holding JSON as text, as kohya's ss_* keys do."""
    n = _count(size, 40)
    blob = json.dumps({f"tag {i}": f'a "quoted" {i}' for i in range(n)})
    meta = json.dumps({"ss_tag_frequency": blob})
    return _file(
        iter([f'"__metadata__":{meta}', f'"t":{_entry("U8", "1", 0, 1)}']), b"x"
    )


def duplicate_names(size: int) -> bytes:
    """One name repeated (KEY-UNIQUE; HF accepts, last wins)."""
    n = _count(size, 52)
    return _file((f'"a":{_entry("U8", "1", 0, 1)}' for _ in range(n)), b"x")


def overlapping(size: int) -> bytes:
    """Every tensor on the same byte (LAYOUT-OVERLAP)."""
    n = _count(size, 58)
    return _file((f'"t{i}":{_entry("U8", "1", 0, 1)}' for i in range(n)), b"x")


def deep_entries(size: int) -> bytes:
    """Every entry has an unknown member nested 62 deep (allowed)."""
    deep = "[" * 62 + "]" * 62
    n = _count(size, 185)
    unknown = f'"x":{deep}'
    members = (
        f'"t{i}":{_with_members(_entry("U8", "1", i, i + 1), unknown)}'
        for i in range(n)
    )
    return _file(members, bytes(n))


def deep_siblings(size: int) -> bytes:
    """One unknown member holding many sibling arrays 62 deep."""
    deep = "[" * 61 + "]" * 61
    n = _count(size, 123)
    inner = ",".join(deep for _ in range(n))
    unknown = f'"x":[{inner}]'
    entry = _with_members(_entry("U8", "1", 0, 1), unknown)
    return _file(iter([f'"t":{entry}']), b"x")


def unknown_fields(size: int) -> bytes:
    """One entry with many distinct unknown members."""
    n = _count(size, 11)
    extra = ",".join(f'"k{i}":0' for i in range(n))
    return _file(iter([f'"t":{_with_members(_entry("U8", "1", 0, 1), extra)}']), b"x")


def unknown_fields_shuffled(size: int) -> bytes:
    """unknown_fields with its names in no order (as a set must hold them)."""
    names = [f"k{i}" for i in range(_count(size, 11))]
    random.Random(0).shuffle(names)  # noqa: S311 - a fixed order, not a secret
    extra = ",".join(f'"{name}":0' for name in names)
    return _file(iter([f'"t":{_with_members(_entry("U8", "1", 0, 1), extra)}']), b"x")


def bad_dtypes(size: int) -> bytes:
    """Every entry has an unknown dtype (DTYPE-NAME)."""
    n = _count(size, 55)
    return _file((f'"t{i}":{_entry("X", "1", i, i + 1)}' for i in range(n)), bytes(n))


def bad_dtypes_non_ascii(size: int) -> bytes:
    """bad_dtypes plus one non-ASCII name (once quadratic: offsets by re-encoding)."""
    n = _count(size, 55)
    members = (
        f'"{"é" if i == 0 else f"t{i}"}":{_entry("X", "1", i, i + 1)}' for i in range(n)
    )
    return _file(members, bytes(n))


def huge_dimensions(size: int) -> bytes:
    """One shape of 20-digit dimensions above 2^64-1 (once quadratic)."""
    n = _count(size, 21)
    shape = ",".join("99999999999999999999" for _ in range(n))
    return _file(iter([f'"t":{_entry("U8", shape, 0, 0)}']))


def long_name_unknown(size: int) -> bytes:
    """Give a name of half the header many unknown members (once quadratic)."""
    name = "n" * (size // 2)
    n = _count(size // 2, 11)
    extra = ",".join(f'"k{i}":0' for i in range(n))
    entry = _with_members(_entry("U8", "1", 0, 1), extra)
    return _file(iter([f'"{name}":{entry}']), b"x")


def long_name_bad_dims(size: int) -> bytes:
    """Entries with a 20 KB name and 10,000 dimensions that are strings."""
    shape = ",".join('"x"' for _ in range(10_000))
    n = _count(size, 50_000)
    members = (
        f'"{i:08d}{"n" * 20_000}":{_entry("U8", shape, i, i + 1)}' for i in range(n)
    )
    return _file(members, bytes(n))


def lone_surrogates(size: int) -> bytes:
    """Metadata values that are lone surrogate escapes (JSON-SURROGATE)."""
    n = _count(size, 18)
    meta = ",".join(f'"{i}":"\\ud800"' for i in range(n))
    return _file(iter([f'"__metadata__":{{{meta}}}']))


def nesting_bomb(size: int) -> bytes:
    """Arrays nested far past the limit (JSON-DEPTH)."""
    n = size // 2
    return _file(iter([f'"t":{"[" * n}{"]" * n}']))


FAMILIES: dict[str, Callable[[int], bytes]] = {
    f.__name__: f
    for f in (
        valid_tiny,
        valid_minus_zero,
        valid_emoji,
        valid_pretty,
        valid_sorted_keys,
        valid_escaped_fields,
        valid_any_order,
        escaped_metadata,
        duplicate_names,
        overlapping,
        deep_entries,
        deep_siblings,
        unknown_fields,
        unknown_fields_shuffled,
        bad_dtypes,
        bad_dtypes_non_ascii,
        huge_dimensions,
        long_name_unknown,
        long_name_bad_dims,
        lone_surrogates,
        nesting_bomb,
    )
}

# Peak RSS as the kernel keeps it for this process image: ru_maxrss would also
# count the parent's pages a child shares until it execs.
_PEAK = """
with open("/proc/self/status") as status:
    print(next(line.split()[1] for line in status if line.startswith("VmHWM")))
"""

CHILD = {
    "stspec": """
import sys, stspec
if sys.argv[1] != "-":
    try:
        with stspec.read(sys.argv[1]) as f:
            f.tensors, f.metadata
            print("accepted")
    except stspec.SafetensorsError as e:
        print("rejected", e.rule)
""",
    "validate": """
import sys, stspec
if sys.argv[1] != "-":
    found = stspec.validate(sys.argv[1])
    print("rejected" if found else "accepted", found.total)
""",
    "hf": """
import sys
from safetensors import safe_open
if sys.argv[1] != "-":
    try:
        with safe_open(sys.argv[1], framework="numpy") as f:
            f.keys(), f.metadata()
            print("accepted")
    except Exception as e:
        print("rejected", type(e).__name__)
""",
    # The least any reader that finds a repeated member name (KEY-UNIQUE)
    # among names in no order does in CPython, validating nothing: read the
    # file, decode the header, split it once at the piece between two names
    # (sys.argv[2]), hold the pieces in a set.  Measured beside the families
    # whose cost is that set (FLOORS).
    "names": """
import sys
if sys.argv[1] != "-":
    with open(sys.argv[1], "rb") as file:
        data = file.read()
    text = str(data[8 : 8 + int.from_bytes(data[:8], "little")], "utf-8")
    del data
    names = set(text.split(sys.argv[2]))
    print("names", len(names))
""",
}
CHILD = {tool: code + _PEAK for tool, code in CHILD.items()}
# Families whose floor is the set of their member names (see CHILD["names"]),
# with the piece between two names; names in a few ascending runs are sorted
# instead, at less than that cost.
FLOORS = {"unknown_fields_shuffled": '":0,"'}


STSPEC_PATH: list[str] = []  # --stspec-path: measure another checkout
MEMORY_CAP: list[int] = []  # --cap-gb: address-space limit of each child


def _capped() -> None:
    if MEMORY_CAP:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP[0], MEMORY_CAP[0]))


def _run(tool: str, path: str, *args: str) -> tuple[float, float, str]:
    """CPU seconds and peak RSS (MB) of one child, and its verdict."""
    env = dict(os.environ)
    if tool != "hf":
        env["PYTHONPATH"] = os.pathsep.join([*STSPEC_PATH, env.get("PYTHONPATH", "")])
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(  # noqa: S603 - our own interpreter and script
            [sys.executable, "-c", CHILD[tool], path, *args],
            stdout=out,
            env=env,
            preexec_fn=_capped,  # noqa: PLW1509 - only setrlimit, before exec
        )
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        lines = out.read().decode().split("\n")
    if child.returncode or len(lines) < 2:
        return usage.ru_utime + usage.ru_stime, 0.0, f"exit {child.returncode}"
    verdict = lines[-3] if len(lines) > 2 else ""
    return usage.ru_utime + usage.ru_stime, int(lines[-2]) / 1024, verdict


def main() -> int:
    """Build each family, run the tools, print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=4.0, help="header size in MB")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", nargs="*", choices=sorted(FAMILIES))
    parser.add_argument("--validate", action="store_true", help="also time validate()")
    parser.add_argument(
        "--stspec-path", help="import stspec from this folder (e.g. an old checkout)"
    )
    parser.add_argument(
        "--cap-gb",
        type=float,
        default=8.0,
        help="address-space limit per child, so a shared machine survives",
    )
    args = parser.parse_args()
    MEMORY_CAP.append(int(args.cap_gb * 2**30))
    with tempfile.TemporaryDirectory() as site:
        STSPEC_PATH.append(_compiled_copy(args.stspec_path, Path(site)))
        return _measure(args)


def _compiled_copy(source: str | None, site: Path) -> str:
    """Copy the stspec package to measure into ``site``, byte-compiled."""
    if source is None:
        import stspec  # noqa: PLC0415 - only to find the installed package

        package = Path(stspec.__file__).parent
    else:
        package = Path(source) / "stspec"
    shutil.copytree(
        package, site / "stspec", ignore=shutil.ignore_patterns("__pycache__")
    )
    compileall.compile_dir(site, quiet=1)
    return str(site)


def _measure(args: argparse.Namespace) -> int:
    size = int(args.mb * 1_000_000)
    tools = ["stspec", "hf"] + (["validate"] if args.validate else [])
    base = {tool: _run(tool, "-") for tool in tools}
    print(f"python {sys.version.split()[0]}, header size {args.mb} MB")
    print(
        "baseline (imports only): "
        + ", ".join(f"{t} {c:.2f} s {m:.0f} MB" for t, (c, m, _) in base.items())
    )
    print(
        f"{'family':22} {'MB':>6} | {'stspec s':>8} {'MB':>6} | {'HF s':>7} {'MB':>6}"
        f" | {'time x':>7} {'mem x':>6} | verdicts"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only or FAMILIES:
            path = Path(tmp) / f"{name}.safetensors"
            data = FAMILIES[name](size)
            header = int.from_bytes(data[:8], "little")
            if header > LIMIT:
                # The estimate per item was low: build it again, just under.
                data = FAMILIES[name](int(size * LIMIT / header * 0.995))
                header = int.from_bytes(data[:8], "little")
            path.write_bytes(data)
            del data
            header_mb = header / 1e6
            runs: dict[str, list[tuple[float, float, str]]] = {t: [] for t in tools}
            floor: list[tuple[float, float, str]] = []
            for _ in range(args.repeat):
                for tool in tools:
                    runs[tool].append(_run(tool, str(path)))
                if name in FLOORS:
                    floor.append(_run("names", str(path), FLOORS[name]))
            cpu = {t: statistics.median(r[0] for r in runs[t]) for t in tools}
            rss = {t: statistics.median(r[1] for r in runs[t]) for t in tools}
            verdicts = " / ".join(runs[t][0][2] for t in tools)
            extra = (
                f" | validate {cpu['validate']:.2f} s {rss['validate']:.0f} MB"
                if args.validate
                else ""
            )
            st_cpu, st_rss = cpu["stspec"], rss["stspec"]
            print(
                f"{name:22} {header_mb:6.1f} | {st_cpu:8.2f} {st_rss:6.0f}"
                f" | {cpu['hf']:7.2f} {rss['hf']:6.0f}"
                f" | {cpu['stspec'] / max(cpu['hf'], 1e-3):6.2f}x"
                f" {rss['stspec'] / rss['hf']:5.2f}x | {verdicts}{extra}",
                flush=True,
            )
            if floor:
                _print_floor(name, floor, cpu, rss)
            path.unlink()
    return 0


def _print_floor(
    name: str,
    runs: list[tuple[float, float, str]],
    cpu: dict[str, float],
    rss: dict[str, float],
) -> None:
    """Print what holding the names alone costs (CHILD["names"]), beside both tools."""
    floor_cpu = statistics.median(run[0] for run in runs)
    floor_rss = statistics.median(run[1] for run in runs)
    print(
        f"{name:22} floor: one split, a set of the names"
        f" {floor_cpu:.2f} s {floor_rss:.0f} MB"
        f" | {floor_cpu / max(cpu['hf'], 1e-3):.2f}x {floor_rss / rss['hf']:.2f}x HF"
        f" | stspec {cpu['stspec'] / max(floor_cpu, 1e-3):.2f}x"
        f" {rss['stspec'] / floor_rss:.2f}x floor",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
