"""EGF specifics for validation: tournament class from the time control, grades.

Source: EGF tournament classes (in force since 1999, class D for Internet events
since 2015), as published by the EGF rating commission (Ales Cieply's "Comments
on submitting tournament results", EGD): class A basic time >= 60 min and adjusted
time >= 75 min, B 40 / 50, C 25 / 30, D (online, national organisations) 40 / 50.
Adjusted time = basic time + the time for 45 moves of standard byo-yomi, 60 of
Canadian byo-yomi, or 120 Fischer increments; sudden death: adjusted = basic.
"""

from __future__ import annotations

import re

#: (class, minimum basic time, minimum adjusted time), strongest first, over the board.
CLASS_TIME_LIMITS: tuple[tuple[str, float, float], ...] = (
    ("A", 60.0, 75.0),
    ("B", 40.0, 50.0),
    ("C", 25.0, 30.0),
)
#: Class D: Internet tournaments (minimum basic and adjusted time).
ONLINE_CLASS_LIMITS: tuple[str, float, float] = ("D", 40.0, 50.0)
#: Weakest-last order of the classes, used to compare a declared class with the time control.
CLASS_ORDER: tuple[str, ...] = ("A", "B", "C", "D")

_GRADE = re.compile(r"^\s*(\d{1,2})\s*([kKdDpP])\s*$")


def tournament_class(
    basic_time_min: float | None, adjusted_time_min: float | None = None, *, online: bool = False,
) -> str | None:
    """The strongest EGF tournament class a time control allows.

    Parameters
    ----------
    basic_time_min
        Basic (main) thinking time per player, in minutes.
    adjusted_time_min
        Basic time plus the overtime equivalent (45 standard byo-yomi moves, 60
        Canadian, 120 Fischer increments); ``None`` means sudden death (= basic).
    online
        An Internet tournament (only class D applies).

    Returns
    -------
    str | None
        ``"A"`` .. ``"D"``, or ``None`` when the time control is unknown or too short
        for any class.

    Examples
    --------
    >>> tournament_class(60, 75), tournament_class(45, 75), tournament_class(30, 30)
    ('A', 'B', 'C')
    >>> tournament_class(40, 60, online=True), tournament_class(20), tournament_class(None)
    ('D', None, None)
    """
    if basic_time_min is None:
        return None
    adjusted = basic_time_min if adjusted_time_min is None else adjusted_time_min
    limits = (ONLINE_CLASS_LIMITS,) if online else CLASS_TIME_LIMITS
    for name, basic_min, adjusted_min in limits:
        if basic_time_min >= basic_min and adjusted >= adjusted_min:
            return name
    return None


def grade_value(rank: str | None) -> int | None:
    """A Go grade as a number of grades above 30k (20k = 10, 1k = 29, 1d = 30, 7d = 36).

    Professional grades count from 7d up (1p = 37). ``None`` when unreadable.

    Examples
    --------
    >>> grade_value("3k"), grade_value("1D"), grade_value("1k") - grade_value("5k"), grade_value("x")
    (27, 30, 4, None)
    """
    if rank is None:
        return None
    match = _GRADE.match(rank)
    if match is None:
        return None
    number, kind = int(match.group(1)), match.group(2).lower()
    if kind == "k":
        return 30 - number if 1 <= number <= 30 else None
    if kind == "d":
        return 29 + number if 1 <= number <= 9 else None
    return 36 + number if 1 <= number <= 9 else None


def adjusted_time(
    basic_time_min: float,
    system: str | None = None,
    *,
    byoyomi_seconds: float = 0.0,
    canadian_moves: int = 0,
    fischer_seconds: float = 0.0,
) -> float:
    """Adjusted time in minutes: basic time plus the EGF overtime equivalent.

    Parameters
    ----------
    basic_time_min
        Basic time per player, minutes.
    system
        ``"STDBYOYOMI"`` (``byoyomi_seconds`` per move, 45 moves counted),
        ``"CANBYOYOMI"`` (``byoyomi_seconds`` per ``canadian_moves`` moves, 60 moves
        counted), ``"FISCHER"`` (``fischer_seconds`` per move, 120 moves counted) or
        sudden death (anything else: no overtime). OpenGotha's
        ``complementaryTimeSystem`` values.

    Examples
    --------
    >>> adjusted_time(45, "CANBYOYOMI", byoyomi_seconds=300, canadian_moves=25)  # Bogazici 2024
    57.0
    >>> adjusted_time(60, "STDBYOYOMI", byoyomi_seconds=30), adjusted_time(45, "FISCHER", fischer_seconds=15)
    (82.5, 75.0)
    """
    kind = (system or "").upper()
    if kind == "STDBYOYOMI":
        return basic_time_min + 45 * byoyomi_seconds / 60
    if kind == "CANBYOYOMI" and canadian_moves > 0:
        return basic_time_min + 60 * (byoyomi_seconds / canadian_moves) / 60
    if kind == "FISCHER":
        return basic_time_min + 120 * fischer_seconds / 60
    return float(basic_time_min)
