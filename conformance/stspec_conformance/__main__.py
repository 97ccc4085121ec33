"""``python -m stspec_conformance COMMAND``: the suite's helpers outside pytest.

``examples [NAME]`` prints where the example readers are installed;
``check-program "cmd:PROGRAM ARGS"`` checks a command reader's answers on a
few corpus files.  The suite itself runs through pytest (``pytest --pyargs
stspec_conformance --impl=X``), and in CI through ``python -m
stspec_conformance.action``.
"""

from __future__ import annotations

import sys

__all__ = ["main"]

_USAGE = """usage: python -m stspec_conformance COMMAND ...

commands:
  examples [NAME]                 where the example readers are installed
  check-program "cmd:PROGRAM"     a command reader's answers, checked on a few files

The suite itself: pytest --pyargs stspec_conformance --impl=X
"""


def main(argv: list[str] | None = None) -> int:
    """Dispatch to a command; exit status 2 with the usage for anything else."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "examples":
        from stspec_conformance._examples import main as examples  # noqa: PLC0415

        return examples(args[1:])
    if args and args[0] == "check-program":
        from stspec_conformance._check_program import main as check  # noqa: PLC0415

        return check(args[1:])
    sys.stdout.write(_USAGE)
    return 0 if args[:1] in (["-h"], ["--help"]) else 2


if __name__ == "__main__":
    sys.exit(main())
