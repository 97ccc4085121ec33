"""``python -m matrix watch``: the rows pinning an older release than is served.

Each row's pin is the library it runs (the first ``pip_no_deps`` or ``pip``
pin, the first ``npm`` pin, the crate a Rust build compiles, the module a Go
wrapper's go.mod requires, the artifact a Java wrapper's pom.xml names, or
the shared layer's package for a row with no pin of its own).  Where several
rows pin one package at different versions (the HF crate's line), only the
newest pin is compared: the older rows are kept on purpose.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

from matrix.impls import LAYERS, Impl
from matrix.registries import SCHEMES, RegistryError, Served, fetch_versions
from matrix.versions import parse

__all__ = ["Pin", "Status", "check", "pin_of", "report", "status_json"]

WRAPPERS: Final = Path(__file__).resolve().parent / "wrappers"
_POM: Final = "{http://maven.apache.org/POM/4.0.0}"


@dataclass(frozen=True, slots=True)
class Pin:
    """The registry, package and version one row installs."""

    registry: str  # a key of registries.DEFAULT_BASES
    package: str  # PyPI/npm/crate name, Go module path, or Maven group:artifact
    version: str


@dataclass(frozen=True, slots=True)
class Status:
    """What the registry serves beside one row's pin."""

    row: str
    pin: Pin | None
    state: str  # current, behind, older-line, no-registry, unanswered
    newest: str = ""
    pre: str = ""  # a pre-release newer than every stable release
    detail: str = ""


def _requirement(spec: str) -> tuple[str, str]:
    name, _, version = spec.partition("==")
    return re.sub(r"\[.*\]$", "", name), version


def _go_pin(folder: str) -> Pin:
    for line in (WRAPPERS / folder / "go.mod").read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "require":
            return Pin("go", parts[1], parts[2])
    raise ValueError(f"matrix/wrappers/{folder}/go.mod requires no module")


def _maven_pin(folder: str, artifact: str) -> Pin:
    root = ET.parse(WRAPPERS / folder / "pom.xml").getroot()  # noqa: S314 - our file
    for dep in root.iter(f"{_POM}dependency"):
        if dep.findtext(f"{_POM}artifactId") == artifact:
            group = dep.findtext(f"{_POM}groupId", "")
            return Pin(
                "maven", f"{group}:{artifact}", dep.findtext(f"{_POM}version", "")
            )
    raise ValueError(f"matrix/wrappers/{folder}/pom.xml has no dependency {artifact!r}")


# build script -> the crates.io package it builds at build_args[0]
_CRATES: Final = {"rust_crate.sh": "safetensors", "rust_aprender.sh": "aprender-core"}


def pin_of(impl: Impl) -> Pin | None:
    """The registry pin of the library ``impl`` runs (None: this project's own code)."""
    if impl.build in _CRATES:
        return Pin("crates", _CRATES[impl.build], impl.build_args[0])
    if impl.build == "go_module.sh":
        return _go_pin(impl.build_args[0])
    if impl.build == "java_jars.sh":
        return _maven_pin(impl.build_args[0], impl.build_args[2])
    if impl.npm:
        name, _, version = impl.npm[0].rpartition("@")
        return Pin("npm", name, version)
    pins = impl.pip_no_deps or impl.pip
    if not pins and impl.layer is not None:
        pins = LAYERS[impl.layer]
    if pins:
        return Pin("pypi", *_requirement(pins[0]))
    return None


def check(impls: list[Impl], bases: dict[str, str]) -> list[Status]:
    """Ask each registry once per package; one Status per row, in ``impls``' order."""
    pins = {impl.name: pin_of(impl) for impl in impls}
    newest_pin: dict[tuple[str, str], str] = {}
    for pin in pins.values():
        if pin is None:
            continue
        key = (pin.registry, pin.package)
        ours = parse(pin.version, SCHEMES[pin.registry])
        held = newest_pin.get(key)
        held_v = parse(held, SCHEMES[pin.registry]) if held else None
        if held is None or (ours and held_v and ours.key > held_v.key):
            newest_pin[key] = pin.version
    answers: dict[tuple[str, str], Served | RegistryError] = {}
    statuses = []
    for impl in impls:
        pin = pins[impl.name]
        if pin is None:
            statuses.append(
                Status(impl.name, None, "no-registry", detail="this project")
            )
            continue
        key = (pin.registry, pin.package)
        if key not in answers:
            try:
                answers[key] = fetch_versions(pin.registry, pin.package, bases)
            except RegistryError as exc:
                answers[key] = exc
        statuses.append(_judge(impl.name, pin, answers[key], newest_pin[key]))
    return statuses


def _judge(
    row: str, pin: Pin, answer: Served | RegistryError, newest_pin: str
) -> Status:
    if isinstance(answer, RegistryError):
        return Status(row, pin, "unanswered", detail=str(answer))
    stable, pre = answer.newest_stable, answer.newest_pre
    ours = parse(pin.version, SCHEMES[pin.registry])
    pre_text = (
        pre.text if pre is not None and (ours is None or pre.key > ours.key) else ""
    )
    if stable is None:
        return Status(row, pin, "current", pre=pre_text, detail="no stable release")
    if ours is not None and ours.key >= stable.key:
        return Status(row, pin, "current", stable.text, pre_text)
    if pin.version != newest_pin:
        return Status(
            row, pin, "older-line", stable.text, pre_text,
            detail=f"kept on purpose: another row pins {newest_pin}",
        )  # fmt: skip
    return Status(row, pin, "behind", stable.text, pre_text)


def status_json(statuses: list[Status]) -> list[dict[str, str]]:
    """The statuses as JSON-ready objects (``--json``)."""
    return [
        {
            "row": s.row,
            "registry": s.pin.registry if s.pin else "",
            "package": s.pin.package if s.pin else "",
            "pin": s.pin.version if s.pin else "",
            "state": s.state,
            "newest": s.newest,
            "pre": s.pre,
            "detail": s.detail,
        }
        for s in statuses
    ]


def report(statuses: list[Status], out: TextIO) -> None:
    """A Markdown table: the rows behind first, then pre-releases, then the rest."""
    order = {
        "behind": 0,
        "unanswered": 1,
        "older-line": 3,
        "current": 4,
        "no-registry": 5,
    }
    rows = sorted(statuses, key=lambda s: (order[s.state] - (2 if s.pre else 0), s.row))
    behind = sum(s.state == "behind" for s in statuses)
    pres = sum(bool(s.pre) for s in statuses)
    out.write(
        f"{behind} of {len(statuses)} rows behind their registry; "
        f"{pres} with a newer pre-release\n\n"
        "| row | registry | package | pinned | newest release "
        "| newer pre-release | state |\n"
        "|---|---|---|---|---|---|---|\n"
    )
    for s in rows:
        pin = s.pin
        state = s.state + (f" ({s.detail})" if s.detail else "")
        out.write(
            f"| {s.row} | {pin.registry if pin else ''} | {pin.package if pin else ''} "
            f"| {pin.version if pin else ''} | {s.newest} | {s.pre} | {state} |\n"
        )


def bases_from(options: list[str]) -> dict[str, str]:
    """Base URLs: ``NAME=URL`` options over ``STSPEC_REGISTRY_NAME`` variables."""
    bases = {
        name: os.environ[f"STSPEC_REGISTRY_{name.upper()}"]
        for name in SCHEMES
        if os.environ.get(f"STSPEC_REGISTRY_{name.upper()}")
    }
    for option in options:
        name, sep, url = option.partition("=")
        if not sep or name not in SCHEMES:
            raise ValueError(
                f"--registry {option!r}: expected NAME=URL, "
                f"NAME one of {', '.join(SCHEMES)}"
            )
        bases[name] = url
    return bases


def main(
    impls: list[Impl], options: list[str], json_out: Path | None, out: TextIO
) -> int:
    """Check, print, write ``json_out``; 1 if a row is behind or unanswered."""
    statuses = check(impls, bases_from(options))
    report(statuses, out)
    if json_out is not None:
        json_out.write_text(
            json.dumps(status_json(statuses), indent=1) + "\n", encoding="utf-8"
        )
    return 1 if any(s.state in {"behind", "unanswered"} for s in statuses) else 0
