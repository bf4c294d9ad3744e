"""FIDE rating periods: which list a tournament is rated in.

Monthly lists since July 2012, every two months (odd months) from July 2009,
quarterly before. A tournament is rated in the first list published after its end
date; the period is named after that list (``"2025-11"``).
"""

from __future__ import annotations

from datetime import date

_EPOCH = date(1970, 1, 1)


def _is_list_date(d: date) -> bool:
    if d.day != 1:
        return False
    if d >= date(2012, 7, 1):
        return True
    if d >= date(2009, 7, 1):
        return d.month % 2 == 1
    return d.month in (1, 4, 7, 10)


def next_list(day: date) -> date:
    """The first rating list published after ``day``: the period it is rated in.

    Examples
    --------
    >>> next_list(date(2025, 10, 3)), next_list(date(2010, 2, 14)), next_list(date(2005, 5, 1))
    (datetime.date(2025, 11, 1), datetime.date(2010, 3, 1), datetime.date(2005, 7, 1))
    """
    y, m = day.year, day.month
    while True:
        m += 1
        if m > 12:
            y, m = y + 1, 1
        cand = date(y, m, 1)
        if _is_list_date(cand):
            return cand


def period_label(day: date) -> str:
    """Name of the rating period a tournament ending on ``day`` is rated in.

    Examples
    --------
    >>> period_label(date(2025, 10, 31))
    '2025-11'
    """
    d = next_list(day)
    return f"{d.year:04d}-{d.month:02d}"


def months_before(d: date, months: int) -> date:
    """The first of the month ``months`` before ``d``'s month.

    Examples
    --------
    >>> months_before(date(2025, 3, 1), 26)
    datetime.date(2023, 1, 1)
    """
    y, m = divmod(d.year * 12 + (d.month - 1) - months, 12)
    return date(y, m + 1, 1)


def day_number(d: date) -> int:
    """Days since 1970-01-01 (the kernel's dates).

    Examples
    --------
    >>> day_number(date(1970, 1, 2))
    1
    """
    return (d - _EPOCH).days
