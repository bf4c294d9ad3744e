"""The site folder's manifest (``.pages.json``): the digest of each page's inputs, the code key that
makes every page render again when the code changes, and the files the site owns there."""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

from website import frames
from website._writer import _Writer, inside
from website.errors import SiteError
from website.safe import folder_name

#: The site's manifest: the digest of each page's inputs (see the module's docstring).
MANIFEST = ".pages.json"


@functools.cache
def _code_key() -> str:
    """A digest of what turns inputs into pages: this package's code and templates, Python's
    version (its formatting of numbers) and polars' (its row hashes, :func:`_group_digests`).
    A change to any of them renders every page again."""
    digest = hashlib.blake2b(f"{sys.version} polars {pl.__version__}".encode(), digest_size=16)
    here = Path(__file__).resolve().parent
    for path in sorted([*here.glob("*.py"), *(here / "templates").glob("*.html")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _digest(*inputs: Any) -> str:
    """A digest of a page's inputs: the ``repr`` of plain values (str, numbers, dates, None, and
    tuples, lists and dicts of them), which is the same for equal values in every run."""
    return hashlib.blake2b(repr(inputs).encode("utf-8"), digest_size=16).hexdigest()


def _read_manifest(out: Path) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """The manifest's page digests and each federation's state when its pages were generated (see
    :func:`_plan_cards`), or none (every page renders) when it is missing, unreadable or was
    written by other code or templates."""
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}, {}
    if not isinstance(manifest, dict) or manifest.get("code") != _code_key() or not isinstance(
            manifest.get("pages"), dict) or not isinstance(manifest.get("federations", {}), dict):
        return {}, {}
    return ({str(k): str(v) for k, v in manifest["pages"].items()},
            {str(k): v for k, v in manifest.get("federations", {}).items() if isinstance(v, dict)})


def _write_manifest(out: Path, pages: Mapping[str, str], federations: Mapping[str, Mapping[str, Any]],
                    writer: _Writer, rebuilt: Mapping[str, Mapping[str, Any]]) -> None:
    """Keep what the manifest says of federations not generated now, replace what it says of
    ``rebuilt`` (federation -> state) with this run's; written to a temporary file first, so a
    crash leaves the previous manifest."""
    prefixes = tuple(f"{_fed_dir(federation)}/" for federation in rebuilt)
    kept = {k: v for k, v in pages.items() if not k.startswith(prefixes)}
    kept.update(writer.keys)
    states = {**{k: v for k, v in federations.items() if k not in rebuilt}, **rebuilt}
    files = sorted((set(_owned_files(out)) - {k for k in writer.owned if k.startswith(prefixes)}) | writer.seen)
    temporary = inside(out, out / f"{MANIFEST}.tmp")
    temporary.write_text(json.dumps({"code": _code_key(), "federations": dict(sorted(states.items())),
                                     "pages": dict(sorted(kept.items())), "files": files},
                                    separators=(",", ":")),
                         encoding="utf-8")
    temporary.replace(out / MANIFEST)


def _owned_files(out: Path) -> frozenset[str]:
    """The files of ``out`` the site wrote, as its manifest lists them (whatever code wrote it)."""
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return frozenset()
    if not isinstance(manifest, dict):
        return frozenset()
    listed = manifest.get("files")
    pages = manifest.get("pages")
    names = [*(listed if isinstance(listed, list) else []), *(pages if isinstance(pages, dict) else [])]
    return frozenset(str(name) for name in names)


#: A file the site writes first in its folder: the folder is the site's own.
MARKER = ".ratings-site"


def _site_folder(out: Path) -> None:
    """Refuse a folder the site may not write into: ``/``, the home folder, a file, or a
    non-empty folder it did not make (no manifest of an earlier site there)."""
    resolved = out.resolve()
    if resolved == Path(resolved.anchor) or resolved == Path.home().resolve():
        raise SiteError(f"site folder {str(out)!r} is {'the root folder' if resolved == Path(resolved.anchor) else 'the home folder'}: "
                        "give a folder of the site's own (e.g. site/)")
    if out.exists() and not out.is_dir():
        raise SiteError(f"site folder {str(out)!r} is a file, not a folder")
    ours = (out / MANIFEST).is_file() or (out / MARKER).is_file()
    if out.is_dir() and not ours and any(p.name not in (MANIFEST, MARKER, frames.FOLDER) for p in out.iterdir()):
        raise SiteError(f"site folder {str(out)!r} is not empty and holds no site of ours (no {MANIFEST}): "
                        "give a new or empty folder, so that no file of yours is overwritten")
    # Written before any page: a folder whose first generation was killed half-way, or whose
    # manifest was deleted to render every page again, is still known as the site's own.
    out.mkdir(parents=True, exist_ok=True)
    if not (out / MARKER).is_file():
        (out / MARKER).write_text("This folder is a publication site written by `ratings site`.\n", encoding="utf-8")


def _fed_dir(federation: str) -> str:
    return folder_name(federation)
