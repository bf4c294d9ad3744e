"""Published editions: stored as the lines that changed, read back in full.

DESIGN.md *Publication*. AJUSC and EGF publish an edition after each rated
competition: a migrated archive of 12,000 competitions and 50,000 players is 10^8
full lines, of which 0.5 % differ in a figure from the edition before.
So an edition stores, in ``rating_list_lines``, only the lines whose figures (name,
rating, games, status, category) changed since the previous edition of its list, the
players new to the list, and a ``removed`` line for each player who left it
(``rating_lists.lines = 'changes'``). Its ranks and order are not stored: they follow
from the figures by the rule every federation's list follows (:func:`in_list_order`).
A list whose ranks or order do not follow that rule (a list made by hand) is stored in
full, as published (``'full'``). Reading an edition takes, for each player, the newest
line from the list's ``base_edition`` (its last full edition, or the start) up to it.

Every published edition reads back exactly as it was published (tests check it on
every real season); the view ``rating_list_entries`` gives the same lines in SQL.
"""

from warehouse._editions_lines import (
    CORRECTIONS_SCHEMA,
    EDITIONS_SCHEMA,
    LINES_SCHEMA,
    ListLines,
    in_list_order,
    list_lines,
)
from warehouse._editions_read import (
    edition_contents,
    edition_corrections,
    edition_entries,
    editions,
    latest_edition,
    rating_list,
    stored_lines,
)
from warehouse._editions_write import (
    Edition,
    publish_edition,
    publish_editions,
    publish_list,
    publish_seed_edition,
)

__all__ = [
    "CORRECTIONS_SCHEMA",
    "EDITIONS_SCHEMA",
    "LINES_SCHEMA",
    "Edition",
    "ListLines",
    "edition_contents",
    "edition_corrections",
    "edition_entries",
    "editions",
    "in_list_order",
    "latest_edition",
    "list_lines",
    "publish_edition",
    "publish_editions",
    "publish_list",
    "publish_seed_edition",
    "rating_list",
    "stored_lines",
]
