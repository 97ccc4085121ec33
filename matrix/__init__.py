"""The results matrix: real safetensors implementations run through the suite.

``python -m matrix`` sets up each implementation in its own environment under
``.matrix/`` (git-ignored), runs ``pytest conformance`` against it with a
wrapper from ``matrix/wrappers/`` and writes ``results/``.  Not part of the
wheel; it imports only the standard library.
"""

__all__: list[str] = []
