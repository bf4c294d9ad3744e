"""Fuzzing the inbox as a whole, not only the readers: names, symlinks, special files,
duplicates and sizes, mixed at random beside good championships.

Each example builds an inbox of good championships (each its own competition), their
byte-identical copies (under a browser's copy name, another name, or a symlink), symlinks
out of the inbox, dangling and folder symlinks, FIFOs, empty, binary, gzipped and oversized
(sparse) files, with hostile names (controls, bidirectional overrides, long, spaced,
non-Latin) in nested folders; then reads it as the nightly's ingest does
(:func:`tasks.ingest.read_inbox`). Whatever comes in:

* the read never raises;
* every entry gets exactly one outcome: read into a batch, skipped, ignored or left out
  with its line;
* each content is read once: no competition twice, so no game twice;
* every good championship is read, and nothing outside the inbox is.

Budget: ``RATINGS_INBOX_FUZZ_EXAMPLES`` inboxes (default 25 in CI); 500 for a long run by hand.
"""

from __future__ import annotations

import gzip
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats.limits import MAX_FILE_BYTES
from tasks.ingest import read_inbox

EXAMPLES = int(os.environ.get("RATINGS_INBOX_FUZZ_EXAMPLES", "25"))
GOOD = (Path(__file__).resolve().parents[2] / "examples" / "inbox" / "CAT-2025-01.results.csv").read_text(
    encoding="utf-8")

pytestmark = [pytest.mark.fuzz, pytest.mark.hypothesis]

#: Name fragments an organiser's machine, a browser or an attacker produce.
FRAGMENTS = st.sampled_from([
    "open", "Trobada de Reus", "x\x1b[31m", "a\u202eb", "zero\u200bwidth", "ｆｕｌｌ", "Ελληνικά", "名人戦",
    "tab\there", "new\nline", "quote'\"", "dots..", "-dash", "#hash", "%20", "a" * 150, " lead", "trail ",
])
KINDS = st.sampled_from([
    "good", "copy", "copy", "link-in", "link-out", "dangling", "link-dir", "fifo", "empty", "junk", "gzip",
    "oversize", "players",
])
SUFFIXES = st.sampled_from([".results.csv", ".csv", ".txt", ".trf", "", ".bin"])


def _good(cid: str) -> str:
    return GOOD.replace("CAT-2025-01", cid)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=False,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(entries=st.lists(st.tuples(KINDS, FRAGMENTS, SUFFIXES, st.booleans(), st.integers(0, 50)),
                        min_size=1, max_size=12))
def test_every_inbox_entry_gets_one_outcome_and_each_content_is_read_once(
    entries: list[tuple[str, str, str, bool, int]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        inbox = root / "inbox"
        (inbox / "ajusc" / "club").mkdir(parents=True)
        outside = root / "outside.results.csv"
        outside.write_text(_good("OUTSIDE-1"), encoding="utf-8")
        goods: list[Path] = []        # good championships, each its own competition
        expected: set[str] = set()    # entry names that must have an outcome
        for index, (kind, fragment, suffix, nested, pick) in enumerate(entries):
            folder = inbox / "ajusc" / "club" if nested else inbox
            name = f"{index}-{fragment}{suffix}"
            if kind == "copy" and goods:
                original = goods[pick % len(goods)]
                name = f"{original.name.removesuffix(suffix)} ({index}){suffix}" if pick % 2 else name
            path = folder / name
            if path.exists() or path.is_symlink():
                continue
            if kind == "good" or (kind in ("copy", "link-in") and not goods):
                path.write_text(_good(f"FUZZ-{index}"), encoding="utf-8")
                goods.append(path)
            elif kind == "copy":
                shutil.copyfile(goods[pick % len(goods)], path)
            elif kind == "link-in":
                path.symlink_to(goods[pick % len(goods)])
            elif kind == "link-out":
                path.symlink_to(outside)
            elif kind == "dangling":
                path.symlink_to(root / "nowhere")
            elif kind == "link-dir":
                path.symlink_to(root)
            elif kind == "fifo":
                os.mkfifo(path)
            elif kind == "empty":
                path.write_bytes(b"")
            elif kind == "junk":
                path.write_bytes(bytes(range(256)) * (pick + 1))
            elif kind == "gzip":
                path.write_bytes(gzip.compress(_good(f"GZ-{index}").encode()))
            elif kind == "oversize":
                with path.open("wb") as handle:   # sparse: costs no disk
                    handle.truncate(MAX_FILE_BYTES + 1 + pick)
            elif kind == "players":
                path.write_text("federation,player_id,name\najusc,1001,Puig Anna\n", encoding="utf-8")
            expected.add(path.name)

        ingested = read_inbox(inbox, set())

        read = [source for batch in ingested.batches.values() for source in batch.files.get_column("source")]
        outcomes = (read + list(ingested.files_skipped) + list(ingested.files_ignored)
                    + list(ingested.file_outcomes))
        assert sorted(outcomes) == sorted(expected), (sorted(outcomes), sorted(expected))
        competitions = [cid for batch in ingested.batches.values()
                        for cid in batch.competitions.get_column("competition_id").to_list()]
        assert len(competitions) == len(set(competitions)), competitions   # each content read once
        assert {f"FUZZ-{p.name.split('-', 1)[0]}" for p in goods} <= set(competitions)
        assert "OUTSIDE-1" not in competitions
