"""pure-safetensors 0.3.2 moves every empty tensor to [0, 0] before checking.

    .matrix/pure-safetensors/venv/bin/python matrix/repro/puresafe_empty_offsets.py

Its header schema's ``post_load`` replaces an empty tensor's offsets with 0
("if it's a zero-length tensor, place it at the very beginning"), so no
check sees where the file put it: an empty tensor at [2, 2] inside another
tensor's [0, 4], or at [8, 8] past a 4-byte buffer, is read as [0, 0].
Dropping ``validate``'s ``if start != end`` alone is no fix: with the
offsets gone it refuses a valid file too (empty tensors at [4, 4] after a
tensor at [0, 4]).
"""

import os
import warnings

import pure_safetensors.safetensors as ps
from _files import make

warnings.simplefilter("ignore")  # "module sparsefile not available"
F32 = {"dtype": "F32", "shape": [1]}
EMPTY = {"dtype": "F32", "shape": [0]}
FILES = {
    "e at [2, 2] inside a at [0, 4]": (
        {"a": {**F32, "data_offsets": [0, 4]}, "e": {**EMPTY, "data_offsets": [2, 2]}},
        bytes(4),
    ),
    "e at [8, 8] past a 4-byte buffer": (
        {"a": {**F32, "data_offsets": [0, 4]}, "e": {**EMPTY, "data_offsets": [8, 8]}},
        bytes(4),
    ),
    "valid: e at [4, 4] after a at [0, 4]": (
        {"a": {**F32, "data_offsets": [0, 4]}, "e": {**EMPTY, "data_offsets": [4, 4]}},
        bytes(4),
    ),
}


def validate_every_tensor(self: ps.SafeTensors.FileMap) -> None:
    """``FileMap.validate``'s overlap check without ``if start != end``."""
    prev_end = self.header_size
    for name, tensor in self.tensors.items():
        if tensor.start < prev_end:
            raise ps.SafeTensorError(
                f"tensor {name!r} overlaps with previous structure"
            )
        prev_end = tensor.end


def read(path: str) -> str:
    """What ``SafeTensors(path, "r")`` makes of the file."""
    try:
        with ps.SafeTensors(path, "r") as st:
            at = {
                name: [t.start - st.map.header_size, t.end - st.map.header_size]
                for name, t in st.map.tensors.items()
            }
            return f"accepted, read as {at}"
    except ps.SafeTensorError as exc:
        return f"refused: {exc}"


for what, (header, data) in FILES.items():
    path = make(header, data)
    print(f"{what}: {read(path)}")
    published = ps.SafeTensors.FileMap.validate
    ps.SafeTensors.FileMap.validate = validate_every_tensor
    print(f"  without `if start != end`: {read(path)}")
    ps.SafeTensors.FileMap.validate = published
    os.unlink(path)
