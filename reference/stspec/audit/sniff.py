"""Name the format of a file that is not safetensors, from its first bytes."""

from __future__ import annotations

import codecs

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, NamedTuple
else:
    from stspec.record import NamedTuple

__all__ = ["SNIFF_SIZE", "WEIGHT_FORMATS", "Format", "sniff"]

SNIFF_SIZE: Final = 64  # bytes from the start of the file that sniff() looks at
# Formats that model weights ship in besides safetensors: a folder's file in
# one of them is named even under --quiet (pickles can run code when loaded).
WEIGHT_FORMATS: Final = frozenset({"pickle", "zip", "gguf"})


class Format(NamedTuple):
    """What a file looks like: a short stable key and a sentence for people."""

    key: str
    description: str


# Magic numbers at byte 0, longest first where one is a prefix of another.
_MAGIC: Final = (
    (
        b"PK\x03\x04",
        Format(
            "zip",
            "a ZIP archive (PyTorch saves .bin/.pt checkpoints as ZIP archives "
            "of pickles, which can run code when loaded)",
        ),
    ),
    (b"PK\x05\x06", Format("zip", "an empty ZIP archive")),
    (b"GGUF", Format("gguf", "a GGUF model file (llama.cpp)")),
    (b"\x93NUMPY", Format("npy", "a NumPy .npy array")),
    (b"\x89HDF\r\n\x1a\n", Format("hdf5", "an HDF5 file (Keras .h5 weights)")),
    (b"\x1f\x8b", Format("gzip", "gzip-compressed data")),
    (b"\xfd7zXZ\x00", Format("xz", "xz-compressed data")),
    (b"\x28\xb5\x2f\xfd", Format("zstd", "zstd-compressed data")),
    (b"BZh", Format("bzip2", "bzip2-compressed data")),
    (b"7z\xbc\xaf\x27\x1c", Format("7z", "a 7-Zip archive")),
    (b"\x7fELF", Format("elf", "an ELF executable or library")),
    (b"\x89PNG\r\n\x1a\n", Format("png", "a PNG image")),
)
_LFS_POINTER: Final = b"version https://git-lfs.github.com/spec/"
_TEXT_CONTROLS: Final = frozenset(b"\t\n\r\f")
_DECODER: Final = codecs.getincrementaldecoder("utf-8")


def sniff(head: bytes) -> Format | None:
    """Say what a file starting with ``head`` looks like, or None if unsure.

    Only meaningful for a file the reader has already rejected from its first
    bytes: a valid safetensors prefix can begin with any byte.
    """
    for magic, found in _MAGIC:
        if head.startswith(magic):
            return found
    if len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5:
        return Format(
            "pickle",
            f"a Python pickle (protocol {head[1]}; legacy PyTorch checkpoints "
            "are pickles, which can run code when loaded)",
        )
    if head[4:8] == b"TFL3":
        return Format("tflite", "a TensorFlow Lite model")
    return _sniff_text(head)


def _sniff_text(head: bytes) -> Format | None:
    text = _as_text(head)
    if text is None:
        return None
    if text.startswith(_LFS_POINTER.decode()):
        return Format(
            "git-lfs-pointer",
            "a Git LFS pointer file (the model itself was never downloaded: "
            "run `git lfs pull`)",
        )
    start = text.lstrip().lower()
    if start.startswith(("<!doctype html", "<html", "<head", "<body")):
        return Format(
            "html", "an HTML page (a saved error or login page, not the model)"
        )
    if start.startswith("<?xml"):
        return Format("xml", "an XML document")
    if start.startswith(("{", "[")):
        return Format("json", "JSON text (a config, tokenizer or index file?)")
    return Format("text", "plain text")


def _as_text(head: bytes) -> str | None:
    """Decode ``head`` if it reads as text: UTF-8 without other control bytes."""
    if not head or any(byte < 0x20 and byte not in _TEXT_CONTROLS for byte in head):
        return None
    # The cut at SNIFF_SIZE may split a character: an incremental decoder
    # keeps such a tail back instead of calling it an error.
    try:
        return _DECODER().decode(head.removeprefix(b"\xef\xbb\xbf"))
    except UnicodeDecodeError:
        return None
