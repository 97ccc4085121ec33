"""What a published text may not hold: machine paths and wrapper stack frames.

The suite's messages name the files it wrote (``/tmp/pytest-of-.../case``),
and an implementation's error may carry a JavaScript or Java stack through
the matrix's own wrapper.  Neither says anything about the library, and a
path says something about the machine that ran it, so ``results/*.json``, the
pages and the findings keep only a file's name and drop the frames.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["scrub"]

# one stack frame of V8 ("at f (file:///x/y.mjs:1:2)", "at async f (...)",
# "at file:///x/y.mjs:1:2") or of the JVM ("at a.b.C.d(C.java:12)")
_FRAME: Final = re.compile(
    r"\s+at\s+(?:async\s+)?(?:[\w$.<>\[\]]+\s*\([^()\n]*\)|(?:file|node):\S+)"
)
# a crate's source in cargo's registry, as a Rust panic names it: kept is
# the path from the crate's folder on ("safetensors-0.2.8/src/tensor.rs"),
# which says which crate and version panicked and nothing of the machine
_CARGO: Final = re.compile(
    r"(?<![\w.~-])/(?:[^\s/:'\"()<>,;]+/)*registry/src/[^\s/:'\"()<>,;]+/"
)
# an absolute path or file URL: kept is its last part, the file's name; a
# path begins a word (not "read/write", not "1/2")
_PATH: Final = re.compile(r"(?:file://+|(?<![\w.~-])/)(?:[^\s/:'\"()<>,;]+/)+")
# a stack frame that a message was cut off in, in its place ("at f (fu...")
# or, at the message's end, in its function's name ("at rea...")
_CUT_FRAME: Final = re.compile(
    r"\s+at\s+(?:async\s+)?"
    r"(?:[\w$.<>\[\]]+\s*\([^()\n]*?\.\.\.|[\w$.<>\[\]]+\.\.\.\Z)"
)
# the start of an absolute path that a message was cut off in ("/wor...")
_CUT_PATH: Final = re.compile(r"(?<![\w.~-])/[^\s/:'\"()<>,;]*\.\.\.")


def scrub(text: str) -> str:
    """``text`` without stack frames and with each absolute path cut to its name.

    A path into cargo's registry keeps its crate's folder and what follows.
    """
    text = _CUT_FRAME.sub("...", _FRAME.sub("", _CARGO.sub("", text)))
    return _CUT_PATH.sub("...", _PATH.sub("", text))
