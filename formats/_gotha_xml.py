"""The XML of an OpenGotha file (:mod:`formats.opengotha`), parsed with :mod:`defusedxml` (no DTD,
no entity expansion) through SAX, so that every element keeps its line; a file saved in another
encoding than it declares is read again as the text it most likely is."""

from __future__ import annotations

import re
import xml.sax
from xml.sax.handler import ContentHandler
from xml.sax.xmlreader import AttributesImpl, Locator

import defusedxml.sax
from defusedxml import DefusedXmlException

from formats._common import Findings, decode

__all__ = ["Element", "parse"]

Element = tuple[str, int, dict[str, str]]  # tag, line, attributes


class _Handler(ContentHandler):
    def __init__(self) -> None:
        super().__init__()
        self.locator: Locator | None = None
        self.elements: list[Element] = []

    def setDocumentLocator(self, locator: Locator) -> None:
        self.locator = locator

    def startElement(self, name: str, attrs: AttributesImpl) -> None:
        if name in ("Player", "Game", "ByePlayer", "GeneralParameterSet", "Tournament"):
            line = (self.locator.getLineNumber() or 0) if self.locator else 0
            self.elements.append((name, line, {k: attrs[k] for k in attrs.getNames()}))


def _sax(data: bytes) -> list[Element]:
    handler = _Handler()
    defusedxml.sax.parseString(data, handler)
    return handler.elements


def _refuse(exc: Exception, f: Findings) -> None:
    if isinstance(exc, DefusedXmlException):
        f.add(
            "format.xml.forbidden",
            "reject",
            f"the XML uses a DTD or entities, which are refused for safety ({type(exc).__name__})",
            line=1,
        )
    elif isinstance(exc, xml.sax.SAXParseException):
        f.add(
            "format.xml.malformed",
            "reject",
            f"the XML is not well formed: {exc.getMessage()}",
            line=exc.getLineNumber(),
        )
    else:
        f.add("format.xml.malformed", "reject", f"the XML cannot be read: {exc}", line=1)


def parse(data: bytes, f: Findings) -> list[Element] | None:
    try:
        return _sax(data)
    except (DefusedXmlException, xml.sax.SAXParseException, LookupError, ValueError) as exc:
        first = exc
    dec = decode(data)
    unknown_encoding = isinstance(first, LookupError)
    if not unknown_encoding and (
        dec.first_non_utf8_line is None or not isinstance(first, xml.sax.SAXParseException)
    ):
        _refuse(first, f)
        return None
    # Saved in another encoding than it declares (or an encoding Python does not know):
    # read the bytes as the text they most likely are, without the declaration.
    text = re.sub(
        r"^(\s*<\?xml[^>]*?)encoding\s*=\s*[\"'][^\"']*[\"']", r"\1", dec.text.lstrip("\ufeff")
    )
    why = (
        f"declares an unknown encoding ({first})"
        if unknown_encoding
        else f"is not UTF-8 as it declares (line {dec.first_non_utf8_line})"
    )
    f.add(
        "format.xml.encoding",
        "warn",
        f"the file {why}; read as {dec.encoding}: check the names",
        line=dec.first_non_utf8_line or 1,
    )
    try:
        return _sax(text.encode("utf-8"))
    except (DefusedXmlException, xml.sax.SAXParseException, LookupError, ValueError) as exc:
        _refuse(exc, f)
    return None
