"""The generator's element encoders against numpy and ml_dtypes.

The corpus builds tensor bytes from chosen values with its own encoders
(stspec_corpus._values); here those encoders, and the values the manifest
lists, are checked against independent decoders.
"""

from __future__ import annotations

import json
import math
import re
import struct
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import stspec
from stspec_corpus._decode import decode
from stspec_corpus._values import MINIFLOATS, encode, minifloat_code, pack_bits, to_json

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
ML: dict[str, Any] = {
    "F4": ml_dtypes.float4_e2m1fn,
    "F6_E2M3": ml_dtypes.float6_e2m3fn,
    "F6_E3M2": ml_dtypes.float6_e3m2fn,
    "F8_E5M2": ml_dtypes.float8_e5m2,
    "F8_E4M3": ml_dtypes.float8_e4m3fn,
    "F8_E8M0": ml_dtypes.float8_e8m0fnu,
    "F8_E4M3FNUZ": ml_dtypes.float8_e4m3fnuz,
    "F8_E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
}


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return struct.pack("<d", a) == struct.pack("<d", b)


@pytest.mark.parametrize("dtype", sorted(MINIFLOATS))
def test_minifloat_decoder_matches_ml_dtypes(dtype: str) -> None:
    fmt = MINIFLOATS[dtype]
    codes = np.arange(1 << fmt.bits, dtype=np.uint8)
    theirs = codes.view(ML[dtype]).astype(np.float64).tolist()
    for code, value in enumerate(theirs):
        assert _same(fmt.decode(code), value), (dtype, hex(code))


@pytest.mark.parametrize("dtype", sorted(MINIFLOATS))
def test_minifloat_encoder_round_trips_every_value(dtype: str) -> None:
    fmt = MINIFLOATS[dtype]
    for code in range(1 << fmt.bits):
        value = fmt.decode(code)
        back = minifloat_code(dtype, value)
        assert _same(fmt.decode(back), value)
    with pytest.raises(ValueError, match="not exactly representable"):
        minifloat_code(dtype, 0.3)


def test_ieee_encoders_match_numpy() -> None:
    values = [0.0, -0.0, 1.5, -2.0, math.inf, -math.inf, 65504.0, 2.0**-24]
    assert encode("F16", values) == np.array(values, "<f2").tobytes()
    assert encode("F32", values) == np.array(values, "<f4").tobytes()
    assert encode("F64", values) == np.array(values, "<f8").tobytes()
    assert (
        encode("BF16", values[:6]) == np.array(values[:6], ml_dtypes.bfloat16).tobytes()
    )
    pairs = [complex(1.5, -2.0), complex(-0.0, math.inf)]
    assert encode("C64", pairs) == np.array(pairs, "<c8").tobytes()
    ints = [-(2**31), -1, 0, 2**31 - 1]
    assert encode("I32", ints) == np.array(ints, "<i4").tobytes()
    assert encode("U64", [2**64 - 1]) == np.array([2**64 - 1], "<u8").tobytes()
    assert encode("BOOL", [True, False]) == b"\x01\x00"


def test_encoders_refuse_inexact_values() -> None:
    with pytest.raises(ValueError, match="not exactly representable"):
        encode("F16", [0.1])
    with pytest.raises(ValueError, match="BF16"):
        encode("BF16", [1.0 + 2.0**-10])
    with pytest.raises(TypeError):
        encode("BOOL", [1])
    with pytest.raises(ValueError, match="whole bytes"):
        pack_bits([1, 2, 3], 4)


def test_packing_follows_the_spec_examples() -> None:
    # SPEC 6.2: F4 [1.0, -0.5, 6.0, 0.0] are codes 2, 9, 7, 0, stored as 92 07.
    assert encode("F4", [1.0, -0.5, 6.0, 0.0]) == bytes.fromhex("9207")
    # SPEC 6.2: byte 0 = e0 | (e1 & 3) << 6, byte 1 = e1 >> 2 | (e2 & 15) << 4,
    # byte 2 = e2 >> 4 | e3 << 2.
    values = [1.0, -0.0625, 28.0, -3.0]
    e = [minifloat_code("F6_E3M2", v) for v in values]
    formula = bytes(
        [
            (e[0] | (e[1] & 0x03) << 6) & 0xFF,
            (e[1] >> 2 | (e[2] & 0x0F) << 4) & 0xFF,
            (e[2] >> 4 | e[3] << 2) & 0xFF,
        ]
    )
    assert encode("F6_E3M2", values) == formula


def test_value_text_is_python_repr() -> None:
    assert to_json("F32", [1.5, -0.0, math.nan, -math.inf]) == [
        "1.5",
        "-0.0",
        "NaN",
        "-Infinity",
    ]
    assert to_json("C64", [complex(1, -0.0)]) == [["1.0", "-0.0"]]
    assert to_json("BOOL", [True]) == [True]
    assert to_json("U64", [2**64 - 1]) == ["18446744073709551615"]
    assert to_json("I8", [-128]) == ["-128"]


def _valued_entries() -> list[tuple[str, str, dict[str, Any]]]:
    data = json.loads((CORPUS / "manifest.json").read_text("utf-8"))
    return [
        (entry["id"], name, tensor)
        for entry in data["cases"]
        if "file" in entry and entry["verdict"] == "valid"
        for name, tensor in entry.get("expected", {}).get("tensors", {}).items()
        if "values" in tensor
    ]


@pytest.mark.parametrize(
    ("case_id", "name", "tensor"),
    _valued_entries(),
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_manifest_values_decode_independently(
    case_id: str, name: str, tensor: dict[str, Any]
) -> None:
    path = CORPUS / "files" / f"{case_id}.safetensors"
    with stspec.read(path) as loaded:
        data = bytes(loaded.tensor_bytes(name))
    shape = tuple(int(dim) for dim in tensor["shape"])
    assert decode(tensor["dtype"], shape, data) == tensor["values"]


def test_spec_worked_example_is_byte_identical() -> None:
    spec = (ROOT / "spec" / "SPEC.md").read_text("utf-8")
    section = spec[spec.index("### 2.1") : spec.index("## 3 ")]
    lines = re.findall(
        r"^[0-9a-f]{8}  ((?:[0-9a-f]{2} ?)+?)\s*\|", section, re.MULTILINE
    )
    expected = bytes.fromhex("".join(lines).replace(" ", ""))
    path = CORPUS / "files" / "y_example_spec_worked_example.safetensors"
    assert path.read_bytes() == expected
