"""``stspec inspect``: one file's tensors, metadata and layout."""

from __future__ import annotations

import errno
import os

from stspec import SafetensorsError, read, validate, verdict_of
from stspec.audit import INVALID, TROUBLE, VALID
from stspec.audit.inputs import Scratch, gather
from stspec.audit.opening import NotRegularFileError, regular_file
from stspec.audit.terminal import (
    complain,
    count,
    file_name,
    out,
    out_json,
    violation_line,
)

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from stspec import SafetensorsFile, Violations

__all__ = ["inspect"]

_SHOWN_CHARS: Final = 120  # longer metadata values are cut in the text table


def _report(file: str, errors: Violations) -> dict[str, object]:
    return {
        "file": file,
        "valid": not errors,
        "verdict": verdict_of({error.rule for error in errors}),
        "violations": [error.as_dict() for error in errors],
        "omitted": errors.omitted,
    }


def inspect(file: str, *, as_json: bool, wait: float) -> int:
    """Print one local file's tensors, metadata and layout; return the exit status."""
    if file.lower().startswith(("https://", "http://", "hf://")):
        complain(
            f"cannot inspect {file_name(file)}: inspect reads local files; "
            "`stspec check` reads remote ones from their headers"
        )
        return TROUBLE
    if file != "-":
        return _inspect_path(file, file, as_json=as_json)
    # stdin is read as `check -` reads it: a pipe to its end, each wait for
    # data bounded by --wait; a terminal or a device is refused.
    with Scratch() as scratch:
        inputs = gather([file], wait=wait, scratch=scratch)
        if inputs.refused:
            complain(f"cannot read {file_name(file)}: {inputs.refused[0].reason}")
            return TROUBLE
        return _inspect_path(inputs.targets[0].path, file, as_json=as_json)


def _inspect_path(path: str, file: str, *, as_json: bool) -> int:
    try:
        # Opened without blocking and judged as opened: a FIFO, a socket or a
        # device is refused at once, never waited on.
        with regular_file(path) as fd:
            return _inspect_file(fd, file, as_json=as_json)
    except NotRegularFileError as exc:
        if exc.errno == errno.EISDIR:
            complain(
                f"cannot inspect {file_name(file)}: it is a folder, inspect "
                "takes one file"
            )
        elif exc.stream:
            complain(
                f"cannot read {file_name(file)}: {exc.strerror}; to inspect what "
                "it sends, pipe it to `stspec inspect -`"
            )
        else:
            _complain(file, exc)
    except OSError as exc:
        _complain(file, exc)
    return TROUBLE


def _inspect_file(fd: int, file: str, *, as_json: bool) -> int:
    try:
        opened = read(fd, mapped=False)
    except SafetensorsError as exc:
        if as_json:
            out_json(_report(file, validate(fd, mapped=False)))
        else:
            out(violation_line(file, exc))
        return INVALID
    with opened:
        header = os.pread(fd, opened.header_length, 8)
    layout = _layout(opened, header)
    if as_json:
        out_json(_description(file, opened, layout))
    else:
        out(*_table(file, opened, layout))
    return VALID


def _layout(opened: SafetensorsFile, header: bytes) -> dict[str, int]:
    # A valid file has no leading whitespace and pads with 0x20 only, so the
    # JSON object is the header minus its trailing spaces.
    json_length = len(header.rstrip(b" "))
    return {
        "file_length": opened.file_length,
        "header_length": opened.header_length,
        "json_length": json_length,
        "padding": opened.header_length - json_length,
        "data_start": opened.data_start,
        "data_start_mod_8": opened.data_start % 8,
        "buffer_length": opened.file_length - opened.data_start,
    }


def _description(
    file: str, opened: SafetensorsFile, layout: dict[str, int]
) -> dict[str, object]:
    return {
        "file": file,
        "valid": True,
        "metadata": opened.metadata,
        "tensors": [
            {
                "name": info.name,
                "dtype": info.dtype,
                "shape": list(info.shape),
                "data_offsets": [info.begin, info.end],
                "bytes": info.nbytes,
            }
            for info in opened.tensors.values()
        ],
        "layout": layout,
    }


def _table(file: str, opened: SafetensorsFile, layout: dict[str, int]) -> list[str]:
    lines = [f"{file_name(file)}: {count(len(opened.tensors), 'tensor')}", ""]
    if opened.metadata is None:
        lines.append("metadata: none")
    else:
        lines.append(f"metadata: {count(len(opened.metadata), 'key')}")
        lines += [
            f"  {_show(key)} = {_show(value, cut=True)}"
            for key, value in opened.metadata.items()
        ]
    rows = [("name", "dtype", "shape", "data_offsets", "bytes")] + [
        (
            _show(info.name),
            info.dtype,
            str(list(info.shape)),
            f"[{info.begin}, {info.end}]",
            str(info.nbytes),
        )
        for info in opened.tensors.values()
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(5)]
    lines.append("")
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        cells[-1] = row[-1].rjust(widths[-1])  # numbers align right
        lines.append("  " + "  ".join(cells).rstrip())
    mod8 = layout["data_start_mod_8"]
    return [
        *lines,
        "",
        "layout:",
        f"  file length          {layout['file_length']}",
        f"  header length N      {layout['header_length']}",
        f"  JSON object          {layout['json_length']} bytes",
        f"  padding (0x20)       {layout['padding']} bytes",
        f"  data start 8+N       {layout['data_start']} (mod 8 = {mod8})",
        f"  buffer length        {layout['buffer_length']}",
    ]


def _show(text: str, *, cut: bool = False) -> str:
    """Quote names that would garble a terminal; shorten long values."""
    import json  # noqa: PLC0415 - `check` starts faster without it

    shown = text if text and text.isprintable() else json.dumps(text)
    if cut and len(shown) > _SHOWN_CHARS:
        return f"{shown[:_SHOWN_CHARS]}... ({len(text)} characters)"
    return shown


def _complain(file: str, exc: OSError) -> None:
    complain(f"cannot read {file_name(file)}: {exc.strerror or exc}")
