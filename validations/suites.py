"""Great Expectations suites built from the rule table, and the file-based project.

One expectation suite per federation, rule table and rule-set edition
(``ajusc.aggregate.base``, ``fide.games.2024-03-01`` ...), one expectation per
rule, carrying the rule id in its ``meta``. A file project is created once by
:func:`ensure_gx_project` (concurrent writers corrupt it, so never per task);
:func:`run_suite` runs a suite on a pandas view of a frame and returns the row ids
Great Expectations reports as unexpected.

Great Expectations is imported inside the functions: the import costs seconds
and hundreds of megabytes, and most callers never need it.
"""

from __future__ import annotations

import contextlib
import gc
import importlib.util
import os
import shutil
import sys
import threading
import types
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl

from validations.errors import GxProjectError
from validations.rules import FEDERATIONS, TABLES, Rule, editions, load_rules, rules_for

#: Name of the pandas data source holding one dataframe asset per rule table.
DATASOURCE = "frames"
#: Result format: every failing row, identified by the table's ``row_id``.
RESULT_FORMAT: dict[str, Any] = {
    "result_format": "COMPLETE",
    "unexpected_index_column_names": ["row_id"],
}
#: Where a file project keeps its Data Docs (relative to the project root).
DATA_DOCS_DIR = Path("gx") / "uncommitted" / "data_docs" / "local_site"

_EPHEMERAL: dict[str, Any] = {}
_LOCK = threading.RLock()
# One run at a time per process: Prefect runs tasks in threads, and a GX context
# (its stores and metric caches) is not meant to be shared by concurrent runs. The
# pandas conversion runs under the same lock: polars ``to_pandas`` in several threads
# at once, beside polars work that called back into Python, deadlocked.
_RUN_LOCK = threading.Lock()


def _quiet_env() -> None:
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")


def suite_name(federation: str, table: str, edition: date | None) -> str:
    """The name of the suite for ``federation``, ``table`` and rule-set ``edition``.

    Examples
    --------
    >>> suite_name("fide", "games", date(2024, 3, 1)), suite_name("ajusc", "aggregate", None)
    ('fide.games.2024-03-01', 'ajusc.aggregate.base')
    """
    return f"{federation}.{table}.{edition.isoformat() if edition else 'base'}"


def suite_rules(federation: str, table: str, edition: date | None) -> tuple[Rule, ...]:
    """The rules of one suite: those of ``table`` in force at the edition's start."""
    day = edition if edition is not None else date(1900, 1, 1)
    return tuple(r for r in rules_for(federation, day) if r.table == table)


def expectation(rule: Rule) -> Any:
    """The Great Expectations expectation that checks ``rule``.

    Nulls are not checked by map expectations (Great Expectations skips them): the
    tables derive explicit columns where a null must fail.
    """
    import importlib

    # Typed as Any: the package re-exports its expectation classes without __all__.
    gxe: Any = importlib.import_module("great_expectations.expectations")
    meta = {"rule": rule.id, "severity": rule.severity}
    if rule.expect == "between":
        return gxe.ExpectColumnValuesToBeBetween(
            column=rule.column, min_value=rule.min, max_value=rule.max, meta=meta
        )
    if rule.expect == "in_set":
        return gxe.ExpectColumnValuesToBeInSet(column=rule.column, value_set=list(rule.values), meta=meta)
    if rule.expect == "not_in_set":
        return gxe.ExpectColumnValuesToNotBeInSet(column=rule.column, value_set=list(rule.values), meta=meta)
    if rule.expect == "not_null":
        return gxe.ExpectColumnValuesToNotBeNull(column=rule.column, meta=meta)
    if rule.expect == "unique" and len(rule.columns) == 1:
        return gxe.ExpectColumnValuesToBeUnique(column=rule.columns[0], meta=meta)
    if rule.expect == "unique":
        return gxe.ExpectCompoundColumnsToBeUnique(column_list=list(rule.columns), meta=meta)
    return gxe.ExpectColumnPairValuesAToBeGreaterThanB(
        column_A=rule.column_a, column_B=rule.column_b, or_equal=rule.or_equal,
        # A missing value is another rule's concern (not_null), not an ordering failure.
        ignore_row_if="either_value_is_missing", meta=meta,
    )


def _prepare(context: Any, federations: tuple[str, ...]) -> None:
    """Create (or update) the data source, suites, validation definitions and checkpoints."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    # An ephemeral context has nowhere to save to: not an error for the validations.
    with contextlib.suppress(Exception):
        context.variables.save()
    try:
        source = context.data_sources.get(DATASOURCE)
    except (KeyError, ValueError, LookupError):
        source = context.data_sources.add_pandas(DATASOURCE)
    for table in TABLES:
        try:
            asset = source.get_asset(table)
        except (KeyError, ValueError, LookupError):
            asset = source.add_dataframe_asset(table)
        try:
            batch = asset.get_batch_definition("whole")
        except (KeyError, ValueError, LookupError):
            batch = asset.add_batch_definition_whole_dataframe("whole")
        for federation in federations:
            for edition in editions(federation):
                rules = suite_rules(federation, table, edition)
                if not rules:
                    continue
                name = suite_name(federation, table, edition)
                suite = gx.ExpectationSuite(name=name, expectations=[expectation(r) for r in rules],
                                            meta={"federation": federation, "table": table})
                suite = context.suites.add_or_update(suite)
                definition = context.validation_definitions.add_or_update(
                    gx.ValidationDefinition(name=name, data=batch, suite=suite)
                )
                context.checkpoints.add_or_update(
                    gx.Checkpoint(name=name, validation_definitions=[definition],
                                  result_format=RESULT_FORMAT)
                )


def ensure_gx_project(root: Path, *, federations: tuple[str, ...] = FEDERATIONS) -> Path:
    """Create or update the file-based Great Expectations project under ``root``.

    Idempotent: running it again rewrites the suites from the current rule table
    and changes nothing else. Call it once, before any parallel validation (the
    flow does, at its start): concurrent writers corrupt a file project.

    Parameters
    ----------
    root
        Project root; the project lives in ``root / "gx"``.
    federations
        Federations whose suites are created.

    Returns
    -------
    Path
        ``root / "gx"``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:  # doctest: +SKIP
    ...     ensure_gx_project(Path(d)).name
    'gx'
    """
    gx = _gx()

    root.mkdir(parents=True, exist_ok=True)
    context = gx.get_context(mode="file", project_root_dir=str(root))
    _prepare(context, federations)
    (root / "gx" / RULES_STAMP).write_text(rules_fingerprint(), encoding="utf-8")
    return root / "gx"


#: File in the project recording which rule table its suites were built from.
RULES_STAMP = "rules.sha256"


def rules_fingerprint() -> str:
    """SHA-256 of the rule table the suites are built from (a changed table rebuilds them)."""
    import hashlib

    rules = load_rules()
    text = "\n".join(repr(r) for r in rules)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: Modules Great Expectations imports for expectations no suite here uses: ``scipy.stats`` for its
#: Kolmogorov-Smirnov and KL-divergence expectations, ``altair`` for the KL one's chart. They are
#: 1.0 s and 0.4 s of its 3.3 s import on this project's 2-core machine, paid before a run's first
#: validation (Great Expectations' own process starts then: ``validations.gx_process``), and
#: :class:`_Deferred` imports them only if something reads them.
DEFERRED_MODULES = ("scipy.stats", "altair")


class _Deferred(types.ModuleType):
    """A module imported on first use: the stand-in is in ``sys.modules`` until an attribute is
    read, then the real module is imported in its place and the stand-in takes its attributes, so
    that a module that bound the stand-in (``from scipy import stats``) works unchanged.

    Examples
    --------
    >>> stand_in = _Deferred("colorsys")
    >>> round(stand_in.rgb_to_hsv(0.0, 0.0, 1.0)[0], 4), stand_in.__dict__["_deferred_real"].__name__
    (0.6667, 'colorsys')
    """

    def __getattr__(self, attr: str) -> Any:
        with _DEFER_LOCK:
            real = self.__dict__.get("_deferred_real")
            if real is None:
                if sys.modules.get(self.__name__) is self:
                    del sys.modules[self.__name__]
                real = importlib.import_module(self.__name__)
                vars(self).update(vars(real))
                vars(self)["_deferred_real"] = real
        return getattr(real, attr)


_DEFER_LOCK = threading.RLock()


def _defer(names: tuple[str, ...]) -> None:
    """Put a :class:`_Deferred` stand-in in ``sys.modules`` for each of ``names`` not yet imported."""
    for name in names:
        if name not in sys.modules and importlib.util.find_spec(name.partition(".")[0]) is not None:
            sys.modules[name] = _Deferred(name)


def _gx() -> Any:
    """Great Expectations, its first import made with the cyclic garbage collector paused.

    The import leaves about 430,000 objects (pandas and numpy come with it). The
    collector's full passes during it took about 0.6 s of a night, and each full pass after it
    walked them all again, though they live as long as the process: after one pass, they are
    frozen out of its sight (``gc.freeze``). Reference counting still frees a frozen object.
    """
    _quiet_env()
    if "great_expectations" not in sys.modules:
        _defer(DEFERRED_MODULES)
        enabled = gc.isenabled()
        gc.disable()
        try:
            import great_expectations  # noqa: F401
        finally:
            if enabled:
                gc.enable()
        # Garbage first: what is frozen is never collected, and a cycle that holds a run's frames
        # (read before the first validation) would keep them to the end (a 1M run peaked at 3.5 GB
        # instead of 3.1 GB when the import froze without this pass).
        gc.collect()
        gc.freeze()
    import great_expectations as gx

    return gx


def ephemeral_context(federation: str | None = None) -> Any:
    """A process-wide in-memory context; a federation's suites are built on its first use."""
    gx = _gx()
    with _LOCK:
        if "context" not in _EPHEMERAL:
            _EPHEMERAL["context"] = gx.get_context(mode="ephemeral")
            _EPHEMERAL["prepared"] = set()
        wanted = FEDERATIONS if federation is None else (federation,)
        missing = tuple(f for f in wanted if f not in _EPHEMERAL["prepared"])
        if missing:
            _prepare(_EPHEMERAL["context"], missing)
            _EPHEMERAL["prepared"].update(missing)
        return _EPHEMERAL["context"]


def file_context(root: Path) -> Any:
    """The file project under ``root``, created first if it does not exist yet."""
    gx = _gx()

    stamp = root / "gx" / RULES_STAMP
    try:
        # Threads of one process never rebuild or open the project at the same time.
        with _LOCK:
            current = stamp.read_text(encoding="utf-8").strip() if stamp.exists() else None
            if not (root / "gx" / "great_expectations.yml").exists() or current != rules_fingerprint():
                # A new project, or suites built from an older rule table: (re)build them, so no
                # rule of the table goes unchecked. The flow does this once before validating.
                ensure_gx_project(root)
            return gx.get_context(mode="file", project_root_dir=str(root))
    except Exception as exc:
        raise GxProjectError(f"cannot open the Great Expectations project in {root}: {exc}") from exc


@dataclass(frozen=True)
class Failure:
    """One failed expectation: the rule and the rows Great Expectations reported."""

    rule_id: str            #: the rule the expectation checks
    row_ids: tuple[int, ...]  #: ``row_id`` of every unexpected row


def _to_pandas(frame: pl.DataFrame) -> Any:
    # Dates become datetimes and small ints stay ints: GX compares them natively.
    return frame.to_pandas()


def run_suite(context: Any, name: str, frame: pl.DataFrame, *, file_project: bool) -> list[Failure]:
    """Run suite ``name`` on ``frame`` and return the failures with their row ids.

    A file project runs the suite's checkpoint, which stores the result for Data
    Docs; an ephemeral context runs the validation definition only.

    Raises
    ------
    GxProjectError
        When the suite is missing or an expectation raised (a programming error:
        the derived tables always carry the columns the rules read).
    """
    with _RUN_LOCK:
        data = _to_pandas(frame)
        return _run(context, name, data, file_project=file_project)


def _run(context: Any, name: str, data: Any, *, file_project: bool) -> list[Failure]:
    try:
        if file_project:
            checkpoint = context.checkpoints.get(name)
            outcome = checkpoint.run(batch_parameters={"dataframe": data})
            results = [e for run in outcome.run_results.values() for e in run.results]
        else:
            definition = context.validation_definitions.get(name)
            outcome = definition.run(batch_parameters={"dataframe": data}, result_format=RESULT_FORMAT)
            results = list(outcome.results)
    except (KeyError, ValueError, LookupError) as exc:
        raise GxProjectError(
            f"Great Expectations suite {name!r} is missing: run ensure_gx_project ({exc})"
        ) from exc
    failures: list[Failure] = []
    for result in results:
        info = result.exception_info or {}
        if isinstance(info, dict) and info.get("raised_exception"):
            raise GxProjectError(f"suite {name!r}: expectation raised: {info.get('exception_message')}")
        if result.success:
            continue
        rule_id = str(result.expectation_config.meta.get("rule"))
        rows = result.result.get("unexpected_index_list") or []
        ids = tuple(sorted({int(r["row_id"]) for r in rows if isinstance(r, dict) and "row_id" in r}))
        failures.append(Failure(rule_id=rule_id, row_ids=ids))
    return failures


def build_data_docs(root: Path, *, keep: int = 200) -> Path:
    """Build the project's Data Docs, keeping the ``keep`` newest validation results.

    Data Docs grow slow with thousands of stored results, so older ones are
    removed before the site is rebuilt.

    Returns
    -------
    Path
        The site's ``index.html``.
    """
    _quiet_env()
    context = file_context(root)
    results_dir = root / "gx" / "uncommitted" / "validations"
    if results_dir.is_dir():
        stored = sorted(results_dir.rglob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in stored[keep:]:
            old.unlink(missing_ok=True)
        site_validations = root / DATA_DOCS_DIR / "validations"
        if len(stored) > keep and site_validations.is_dir():
            shutil.rmtree(site_validations)
    context.build_data_docs()
    return root / DATA_DOCS_DIR / "index.html"
