"""write(): SIGINT and SIGTERM wait for a safe point; other handlers are left alone."""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import TYPE_CHECKING

import pytest

from stspec import serialize, write
from writer.writes import OLD, TENSORS, names

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

pytestmark = [
    pytest.mark.usefixtures("temporary"),
    pytest.mark.skipif(sys.platform == "win32", reason="os.kill with POSIX signals"),
]


@pytest.fixture(autouse=True)
def foreground_dispositions() -> Iterator[None]:
    """SIGINT and SIGTERM as Python sets them up in a foreground process.

    A background job (``pytest &``, nohup, many CI runners) starts with SIGINT
    ignored, so Python installs no ``default_int_handler``; these tests are about
    what write() does with that handler, so they set it up themselves.
    """
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    for signum, handler in saved.items():
        if handler is not None:  # None: set outside Python, cannot be put back
            signal.signal(signum, handler)


def signal_during(
    monkeypatch: pytest.MonkeyPatch, name: str, signum: int, *, call: int = 1
) -> None:
    """Send ``signum`` to this process just before the ``call``-th os.<name>."""
    real = getattr(os, name)
    calls: list[None] = []

    def sending(*args: object, **kwargs: object) -> object:
        calls.append(None)
        if len(calls) == call:
            if signum == signal.SIGTERM:
                # Never let a SIGTERM reach the default action: that would
                # end the test run rather than fail one test.
                assert signal.getsignal(signum) not in {signal.SIG_DFL, None}
            os.kill(os.getpid(), signum)
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, sending)


@pytest.fixture
def redelivered(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """signal.raise_signal, recorded instead of ending the test run."""
    sent: list[int] = []
    monkeypatch.setattr(signal, "raise_signal", sent.append)
    return sent


def test_ctrl_c_mid_write_abandons_it_cleanly(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    signal_during(monkeypatch, "write", signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        write(destination, TENSORS)
    assert destination.read_bytes() == OLD
    assert names(destination.parent) == [destination.name]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_after_the_last_safe_point_finishes_the_write_first(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    signal_during(monkeypatch, "replace", signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        write(destination, TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)
    assert names(destination.parent) == [destination.name]


def test_sigterm_mid_write_abandons_it_then_is_delivered_again(
    destination: Path, monkeypatch: pytest.MonkeyPatch, redelivered: list[int]
) -> None:
    signal_during(monkeypatch, "write", signal.SIGTERM, call=2)
    # Delivered again with the default action, SIGTERM ends the process (see
    # test_write_kills); recorded here, the abandoned write still raises.
    with pytest.raises(KeyboardInterrupt):
        write(destination, TENSORS)
    assert redelivered == [signal.SIGTERM]
    assert destination.read_bytes() == OLD
    assert names(destination.parent) == [destination.name]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_sigterm_after_the_last_safe_point_is_delivered_after_the_write(
    destination: Path, monkeypatch: pytest.MonkeyPatch, redelivered: list[int]
) -> None:
    signal_during(monkeypatch, "replace", signal.SIGTERM)
    write(destination, TENSORS)
    assert redelivered == [signal.SIGTERM]
    assert destination.read_bytes() == serialize(TENSORS)


def test_a_second_signal_waits_for_the_clean_up_too(
    destination: Path, monkeypatch: pytest.MonkeyPatch, redelivered: list[int]
) -> None:
    signal_during(monkeypatch, "write", signal.SIGTERM)
    signal_during(monkeypatch, "close", signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        write(destination, TENSORS)
    # Each once, SIGTERM first: a Ctrl-C must not swallow it.
    assert redelivered == [signal.SIGTERM, signal.SIGINT]
    assert names(destination.parent) == [destination.name]


def recording_handler(seen: list[int]) -> Callable[[int, object], None]:
    def handler(signum: int, _frame: object) -> None:
        seen.append(signum)

    return handler


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_leaves_a_program_s_own_handler_in_charge(
    destination: Path, monkeypatch: pytest.MonkeyPatch, signum: int
) -> None:
    seen: list[int] = []
    handler = recording_handler(seen)
    previous = signal.signal(signum, handler)
    try:
        signal_during(monkeypatch, "write", signum)
        write(destination, TENSORS)  # the handler chose to carry on
        assert signal.getsignal(signum) is handler
    finally:
        signal.signal(signum, previous)
    assert seen == [signum]
    assert destination.read_bytes() == serialize(TENSORS)


def test_leaves_an_ignored_sigterm_ignored(
    destination: Path, monkeypatch: pytest.MonkeyPatch, redelivered: list[int]
) -> None:
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        signal_during(monkeypatch, "write", signal.SIGTERM)
        write(destination, TENSORS)
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert redelivered == []
    assert destination.read_bytes() == serialize(TENSORS)


def test_writes_from_other_threads_without_touching_handlers(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = os.write
    handlers: list[object] = []
    errors: list[BaseException] = []

    def looking(fd: int, data: memoryview) -> int:
        handlers.append(signal.getsignal(signal.SIGINT))
        return real_write(fd, data)

    def run() -> None:
        try:
            write(destination, TENSORS)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion
            errors.append(exc)

    monkeypatch.setattr(os, "write", looking)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert errors == []
    assert set(handlers) == {signal.default_int_handler}
    assert destination.read_bytes() == serialize(TENSORS)
