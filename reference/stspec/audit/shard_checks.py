"""The consistency checks of a sharded checkpoint, as data.

They are defined on the spec's companion page docs/spec/sharded-checkpoints.md
(SPEC.md §13.2 points there).

Not rules of the format: they judge a set of files and its index, so they live
with the auditor that runs them, apart from the reader's rule registry.
"""

from __future__ import annotations

# typing is not imported at run time (start-up cost of the `stspec` command,
# see stspec/record.py); mypy reads TYPE_CHECKING as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal, NamedTuple

    Severity = Literal["error", "warning"]
else:
    from stspec.record import NamedTuple

__all__ = ["SHARD_CHECKS", "SHARD_CHECKS_BY_ID", "SetCheck"]


class SetCheck(NamedTuple):
    """One consistency check of a sharded checkpoint (see the module docstring).

    Not a rule of the format: a shard set is several files plus an index, and
    no finding of these checks changes the verdict of a single file.  They
    share the rules' id style and anchors so that reports can cite them.
    ``error`` means loaders may fail or load different models; ``warning``
    means the index holds wrong information that no loader reads tensors by.
    """

    id: str
    severity: Severity
    statement: str


SHARD_CHECKS: Final[tuple[SetCheck, ...]] = (
    SetCheck(
        "SHARD-INDEX-JSON",
        "error",
        "The index is UTF-8 RFC 8259 JSON without duplicate member names: an "
        "object whose `weight_map` is an object of strings and whose "
        "`metadata`, if present, is an object.",
    ),
    SetCheck(
        "SHARD-FILENAME",
        "error",
        "Every `weight_map` value is a plain file name: not empty, not `.` or "
        "`..`, without `/`, `\\` or NUL.",
    ),
    SetCheck(
        "SHARD-MISSING",
        "error",
        "Every file that `weight_map` names exists in the index's directory and "
        "is a regular file.",
    ),
    SetCheck(
        "SHARD-WEIGHT-LOCATION",
        "error",
        "Every tensor name in `weight_map` is a tensor of the shard that "
        "`weight_map` names for it.",
    ),
    SetCheck(
        "SHARD-DUPLICATE",
        "error",
        "No tensor name is a tensor of two shards of the set.",
    ),
    SetCheck(
        "SHARD-UNLISTED",
        "error",
        "Every tensor of every shard has its name in `weight_map`.",
    ),
    SetCheck(
        "SHARD-TOTAL-SIZE",
        "warning",
        "`metadata.total_size`, if present, is a non-negative integer equal to "
        "the sum of end - begin over all tensors of all shards.",
    ),
)

SHARD_CHECKS_BY_ID: Final[dict[str, SetCheck]] = {c.id: c for c in SHARD_CHECKS}
