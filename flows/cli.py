"""The ``ratings`` command line (DESIGN.md, "CLI").

``run``, ``backfill`` and ``whatif`` run the flows, showing their stages as they go:
under the Prefect engine when a Prefect API is configured (``PREFECT_API_URL``, the
profile), else in-process, without starting a Prefect server
(``flows/orchestration.py``; ``RATINGS_ORCHESTRATOR=prefect|local`` forces one way).
The other commands (``seed``, ``list``, ``report``, ``approve``, ``decline``, ``site``)
run their own flows the same way: the flows orchestrate tasks, the tasks touch the
stages, and the commands keep the presentation. A user's mistake (an unknown federation,
a missing file, an unreachable database) ends with a one-line reason and a
non-zero exit code, never a traceback.

The commands live in ``flows/cli_runs.py`` (the pipeline's runs), ``flows/cli_lists.py``
(lists, reports, decisions) and ``flows/cli_admin.py`` (the desk and delivery), registered
on the one app of ``flows/cli_app.py``; this module gathers them and is the entry point.
"""

from __future__ import annotations

import sys

import typer

# The application first (it sets the environment Prefect reads), then its commands, in the
# order ``ratings --help`` lists them: each module registers its commands on ``app``.
# isort: off
from flows.cli_app import ListFormat, app
from flows import cli_runs  # noqa: F401 - run, seed, backfill, whatif
from flows import cli_lists  # noqa: F401 - list, approve, decline, reprocess, site, check, report
from flows import cli_admin  # noqa: F401 - account, organiser, serve, deliveries
# isort: on
from flows.cli_lists import _LIST_FILE_FORMATS
from flows.exits import leave

__all__ = ["_LIST_FILE_FORMATS", "ListFormat", "app", "main"]


def main() -> None:
    """Console-script entry point: never a traceback (exit codes in ``flows.errors``); ends
    without tearing the interpreter down (:func:`leave`)."""
    try:
        _main()
    except SystemExit as done:
        leave(done.code)
    leave(0)


def _main() -> None:
    from typer._click import exceptions as click

    from flows import errors

    try:
        code = app(standalone_mode=False)
    except click.UsageError as error:   # a missing or unknown option, a bad value: one line, 64
        where = error.ctx.command_path if error.ctx is not None else "ratings"
        typer.echo(f"{where}: {error.format_message()} (see '{where} --help')", err=True)
        sys.exit(errors.EXIT_USAGE)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except typer.Abort:
        typer.echo("ratings: aborted", err=True)
        sys.exit(errors.EXIT_USER)
    except ValueError as error:   # the project's domain errors subclass ValueError
        typer.echo(f"ratings: {errors.mask_secrets(str(error)).splitlines()[0]}", err=True)
        sys.exit(errors.EXIT_USER)
    except OSError as error:
        typer.echo(f"ratings: {errors.mask_secrets(str(error))}", err=True)
        sys.exit(errors.EXIT_USER)
    except Exception as error:  # noqa: BLE001 - raised outside a command (option parsing, import)
        try:
            where = f"details in {errors.write_error_log(error, ' '.join(sys.argv[1:2]))}"
        except OSError as log_error:
            where = f"and the log could not be written: {log_error}"
        typer.echo(f"ratings: internal error ({errors.one_line(error)}); {where}", err=True)
        sys.exit(errors.EXIT_INTERNAL)
    sys.exit(code if isinstance(code, int) else errors.EXIT_OK)


if __name__ == "__main__":
    main()
