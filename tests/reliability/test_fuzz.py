"""Mutation fuzzing of every reader: real files of ../shared/data and generated ones.

Each example takes a seed file of one reader and spoils it the ways files get
spoiled (bytes overwritten, inserted, deleted; lines duplicated, dropped, swapped;
the file cut short; a number made huge, negative, ``nan`` or ``1e999``). Whatever
comes out, :func:`formats.read_bytes` must answer with findings, never an exception
(``format.reader_error`` marks a reader bug), within a time bound, and a file
without a ``reject`` finding must hold only values inside the limits.

Budget: ``RATINGS_FUZZ_EXAMPLES`` examples per reader (default 150, a few minutes
for all readers); ``RATINGS_FUZZ_EXAMPLES=5000`` for a long run by hand.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import formats
from formats.limits import FIELD_RANGES
from tests.conftest import SHARED_DATA
from tests.formats.test_api import FORMAT_SAMPLES
from tests.reliability.inbox import broken_files, good_files

EXAMPLES = int(os.environ.get("RATINGS_FUZZ_EXAMPLES", "150"))
#: Seconds one read of one (small) file may take, on a loaded CI machine.
SECONDS_PER_FILE = 10.0
#: Real files larger than this are not mutated (each example reads the whole file).
MAX_SEED_BYTES = 200_000

pytestmark = [pytest.mark.fuzz, pytest.mark.hypothesis]


def _seeds() -> dict[str, list[tuple[str, bytes]]]:
    """reader -> seed files (name, bytes): the generated samples and the real files."""
    seeds: dict[str, list[tuple[str, bytes]]] = {}
    for name, data in [*good_files().values(), *broken_files().values()]:
        fmt = formats.detect(data, name) or "unknown"
        seeds.setdefault(fmt.split("-")[0], []).append((name, data))
    for data in FORMAT_SAMPLES:
        fmt = formats.detect(data, "sample.bin") or "unknown"
        seeds.setdefault(fmt.split("-")[0], []).append(("sample.bin", data))
    if SHARED_DATA.is_dir():
        for path in sorted(p for p in SHARED_DATA.rglob("*") if p.is_file()):
            if path.stat().st_size > MAX_SEED_BYTES:
                continue
            data = path.read_bytes()
            found = formats.detect(data, path.name)
            if found is not None:
                seeds.setdefault(found.split("-")[0], []).append((path.name, data))
    seeds.pop("unknown", None)
    return seeds


SEEDS = _seeds()
READERS = sorted(SEEDS)

NASTY_NUMBERS = [b"99999999999999999999", b"-1", b"-99999", b"nan", b"inf", b"1e999", b"0", b"", b"1.5",
                 b"\xff", b"2147483648", b"-2147483649"]


@st.composite
def mutated(draw: st.DrawFn, reader: str) -> tuple[str, bytes]:
    name, data = draw(st.sampled_from(SEEDS[reader]))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["overwrite", "insert", "delete", "cut", "lines", "number"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "overwrite":
            chunk = draw(st.binary(min_size=1, max_size=8))
            data = data[:pos] + chunk + data[pos + len(chunk):]
        elif kind == "insert":
            data = data[:pos] + draw(st.binary(min_size=1, max_size=16)) + data[pos:]
        elif kind == "delete":
            data = data[:pos] + data[pos + draw(st.integers(1, 64)):]
        elif kind == "cut":
            data = data[:pos]
        elif kind == "lines":
            lines = data.splitlines(keepends=True)
            if lines:
                i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
                op = draw(st.sampled_from(["dup", "drop", "swap"]))
                if op == "dup":
                    lines.insert(j, lines[i])
                elif op == "drop":
                    del lines[i]
                else:
                    lines[i], lines[j] = lines[j], lines[i]
                data = b"".join(lines)
        else:
            numbers = list(re.finditer(rb"\d+(\.\d+)?", data))
            if numbers:
                m = draw(st.sampled_from(numbers))
                data = data[:m.start()] + draw(st.sampled_from(NASTY_NUMBERS)) + data[m.end():]
    return name, data


FINDINGS: dict[str, int] = {}
FUZZED: dict[str, int] = {}


@pytest.fixture(scope="module", autouse=True)
def _figures() -> Iterator[None]:
    """The figures of a run (shown with ``-s``): files fuzzed and findings produced per format."""
    yield
    for fmt in sorted(FUZZED):
        print(f"\nfuzz: {fmt}: {FUZZED[fmt]} file(s) read, {FINDINGS[fmt]} finding(s)", end="")


def _check(name: str, data: bytes) -> None:
    r = formats.read_bytes(data, name)
    rules = r.findings.get_column("rule").to_list()
    assert "format.reader_error" not in rules, r.findings.get_column("message").to_list()
    assert r.games.select("player_a", "player_b", "source_line").null_count().row(0) == (0, 0, 0)
    if r.ok:
        for frame in (r.competitions, r.players, r.games, r.byes, r.ratings):
            for field, (low, high) in FIELD_RANGES.items():
                if field in frame.columns and frame.height:
                    col = frame.get_column(field).drop_nulls()
                    if col.dtype.is_float():
                        assert col.is_finite().all(), (name, field)
                    assert col.is_between(low, high).all(), (name, field, col.to_list()[:5])
    FUZZED[r.format or "unknown"] = FUZZED.get(r.format or "unknown", 0) + 1
    FINDINGS[r.format or "unknown"] = FINDINGS.get(r.format or "unknown", 0) + r.findings.height


@pytest.mark.parametrize("reader", READERS)
def test_mutated_files_become_findings_never_exceptions(reader: str) -> None:
    @settings(max_examples=EXAMPLES, deadline=timedelta(seconds=SECONDS_PER_FILE), database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(mutated(reader))
    def one(example: tuple[str, bytes]) -> None:
        _check(*example)

    one()


def test_every_seed_file_is_read_within_the_bounds() -> None:
    for seeds in SEEDS.values():
        for name, data in seeds:
            _check(name, data)


@pytest.mark.parametrize("reader", ["opengotha", "opengotha-xxe"])
def test_xml_entity_bombs_and_external_entities_are_refused(reader: str) -> None:
    name, data = broken_files()[reader]
    r = formats.read_bytes(data, name)
    assert r.findings.select("rule", "severity").row(0) == ("format.xml.forbidden", "reject")
    assert r.games.height == 0 and "root:" not in " ".join(r.findings.get_column("message"))


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    from formats import limits

    path = tmp_path / "huge.results.csv"
    with path.open("wb") as f:
        f.truncate(limits.MAX_FILE_BYTES + 1)   # sparse: no disk, and never read
    r = formats.read(path)
    assert r.findings.select("rule", "severity").rows() == [("limits.file_too_large", "reject")]


def test_absurd_round_and_player_counts_are_refused() -> None:
    head = b"federation,competition_id,start_date,round,player_a,player_b,score_a\n"
    r = formats.read_bytes(head + b"ajusc,C,2025-10-04,5000,1,2,1\n", "r.results.csv")
    assert r.findings.filter(pl.col("severity") == "reject").height >= 1
    trf = FORMAT_SAMPLES[1].replace(b"042 2025/10/04", b"042 2025/10/04\rXXR 99999")
    r = formats.read_bytes(trf, "r.trf")
    assert ("limits.value_out_of_range", "rounds_declared") in r.findings.select("rule", "field").rows()
