"""Rounding half away from zero, safe against binary floating point.

Federations round ratings "half away from zero" (FIDE Rating Regulations 2024,
8.3.4; the AJUSC sheet's ``ROUND``). ``round()`` in Python rounds half to even,
and a value such as ``2.675`` is stored as ``2.67499999...``; both would give the
wrong integer. Like a spreadsheet's ``ROUND``, which works on 15 significant
digits, a value within :data:`HALF_TOLERANCE` of a half counts as the half.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

#: A value this close to ``n + 0.5`` is treated as exactly the half.
HALF_TOLERANCE = 1e-9


#: Rating systems whose federations publish whole ratings (BARRUF, FIDE and the EGD lists
#: print integers; the EGF keeps GoR exact inside and prints it whole).
INTEGER_SYSTEMS = frozenset({"barruf", "fide-elo", "egf-gor"})


def round_half_away(x: float) -> float:
    """Round ``x`` to an integer, halves away from zero (returned as a float).

    Parameters
    ----------
    x : float
        Any finite number.

    Returns
    -------
    float
        The nearest integer; ``n + 0.5`` goes to ``n + 1`` (and ``-n - 0.5`` to
        ``-n - 1``), also when the binary value is a hair below the half.

    Examples
    --------
    >>> round_half_away(2.5), round_half_away(-2.5), round_half_away(0.49)
    (3.0, -3.0, 0.0)
    >>> round_half_away(1.4999999999999)
    2.0
    """
    return math.copysign(math.floor(abs(x) + 0.5 + HALF_TOLERANCE), x) + 0.0


def round_half_away_array(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Vectorised :func:`round_half_away`.

    Examples
    --------
    >>> round_half_away_array(np.array([0.5, -0.5, 1.2])).tolist()
    [1.0, -1.0, 1.0]
    """
    out: npt.NDArray[np.float64] = np.copysign(np.floor(np.abs(x) + 0.5 + HALF_TOLERANCE), x) + 0.0
    return out
