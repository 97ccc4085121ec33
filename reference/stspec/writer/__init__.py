"""The writer: tensors and metadata in, the canonical bytes out, replaced atomically.

:func:`stspec.serialize`, :func:`stspec.write` and :class:`stspec.Tensor` live
in ``serialize``; ``atomic`` replaces the destination so that a failed or
killed write leaves it untouched.  It loads on first use: reading never pays
for it.
"""
