"""SIGINT policy: raise KeyboardInterrupt in a running cell, ignore it while idle.

The host interrupts cells by signalling the whole process group; an idle kernel must survive that,
since the signal may arrive just after the cell finished.
"""

import contextlib
import signal
import threading

_MAIN = threading.main_thread().ident


class _State:
    running = False  # a cell is executing
    holding = 0  # main thread is inside a section that must not be torn by KeyboardInterrupt
    pending = False  # an interrupt arrived while holding
    received = 0  # interrupts delivered to running cells, ever


state = _State()


def _handler(signum, frame):
    __tracebackhide__ = True  # noqa: F841 - IPython leaves this frame out of the cell's traceback
    if not state.running:
        return
    state.received += 1
    if state.holding:
        state.pending = True
        return
    raise KeyboardInterrupt


def install():
    signal.signal(signal.SIGINT, _handler)


def request():
    """An interrupt asked for over the protocol (no signal reaches a kernel behind ssh or a container):
    SIGINT to the kernel's group, as the host sends locally, so a cell's `!sleep` stops too."""
    import os

    try:
        if os.getpgrp() == os.getpid():
            os.killpg(os.getpid(), signal.SIGINT)
        else:
            os.kill(os.getpid(), signal.SIGINT)
    except OSError:
        pass


@contextlib.contextmanager
def deferred():
    """Delays a KeyboardInterrupt aimed at the main thread until the block is done."""
    if threading.get_ident() != _MAIN:
        yield
        return
    state.holding += 1
    try:
        yield
    finally:
        state.holding -= 1
        if state.pending and not state.holding:
            state.pending = False
            if state.running:
                raise KeyboardInterrupt
