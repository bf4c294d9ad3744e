"""Run by test_crash.py in a child process: start a load, then die inside its transaction.

``python -m tests.warehouse.crash_loader URL FILE...`` loads the interchange files
as one batch and, when the load is about to upsert players (games, byes and
findings already written, uncommitted), prints the games it can see and kills
itself with SIGKILL: no rollback, no cleanup, like the OOM killer at 3 a.m.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import event

from tests.warehouse.conftest import batch_from_interchange
from warehouse import get_engine, load_batch


def main(url: str, files: list[str]) -> None:
    engine = get_engine(url)

    @event.listens_for(engine, "before_cursor_execute")
    def _die(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
        if statement.startswith("INSERT INTO player_aliases"):
            probe = conn.connection.driver_connection.cursor()
            probe.execute("SELECT count(*) FROM games")
            print(f"games visible in the doomed transaction: {probe.fetchone()[0]}", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

    load_batch(engine, batch_from_interchange([Path(f) for f in files], "ajusc"))
    print("load finished: the kill point was never reached", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
