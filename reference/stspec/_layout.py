"""The byte buffer: every byte owned by exactly one tensor, no gaps, no tail."""

from __future__ import annotations

from stspec._header import Finding, TensorInfo


def check_layout(
    tensors: list[TensorInfo], indices: list[int], data_start: int, buffer_length: int
) -> list[Finding]:
    """Check that the entries tile ``[0, buffer_length)`` exactly.

    Entries are taken in (begin, end) order, so the order of the JSON object
    does not matter (spec LAYOUT-HOLE).  A tensor that ends past the buffer is
    reported once, as LAYOUT-BOUNDS, and left out of the tiling; the trailing
    check is then skipped, since the buffer's real end is not where the header
    says it is.
    """
    # Writers lay tensors out in header order, so the common case needs no sort.
    cursor = 0
    for tensor in tensors:
        if tensor.begin != cursor:
            break
        cursor = tensor.end
    else:
        if cursor == buffer_length:
            return []

    findings: list[Finding] = []
    inside: list[tuple[int, int, int]] = []
    for position, tensor in enumerate(tensors):
        if tensor.end > buffer_length:
            findings.append(
                Finding(
                    "LAYOUT-BOUNDS",
                    f"tensor {tensor.name!r} ends at {tensor.end}, past the "
                    f"{buffer_length}-byte buffer",
                    (indices[position], "data_offsets"),
                )
            )
        else:
            inside.append((tensor.begin, tensor.end, position))
    inside.sort()
    cursor = 0
    for begin, end, position in inside:
        name = tensors[position].name
        path = (indices[position], "data_offsets")
        if begin > cursor:
            findings.append(
                Finding(
                    "LAYOUT-HOLE",
                    f"bytes {cursor}..{begin} of the buffer belong to no tensor; "
                    f"expected {name!r} to begin at {cursor}",
                    path,
                    data_start + cursor,
                )
            )
        elif begin < cursor:
            findings.append(
                Finding(
                    "LAYOUT-OVERLAP",
                    f"tensor {name!r} begins at {begin}, inside bytes already "
                    f"owned up to {cursor}",
                    path,
                    data_start + begin,
                )
            )
        cursor = max(cursor, end)
    if cursor < buffer_length and len(inside) == len(tensors):
        findings.append(
            Finding(
                "LAYOUT-TRAILING",
                f"{buffer_length - cursor} trailing bytes after the last tensor, "
                f"expected the buffer to end at {cursor}",
                (),
                data_start + cursor,
            )
        )
    return findings
