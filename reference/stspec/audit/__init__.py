"""The auditor: everything behind ``stspec check``.

It reads files with the reader (:func:`stspec.read`, :func:`stspec.validate`)
and adds what a person auditing a folder needs: finding the files, checking
them across processes, sharded checkpoints as one model, naming formats that
are not safetensors, summaries, SARIF and the text of the terminal.  Nothing
in the reader or the writer imports it.  Its modules load on demand, so
``import stspec`` does not pay for them.
"""
