"""Family `prefix`: the 8-byte length N and the header's byte range."""

from __future__ import annotations

import zlib
from typing import Final

from stspec.rules import MAX_HEADER_SIZE, U64_MAX
from stspec_corpus._model import Case, assemble, bug, build, example, make, tensor

_SMALLEST: Final = assemble("{}", align=None)  # N = 2, ten bytes
_NAMES: Final = ("empty", *(f"{k}_byte{'s' if k > 1 else ''}" for k in range(1, 8)))


def _small_n(n: int) -> bytes:
    """Return a claimed length ``n`` followed by a complete little header ``{}``."""
    return assemble("{}", align=None, n=n)


def cases() -> list[Case]:
    """Return the family's cases."""
    base = build([tensor("a", "F32", [1], [1.5])])
    odd = build([tensor("ab", "F32", [1], [1.5])])
    out = [
        make(
            "y_prefix_smallest_file",
            ["FILE-PREFIX", "HEADER-BOUNDS"],
            "the smallest valid file: N = 2, header {} (10 bytes, no padding)",
            data=_SMALLEST,
            expected=build([]).expected,
            provenance=example("spec/SPEC.md section 2.1"),
        ),
        make(
            "y_prefix_header_ends_at_file_end",
            ["HEADER-BOUNDS"],
            "8 + N equals the file length: metadata only, an empty byte buffer",
            data=build([], {"k": "v"}).data,
            expected=build([], {"k": "v"}).expected,
        ),
        make(
            "y_prefix_n_odd_unaligned",
            ["HEADER-BOUNDS"],
            f"N = {len(odd.header)}, odd: the data starts at file offset "
            f"{8 + len(odd.header)}, not a multiple of 8",
            data=assemble(odd.header, odd.data[-4:], align=None),
            expected=odd.expected,
            provenance=bug("ggml-org/llama.cpp#18291"),
        ),
    ]
    out += [
        make(
            f"n_prefix_file_{_NAMES[size]}",
            ["FILE-PREFIX"],
            f"a file of {size} bytes (the first {size} of a valid 10-byte file): "
            "no room for the 8-byte length",
            data=_SMALLEST[:size],
        )
        for size in range(8)
    ]
    out += [
        make(
            "n_prefix_n_zero",
            ["HEADER-OBJECT"],
            "N = 0: an empty header, no JSON object (8-byte file)",
            data=bytes(8),
        ),
        make(
            "n_prefix_n_zero_object_in_buffer",
            ["HEADER-OBJECT"],
            "N = 0 followed by {}: the object lies outside the header's N bytes",
            data=bytes(8) + b"{}",
        ),
        make(
            "n_prefix_n_one_past_end",
            ["HEADER-BOUNDS"],
            "N = 3 with only 2 header bytes present: 8 + N exceeds the file by one",
            data=_small_n(3),
        ),
        make(
            "n_prefix_n_1000_tiny_file",
            ["HEADER-BOUNDS"],
            "N = 1000 in a 10-byte file",
            data=_small_n(1000),
            tags=["security"],
            provenance=bug(
                "huggingface/safetensors attacks/safetensors_abuse_attempt_1.py"
            ),
        ),
        make(
            "n_prefix_n_at_limit_tiny_file",
            ["HEADER-BOUNDS"],
            "N = 100,000,000 (the limit, allowed) in a 10-byte file: past the end",
            data=_small_n(MAX_HEADER_SIZE),
            tags=["security"],
        ),
        make(
            "n_prefix_n_limit_plus_1_tiny_file",
            ["HEADER-LIMIT"],
            "N = 100,000,001 in a 10-byte file: the limit is checked before the size",
            data=_small_n(MAX_HEADER_SIZE + 1),
            tags=["security"],
        ),
        make(
            "n_prefix_n_2pow32",
            ["HEADER-LIMIT"],
            "N = 2^32 in a 10-byte file",
            data=_small_n(2**32),
            tags=["security"],
        ),
        make(
            "n_prefix_n_2pow63",
            ["HEADER-LIMIT"],
            "N = 2^63 (negative as a signed i64) in a 10-byte file",
            data=_small_n(2**63),
            tags=["security"],
        ),
        make(
            "n_prefix_n_u64_max",
            ["HEADER-LIMIT"],
            "N = 2^64-1 (all 0xff; 8 + N wraps to 7 in u64) in a 10-byte file",
            data=_small_n(U64_MAX),
            tags=["security"],
        ),
        make(
            "n_prefix_n_wraps_to_zero",
            ["HEADER-LIMIT"],
            "N = 2^64-8: 8 + N wraps to 0 in u64 arithmetic (10-byte file)",
            data=_small_n(2**64 - 8),
            tags=["security"],
        ),
        make(
            "n_prefix_n_big_endian",
            ["HEADER-LIMIT"],
            "a valid file whose N (56) is written big-endian: it reads as 56 x 2^56",
            data=len(base.data[8:-4]).to_bytes(8, "big") + base.data[8:],
        ),
        make(
            "n_prefix_n_u32",
            ["HEADER-LIMIT"],
            "N written as a 4-byte u32: the 8-byte read takes '{\"a\"' as high bytes",
            data=len(base.data[8:-4]).to_bytes(4, "little") + base.data[8:],
        ),
        make(
            "n_prefix_zip_archive",
            ["HEADER-LIMIT"],
            "a ZIP archive (PK\\3\\4 ...): its first 8 bytes read as N ~ 8.6e10",
            data=zip_archive(b"a.txt", b"safetensors"),
            tags=["security"],
            provenance=bug("huggingface/safetensors#414"),
        ),
        make(
            "n_prefix_pickle_stream",
            ["HEADER-LIMIT"],
            "a pickle protocol-2 stream of {'a': 1}: its first bytes read as a huge N",
            data=b"\x80\x02}q\x00X\x01\x00\x00\x00aq\x01K\x01s.",
            tags=["security"],
        ),
        make(
            "n_prefix_gguf_magic",
            ["HEADER-LIMIT"],
            "a GGUF v3 preamble (magic + version): reads as N = 14,064,895,815",
            data=b"GGUF\x03\x00\x00\x00" + bytes(16),
            tags=["security"],
        ),
    ]
    return out


def zip_archive(name: bytes, content: bytes) -> bytes:
    """Return a one-member stored ZIP archive, built by hand (fixed date, no flags)."""
    crc = zlib.crc32(content)
    size = len(content).to_bytes(4, "little")
    common = (
        b"\x14\x00\x00\x00\x00\x00\x00\x00\x21\x00"  # version, flags, stored, time 0
        + crc.to_bytes(4, "little")
        + size
        + size
        + len(name).to_bytes(2, "little")
        + b"\x00\x00"
    )
    local = b"PK\x03\x04" + common + name + content
    central = (
        b"PK\x01\x02\x14\x00"
        + common
        + b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
        + name
    )
    end = (
        b"PK\x05\x06\x00\x00\x00\x00\x01\x00\x01\x00"
        + len(central).to_bytes(4, "little")
        + len(local).to_bytes(4, "little")
        + b"\x00\x00"
    )
    return local + central + end
