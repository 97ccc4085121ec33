"""The reader: bytes in, a validated file or the rules it breaks out.

:func:`stspec.read`, :func:`stspec.validate` and :class:`stspec.SafetensorsFile`
live here (``pipeline``), with the parts of the check they run: the strict
JSON parser (``strict_json``), the header's members (``header``), the byte
buffer (``layout``), the bounded collection of violations (``report``), the
table of tensors (``table``) and reading without a mapping (``unmapped``).
It imports nothing from the writer or the auditor.
"""
