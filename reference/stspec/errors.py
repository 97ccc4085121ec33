"""The one exception type: a rule id, a byte offset and what was expected."""

from __future__ import annotations

from stspec.rules import RULES_BY_ID

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Final

PathPart = str | int
HeaderPath = tuple[PathPart, ...]

# A name longer than this is shown cut, with its length: one hostile name
# repeated in many violations must not multiply the output.
SHOWN_NAME: Final = 200


def shown(name: str) -> str:
    """Quote a name for a message, cut to a readable length."""
    if len(name) <= SHOWN_NAME:
        return repr(name)
    return f"{name[:SHOWN_NAME]!r}... ({len(name)} characters)"


def _part(part: PathPart) -> str:
    # Only faults need json: a check of a valid file starts faster without it.
    import json  # noqa: PLC0415

    if isinstance(part, str) and len(part) > SHOWN_NAME:
        cut = json.dumps(part[:SHOWN_NAME], ensure_ascii=False)
        return f'[{cut[:-1]}..." ({len(part)} characters)]'
    return f"[{json.dumps(part, ensure_ascii=False)}]"


def json_path(path: HeaderPath) -> str:
    """Render a header location with brackets only (tensor names contain dots).

    Names longer than SHOWN_NAME characters are cut (the error's ``path``
    attribute keeps them whole).
    """
    text = "".join(_part(part) for part in path)
    # Names may hold lone surrogates (that is itself a violation); escape
    # them so that the message can always be printed.
    return "$" + text.encode("utf-8", "backslashreplace").decode("utf-8")


class SafetensorsError(ValueError):
    """A file (or a write request) breaks a rule of the spec.

    Attributes beyond ValueError:
        rule:   the broken rule's stable id (see spec/SPEC.md); compare this
        offset: absolute 0-based byte offset in the file where the fault is, or
                None for a write request refused before any byte exists
        msg:    the human-oriented message (informational, may change)
        path:   location inside the JSON header, () when not in the header

    Two errors are equal when their rule, offset and message are, so that
    errors from two runs, or pickled and back, compare and hash as values.
    """

    rule: str
    offset: int | None
    msg: str
    path: HeaderPath

    def __init__(
        self, rule: str, offset: int | None, msg: str, path: HeaderPath = ()
    ) -> None:
        if rule not in RULES_BY_ID:
            raise KeyError(f"unknown rule id {rule!r}")
        self.rule = rule
        self.offset = offset
        self.msg = msg
        self.path = path
        # The message is rendered on demand: validate() may build a hundred
        # thousand of these for one hostile header.
        super().__init__(rule, offset, msg, path)

    def __str__(self) -> str:
        where = "before writing" if self.offset is None else f"at byte {self.offset}"
        if self.path:
            where += f", header {json_path(self.path)}"
        return f"{self.msg} ({where}) [{self.rule}]"

    def __reduce__(self) -> tuple[type[SafetensorsError], tuple[object, ...]]:
        return (type(self), (self.rule, self.offset, self.msg, self.path))

    def __eq__(self, other: object) -> bool:
        """Equal when the rule, the offset and the message are."""
        if not isinstance(other, SafetensorsError):
            return NotImplemented
        return (self.rule, self.offset, self.msg) == (
            other.rule,
            other.offset,
            other.msg,
        )

    def __hash__(self) -> int:
        return hash((self.rule, self.offset, self.msg))

    def as_dict(self) -> dict[str, object]:
        """Return the error as plain JSON-ready data."""
        return {
            "rule": self.rule,
            "offset": self.offset,
            "path": json_path(self.path) if self.path else None,
            "message": self.msg,
        }


class Violations(list[SafetensorsError]):
    """The violations :func:`stspec.validate` reports, sorted by offset.

    A hostile header can break one rule millions of times, so at most a fixed
    number of violations per rule are listed (the first ones by offset);
    ``omitted`` maps each rule id to how many more were found but not listed.
    """

    omitted: dict[str, int]

    def __init__(self, errors: Iterable[SafetensorsError] = ()) -> None:
        super().__init__(errors)
        self.omitted = {}

    @property
    def total(self) -> int:
        """How many violations were found, listed or not."""
        return len(self) + sum(self.omitted.values())
