"""Generated files of every reader, a good and a broken one each (no ../shared/data needed).

The good ones are the reader tests' own samples (``tests/formats/test_api.py``) and the
EGD golden file; each broken one is the good one spoiled the way a real file goes wrong.
"""

from __future__ import annotations

from pathlib import Path

from tests.formats.test_api import FORMAT_SAMPLES

EGD_CUP = Path(__file__).resolve().parents[1] / "formats" / "data" / "autumn_cup_2025.h9"

BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<Tournament><Players>&lol3;</Players></Tournament>
"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE t [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<Tournament><Players>&xxe;</Players></Tournament>
"""


def good_files() -> dict[str, tuple[str, bytes]]:
    """reader -> (file name, bytes) of a readable file."""
    interchange, trf, opengotha, _egd_tiny, rnd, tsh = FORMAT_SAMPLES
    rows = b"".join(
        f"ajusc,LLIGA-1,2025-10-04,{r},{a},{b},1\n".encode()
        for r, (a, b) in enumerate([(1, 2), (3, 4), (1, 3), (2, 4), (1, 4), (2, 3)], start=1)
    )
    return {
        "interchange": ("lliga.results.csv", interchange.splitlines(keepends=True)[0] + rows),
        "trf": ("open.trf", trf),
        "opengotha": ("cup.xml", opengotha.replace(b'<Tournament dataVersion="201">',
                      b'<Tournament dataVersion="201"><TournamentParameterSet><GeneralParameterSet '
                      b'name="Cup" beginDate="2025-10-04" endDate="2025-10-05" numberOfRounds="1"/>'
                      b'</TournamentParameterSet>')),
        "egd": ("autumn.h9", EGD_CUP.read_bytes()),
        "swissperfect": ("Mana.1.rnd", rnd),
        "tsh": ("lliga.t", tsh),
    }


def broken_files() -> dict[str, tuple[str, bytes]]:
    """reader -> (file name, bytes) of a file that reader must refuse, in part or whole.

    Each is another competition than the good file of its reader (a second version of
    the same competition would replace it, by design: ``tasks.ingest.keep_latest_versions``).
    """
    good = good_files()
    return {
        "interchange": ("broken.results.csv", good["interchange"][1].replace(b"LLIGA-1", b"LLIGA-2")
                        + b"ajusc,LLIGA-2,2025-10-04,7,1,2,nan\n"),
        "trf": ("broken.trf", good["trf"][1].replace(b"012 T", b"012 Broken").replace(b"1800", b"18x0")[:-20]),
        "opengotha": ("bomb.xml", BOMB),
        "opengotha-xxe": ("xxe.xml", EXTERNAL),
        "egd": ("broken.h9", good["egd"][1].replace(b"Autumn Cup", b"Broken Cup").replace(b"4+/w ", b"4+/q9")),
        "swissperfect": ("Broken.1.rnd", good["swissperfect"][1] + b"x|y|z\r\n"),
        "tsh": ("bad-lliga.t", b"#date 2025-13-45\nA, B 1e999 2; 400\n"),
    }
