"""The tensors of a valid file, packed into flat arrays."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping

from stspec.dtypes import DTYPES, RANK

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from stspec.record import NamedTuple


class TensorInfo(NamedTuple):
    """One tensor entry of a valid header.

    ``begin`` and ``end`` are offsets into the byte buffer, which starts right
    after the header (spec: offsets are relative to the buffer, not the file).
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int

    @property
    def nbytes(self) -> int:
        """The tensor's size in bytes."""
        return self.end - self.begin


class TensorTable(Mapping[str, TensorInfo]):
    """The tensors of a valid file by name, in file order.

    The entries are packed into flat arrays and become TensorInfo objects only
    when looked up.  Beyond saving memory, this keeps the garbage collector
    from walking a million small containers after a large header is opened:
    arrays of integers are a handful of objects it never has to look into.
    """

    __slots__ = ("_codes", "_dims", "_index", "_offsets", "_starts")

    def __init__(self) -> None:
        self._index: dict[str, int] = {}
        self._codes = bytearray()  # position of the dtype in DTYPES
        self._offsets = array("Q")  # begin, end of each tensor
        self._dims = array("Q")  # every tensor's shape, one after another
        self._starts = array("Q", [0])  # where each tensor's shape begins in _dims

    @property
    def columns(
        self,
    ) -> tuple[dict[str, int], bytearray, array[int], array[int], array[int]]:
        """The raw storage, to read or fill a column at a time.

        In order: name -> position, dtype codes (index into DTYPES), begin/end
        pairs, all dimensions, and where each tensor's dimensions begin.
        Whoever fills it keeps the columns consistent, as :meth:`add` does.
        """
        return self._index, self._codes, self._offsets, self._dims, self._starts

    def add(
        self, name: str, dtype: str, shape: Iterable[int], begin: int, end: int
    ) -> None:
        """Append one checked entry (names are unique; the caller checked)."""
        self._index[name] = len(self._codes)
        self._codes.append(RANK[dtype])
        self._offsets.append(begin)
        self._offsets.append(end)
        self._dims.extend(shape)
        self._starts.append(len(self._dims))

    def __getitem__(self, name: str) -> TensorInfo:
        position = self._index[name]
        shape = self._dims[self._starts[position] : self._starts[position + 1]]
        return TensorInfo(
            name,
            DTYPES[self._codes[position]].name,
            tuple(shape),
            self._offsets[2 * position],
            self._offsets[2 * position + 1],
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __repr__(self) -> str:
        return f"TensorTable({list(self.values())!r})"
