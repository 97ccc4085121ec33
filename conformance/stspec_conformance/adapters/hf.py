"""Adapter for the Hugging Face ``safetensors`` package (``--impl=safetensors``).

Reading: ``safe_open(path, framework="numpy")`` validates the file and gives
the metadata; ``safetensors.deserialize(bytes)`` gives every tensor's raw bytes
whatever its dtype.  Files above :data:`IN_MEMORY_LIMIT` (the sparse multi-GiB
recipe cases) are not read into memory: after ``safe_open`` has validated
them, dtypes and shapes come from ``get_slice`` and each tensor's bytes are
hashed from the file at the offsets of its header entry (parsed here with the
same last-one-wins rule as HF's serde reader).

Writing: ``safetensors.serialize_file`` with ``TensorSpec``s.  The Python
binding has no names for the F6 dtypes and expresses F4 only as pairs
(``float4_e2m1fn_x2``, so an F4 tensor needs an even last dimension); those
dtypes are left out of the declared ``write_dtypes``.  The dtypes it reads
are probed at start-up, so an older installed version declares what it has.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import struct
from typing import TYPE_CHECKING, Any, Final

import stspec
from stspec_conformance._capabilities import Capabilities
from stspec_conformance._model import (
    HASH_LIMIT,
    Content,
    TensorDigest,
    window_digests_at,
)
from stspec_conformance.adapters._base import InProcessAdapter, RawTensors

if TYPE_CHECKING:
    from collections.abc import Mapping

IN_MEMORY_LIMIT: Final = 256 * 1024 * 1024
_CHUNK: Final = 1 << 20

# spec dtype name -> the name TensorSpec takes (torch spelling)
_SPEC_TO_TORCH: Final = {
    "BOOL": "bool", "U8": "uint8", "I8": "int8", "F8_E5M2": "float8_e5m2",
    "F8_E4M3": "float8_e4m3fn", "F8_E8M0": "float8_e8m0fnu",
    "F8_E4M3FNUZ": "float8_e4m3fnuz", "F8_E5M2FNUZ": "float8_e5m2fnuz",
    "I16": "int16", "U16": "uint16", "F16": "float16", "BF16": "bfloat16",
    "I32": "int32", "U32": "uint32", "F32": "float32", "C64": "complex64",
    "F64": "float64", "I64": "int64", "U64": "uint64", "F4": "float4_e2m1fn_x2",
}  # fmt: skip

# Unambiguous HF 0.8.0 messages -> rule ids (for --check-rules).
_MESSAGES: Final = (
    ("header too small", "FILE-PREFIX"),
    ("header too large", "HEADER-LIMIT"),
    ("invalid header length", "HEADER-BOUNDS"),
    ("invalid UTF-8", "HEADER-UTF8"),
    ("recursion limit exceeded", "JSON-DEPTH"),
    ("unknown variant", "DTYPE-NAME"),
    ("overflow computing buffer size", "SIZE-OVERFLOW"),
    ("does not end up at a byte boundary", "SIZE-BITS"),
    ("invalid shape, data type, or offset", "SIZE-MATCH"),
)


class HFAdapter(InProcessAdapter):
    """The Hugging Face reference implementation, through its Python API."""

    name = "safetensors"

    def __init__(self) -> None:
        import safetensors  # noqa: PLC0415 - optional dependency

        self._st = safetensors
        self.version = str(safetensors.__version__)
        reads = self._readable_dtypes()
        # Before TensorSpec the binding could only write framework tensors.
        writes = hasattr(safetensors, "TensorSpec") and hasattr(
            safetensors, "serialize_file"
        )
        self.capabilities = Capabilities(
            read_dtypes=reads,
            write=writes,
            write_dtypes=reads & frozenset(_SPEC_TO_TORCH) - {"F4"},
            # The canonical layout, but __metadata__ keys in hash-map order: it
            # claims the class so that deviation stays a visible baseline entry.
            canonical=writes,
        )

    def _readable_dtypes(self) -> frozenset[str]:
        """The dtypes this installed version reads (older ones lack F4, F8, C64...).

        Probed, not looked up by version: one eight-element tensor per dtype.
        """
        readable = set()
        for dtype in stspec.DTYPES:
            data = stspec.serialize({"t": (dtype.name, (8,), bytes(dtype.bits))})
            try:
                self._st.deserialize(data)  # type: ignore[no-untyped-call]
            except Exception:  # noqa: BLE001, S112 - any refusal means unsupported
                continue
            readable.add(dtype.name)
        return frozenset(readable)

    def load(self, path: str) -> Content:
        """Validate with ``safe_open``, then take the bytes (see module doc)."""
        with self._st.safe_open(path, framework="numpy") as handle:
            metadata = handle.metadata()
            names = list(handle.keys())
            if os.path.getsize(path) > IN_MEMORY_LIMIT:
                return self._load_streaming(path, handle, names, metadata)
        with open(path, "rb") as file:
            data = file.read()
        tensors = {
            name: TensorDigest.of(
                str(info["dtype"]), tuple(info["shape"]), bytes(info["data"])
            )
            for name, info in self._st.deserialize(data)  # type: ignore[no-untyped-call]
        }
        return Content(None if metadata is None else dict(metadata), tensors)

    @staticmethod
    def _load_streaming(
        path: str,
        handle: Any,  # noqa: ANN401 - safetensors has no type stubs
        names: list[str],
        metadata: dict[str, str] | None,
    ) -> Content:
        with open(path, "rb") as file:
            (length,) = struct.unpack("<Q", file.read(8))
            header = json.loads(file.read(length))  # already validated by HF
            tensors: dict[str, TensorDigest] = {}
            for name in names:
                view = handle.get_slice(name)
                entry = header[name]
                offsets = entry[2] if isinstance(entry, list) else entry["data_offsets"]
                begin, end = int(offsets[0]), int(offsets[1])
                if end - begin > HASH_LIMIT:
                    tensors[name] = TensorDigest(
                        str(view.get_dtype()),
                        tuple(view.get_shape()),
                        end - begin,
                        "",
                        window_digests_at(file, 8 + length + begin, end - begin),
                    )
                    continue
                digest = hashlib.sha256()
                file.seek(8 + length + begin)
                remaining = end - begin
                while remaining:
                    chunk = file.read(min(_CHUNK, remaining))
                    if not chunk:
                        raise OSError("file shrank while reading")
                    digest.update(chunk)
                    remaining -= len(chunk)
                tensors[name] = TensorDigest(
                    str(view.get_dtype()),
                    tuple(view.get_shape()),
                    end - begin,
                    digest.hexdigest(),
                )
        return Content(None if metadata is None else dict(metadata), tensors)

    def save(
        self, path: str, tensors: RawTensors, metadata: Mapping[str, str] | None
    ) -> None:
        """Write through ``serialize_file`` with raw-pointer ``TensorSpec``s."""
        keep_alive = []
        specs = {}
        for name, (dtype, shape, data) in tensors.items():
            if dtype not in _SPEC_TO_TORCH:
                raise ValueError(f"the Python binding cannot write {dtype}")
            dims = list(shape)
            if dtype == "F4":  # TensorSpec doubles the last dimension
                if not dims or dims[-1] % 2:
                    raise ValueError("F4 needs an even last dimension here")
                dims[-1] //= 2
            raw = bytes(data)
            buffer = (ctypes.c_char * len(raw)).from_buffer_copy(raw)
            keep_alive.append(buffer)
            specs[name] = self._st.TensorSpec(
                dtype=_SPEC_TO_TORCH[dtype],
                shape=dims,
                data_ptr=ctypes.addressof(buffer),
                data_len=len(raw),
            )
        self._st.serialize_file(
            specs, path, None if metadata is None else dict(metadata)
        )
        del keep_alive

    def classify(self, exc: BaseException) -> str | None:
        """Map the few unambiguous HF messages to rule ids."""
        text = str(exc)
        for needle, rule in _MESSAGES:
            if needle in text:
                return rule
        return None


def make_adapter() -> HFAdapter:
    """Return the adapter (used by ``--impl=safetensors``)."""
    return HFAdapter()
