"""Child process of the guard tests: take the run lock, record entry and exit, maybe die inside.

``python -m tests.reliability.guard_holder URL LOG TIMES [die]``
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from warehouse.db import get_engine
from warehouse.guard import hold


def main(url: str, log: str, times: int, die: bool) -> None:
    engine = get_engine(url)
    for _ in range(times):
        with hold(engine):
            with Path(log).open("a", encoding="utf-8") as f:
                f.write(f"enter {os.getpid()}\n")
            if die:
                os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(0.05)
            with Path(log).open("a", encoding="utf-8") as f:
                f.write(f"leave {os.getpid()}\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), len(sys.argv) > 4 and sys.argv[4] == "die")
