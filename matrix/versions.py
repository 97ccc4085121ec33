"""Version strings as registries spell them, put in order.

PyPI versions follow PEP 440 (``packaging.version``); npm, crates.io and the
Go module proxy follow Semantic Versioning 2.0 (Go with a leading ``v``, and
pseudo-versions ``v0.0.0-YYYYMMDDhhmmss-abcdef123456`` for untagged commits);
Maven Central's versions are loose, and the ones PEP 440 cannot read are left
out.  A string no scheme reads is ``None``: never compared, never trusted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final, Literal

from packaging.version import InvalidVersion, Version

__all__ = ["Ordered", "Scheme", "parse"]

Scheme = Literal["pep440", "semver", "go"]

_SEMVER: Final = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)
# a Go pseudo-version names a commit, not a pre-release: its pre-release part
# ends in a 14-digit UTC time and a 12-hex-digit commit prefix
_PSEUDO: Final = re.compile(r"(?:.*\.)?\d{14}-[0-9a-f]{12}")
_LONGEST: Final = 128  # no registry's real version string is longer


@dataclass(frozen=True, slots=True)
class Ordered:
    """A version string with a key that sorts it among its scheme's versions."""

    text: str
    key: tuple[Any, ...]  # compared only with keys of the same scheme
    prerelease: bool


def _semver_key(major: int, minor: int, patch: int, pre: str | None) -> tuple[Any, ...]:
    # SemVer 11: a release sorts after its pre-releases; numeric identifiers
    # sort below alphanumeric ones and among themselves by value
    if pre is None:
        return (major, minor, patch, 1, ())
    parts = tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part)
        for part in pre.split(".")
    )
    return (major, minor, patch, 0, parts)


def parse(text: str, scheme: Scheme) -> Ordered | None:
    """``text`` ordered under ``scheme``, or None if it is not such a version."""
    if len(text) > _LONGEST:
        return None
    if scheme == "pep440":
        try:
            version = Version(text)
        except InvalidVersion:
            return None
        return Ordered(text, (version,), version.is_prerelease)
    body = text
    if scheme == "go":
        if not text.startswith("v"):
            return None
        body = text[1:]
    match = _SEMVER.fullmatch(body)
    if match is None:
        return None
    major, minor, patch = (int(match[i]) for i in (1, 2, 3))
    pre = match[4]
    prerelease = pre is not None
    if scheme == "go" and pre is not None and _PSEUDO.fullmatch(pre):
        prerelease = False
    return Ordered(text, _semver_key(major, minor, patch, pre), prerelease)
