"""Rejects every file, always naming SIZE-MATCH (a reader that cannot run)."""

from __future__ import annotations


class RejectedError(ValueError):
    rule = "SIZE-MATCH"


def load(path: str) -> None:
    raise RejectedError(f"SIZE-MATCH: will not read {path}")


def classify(exc: BaseException) -> str | None:
    return getattr(exc, "rule", None)
