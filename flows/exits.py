"""How a ``ratings`` command ends: a user's mistake in one line, the unexpected in one line and
a log file, another run's lock as exit code 3, never a traceback (exit codes in ``flows.errors``).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import NoReturn, ParamSpec

import typer

P = ParamSpec("P")

def friendly(command: Callable[P, None]) -> Callable[P, None]:
    """Turn a user's mistake raised deep inside (a domain ``ValueError``, a missing file, an
    unreachable database) into one line on stderr and exit code 1, another run holding the
    warehouse into exit code 3, and anything unexpected into one line, the path of a log
    file with the details, and exit code 2 (``flows.errors``): never a traceback."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        from sqlalchemy.exc import SQLAlchemyError

        from flows import errors

        try:
            if engine_mode():   # every command runs a flow
                from flows.orchestration import temporary_server_output_to_log

                errors.quiet_console_tracebacks()   # Prefect logs a failed flow's traceback
                temporary_server_output_to_log()
            command(*args, **kwargs)
        except (typer.Exit, typer.Abort, KeyboardInterrupt, SystemExit):
            raise
        except errors_busy() as error:
            fail(str(error), code=errors.EXIT_BUSY)
        except (ValueError, OSError) as error:
            fail(errors.mask_secrets(str(error)))
        except SQLAlchemyError as error:
            from warehouse import redact

            fail(f"warehouse error: {redact(str(getattr(error, 'orig', None) or error)).splitlines()[0]}")
        except Exception as error:  # noqa: BLE001 - the last line of defence: no traceback
            unexpected(error, command.__name__)

    return wrapper


def engine_mode() -> bool:
    """Do the flows run under the Prefect engine (``flows.orchestration``)?"""
    from flows.orchestration import use_prefect_engine

    return use_prefect_engine()


def errors_busy() -> type[Exception]:
    """The exception another run's warehouse lock raises (``warehouse.guard``)."""
    try:
        from warehouse.guard import WarehouseBusyError
    except ImportError:  # pragma: no cover - the guard ships with the warehouse
        return _NeverRaised
    return WarehouseBusyError


class _NeverRaised(Exception):
    """Placeholder for an exception class that does not exist."""


def unexpected(error: BaseException, command: str) -> None:
    from flows import errors

    try:
        where = f"details in {errors.write_error_log(error, command)}"
    except OSError as log_error:
        where = f"and the log could not be written: {log_error}"
    typer.echo(f"ratings: internal error ({errors.one_line(error)}); {where}", err=True)
    raise typer.Exit(code=errors.EXIT_INTERNAL)


def fail(message: str, code: int = 1) -> None:
    first = message.strip().splitlines()
    typer.echo(f"ratings: {first[0] if first else message}"
               + (f" (and {len(first) - 1} more line(s))" if len(first) > 1 else ""), err=True)
    raise typer.Exit(code=code)


def leave(code: int | str | None) -> NoReturn:
    """End the process as ``sys.exit(code)`` does, through the interpreter's own shutdown.

    The shutdown waits for the threads that are not daemons and runs the ``atexit``
    functions in their order (the warehouse engines' finalisers, which close their pools and
    so check a SQLite WAL back into its file; logging's shutdown, which closes its files;
    Prefect's flushes; the test suite's statement count, ``tests/faults.py``). Before it, the
    objects of the run are frozen (:func:`gc.freeze`): the collections of the teardown skip
    them, for what the run writes goes through ``with`` blocks and those finalisers, never
    through a collected cycle.
    A closed pipe (``ratings ... | head``) ends with status 120, as Python's own exit.
    """
    import gc

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:   # sys.exit("message"): the message on stderr, status 1
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 120
    gc.freeze()
    raise SystemExit(status)
