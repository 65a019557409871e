"""`sparrow serve` whose event loop a test can stall: run as a script, it installs a SIGUSR1 handler,
then runs the ``sparrow`` command. On SIGUSR1 the main thread (the event loop's) spins for the
seconds written in the file named by ``$STALL_FILE``, holding the CPU and the interpreter as CPU-bound
work does; the process's other threads run on between the interpreter's switches. Nothing of this
is in the server: only a test starts a process this way.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType

STALL_FILE = "STALL_FILE"
SCRIPT = [sys.executable, __file__]


def _stall(_signum: int, _frame: FrameType | None) -> None:
    until = time.monotonic() + float(Path(os.environ[STALL_FILE]).read_text())
    spins = 0
    while time.monotonic() < until:
        spins += 1


if __name__ == "__main__":
    signal.signal(signal.SIGUSR1, _stall)
    sys.path.remove(os.path.dirname(os.path.abspath(__file__)))  # the server's imports, not the tests'
    from server.cli import main

    sys.exit(main())
