"""How the ``ratings`` command ends: exit codes, and unexpected errors kept out of the terminal.

The CLI never prints a traceback: a user's mistake is one line and exit
code :data:`EXIT_USER`; anything unexpected is one line naming the error and the log
file that holds the details (the traceback, passwords masked), and exit code
:data:`EXIT_INTERNAL`.
"""

from __future__ import annotations

import os
import re
import tempfile
import traceback
from datetime import UTC, datetime
from pathlib import Path

#: The run completed (rejected competitions are a normal, reported outcome).
EXIT_OK = 0
#: Could not run: a user's mistake (unknown federation, missing file, bad date, a refused
#: starting list) or an unreachable / refused warehouse. The line says what to fix.
EXIT_USER = 1
#: An unexpected internal error (a bug): one line plus the path of a log with the details.
EXIT_INTERNAL = 2
#: Another run holds the federation's warehouse lock (a nightly, a backfill): try again later.
EXIT_BUSY = 3
#: A usage error: a missing or unknown option, or a bad value given on the command line
#: (the ``EX_USAGE`` of ``sysexits.h``). The line says which option, and where to read help.
EXIT_USAGE = 64

_PASSWORD_IN_URL = re.compile(r"(?P<head>[a-z][a-z0-9+.\-]*://[^:/@\s]*:)(?P<pw>[^@\s]*)(?P<tail>@)", re.IGNORECASE)


def mask_secrets(text: str) -> str:
    """``text`` with the password of every URL in it masked, and any known secret removed.

    Examples
    --------
    >>> mask_secrets("could not connect to postgresql+psycopg://ratings:s3cret@db/x")
    'could not connect to postgresql+psycopg://ratings:***@db/x'
    """
    text = _PASSWORD_IN_URL.sub(lambda m: f"{m['head']}***{m['tail']}", text)
    for name in ("RATINGS_WAREHOUSE_URL", "RATINGS_TEST_POSTGRES_URL"):
        url = os.environ.get(name, "")
        match = _PASSWORD_IN_URL.search(url)
        if match and match["pw"]:
            text = text.replace(match["pw"], "***")
    from warehouse.db import secret_passwords  # URLs read from a Prefect Secret block

    for password in secret_passwords():
        text = text.replace(password, "***")
    return text


def log_dir() -> Path:
    """Where error logs go: ``$RATINGS_LOG_DIR``, else ``$RATINGS_HOME/logs``, else ``./logs``.

    Falls back to the system's temporary folder when that folder cannot be written.
    """
    explicit = os.environ.get("RATINGS_LOG_DIR")
    home = os.environ.get("RATINGS_HOME")
    folder = Path(explicit) if explicit else (Path(home) / "logs" if home else Path("logs"))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".write-test"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
        return folder
    except OSError:
        return Path(tempfile.gettempdir())


def write_error_log(error: BaseException, command: str) -> Path:
    """Write ``error``'s traceback (secrets masked) to a new log file; return its path."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    path = log_dir() / f"ratings-error-{stamp}-{os.getpid()}.log"
    detail = "".join(traceback.format_exception(error))
    path.write_text(
        mask_secrets(f"ratings {command}: unexpected error at {stamp}\n\n{detail}"), encoding="utf-8"
    )
    return path


def affects_every_federation(error: BaseException) -> bool:
    """An error no other federation would escape: the warehouse unreachable or gone, another
    run's lock. The nightly run stops on these; any other error stops one federation only."""
    from sqlalchemy.exc import InterfaceError, OperationalError

    names = {cls.__name__ for cls in type(error).__mro__}
    return isinstance(error, (OperationalError, InterfaceError)) or bool(
        names & {"WarehouseUnavailableError", "WarehouseBusyError", "MigrationError"}
    )


def one_line(error: BaseException) -> str:
    """``TypeName: first line of the message``, secrets masked."""
    text = str(error).strip().splitlines()
    first = text[0] if text else ""
    return mask_secrets(f"{type(error).__name__}: {first}" if first else type(error).__name__)


class _NoTraceback:
    """A logging filter that keeps a record's message and drops its traceback (console only).

    The console handler runs after the Prefect API handler of the flow-run loggers
    (propagation reaches the root last), so the run's logs in Prefect keep the
    traceback; the terminal gets one line, and the error log the details.
    """

    def filter(self, record: object) -> bool:
        for attr in ("exc_info", "exc_text", "stack_info"):
            if getattr(record, attr, None):
                setattr(record, attr, None)
        return True


def quiet_console_tracebacks() -> None:
    """Configure Prefect's logging, then keep tracebacks off its console handlers."""
    import logging

    import prefect.main  # noqa: F401 - sets up Prefect's logging (its console handler)
    from prefect.logging.handlers import PrefectConsoleHandler

    for handler in logging.getLogger().handlers:
        if isinstance(handler, PrefectConsoleHandler) and not any(
            isinstance(f, _NoTraceback) for f in handler.filters
        ):
            handler.addFilter(_NoTraceback())
