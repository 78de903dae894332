"""The exact budget packer: which detail level each bundle item gets, or whether it is dropped.

Each item can be pasted at one of three **detail levels**: `full` (its source),
`signature` (its signature and doc line; for a class, its members' signatures too)
or `name` (one line: kind, qualified name, path:lines), or be **dropped**. Number
them drop = 0 < name = 1 < signature = 2 < full = 3. An item never goes above
its *cap*, the most detail asked for it (full by default; a caller in a diff
bundle is capped at signature; a level set by hand is a cap).

**What the packer optimises.** Put the items in *priority order*: items added
by hand (or changed, in a diff bundle) first, in bundle order, then dependencies
(and callers), in bundle order. A choice of levels *fits* when the rendered
bundle text, headers and fences included, after redaction, counted with
cl100k_base, is at most the budget. Among all choices that fit, the packer
returns the one whose level vector, read in priority order, is
**lexicographically greatest**: the first item gets the most detail any fitting
choice can give it; given that, the second item does; and so on. So no item is
dropped or reduced to make room for a lower-priority one, and no item is left
below a level that would still have fit given the items before it.

**How, exactly.** For each item in priority order, try its levels from its cap
down, keeping the levels already chosen and every later item dropped, and take
the first level whose text fits (drop if none does). That is at most three
exact counts per item.

**Why that is optimal.** Dropping an item never makes the text longer in tokens
(property M below). Induction on the priority position k: suppose the levels
chosen for items 1..k-1 equal those of the lexicographic optimum A. (a) A's
level for item k fits together with some levels for the later items, so by M
it also fits with every later item dropped, and the packer, which tries levels
from the top, picks at least A's level. (b) The packer's level fits with the
later items dropped, a choice that agrees with A before k; if A's level for k
were lower, that choice would be lexicographically greater than A and fit,
contradicting A's optimality. So the levels agree at k as well. The levels do
not have to be ordered by cost (a signature can cost more than a short body):
each one is counted, not assumed.

**Property M** holds for the bundle's text (see `symscope.core.bundle.render`): it is a
header plus one list line and at most one block per kept item (and the lines
naming which items are dependencies of which), each piece starting at a line
whose first character is visible ASCII (`#`, a digit, a letter, `<`),
which is always a boundary of cl100k's pre-tokenizer (`symscope.core.tokens`),
so the count of the text is the sum of the counts of its pieces. Dropping an item
removes its pieces. The newline of the blank line that precedes each block ends
the piece before it: it may move from one list line to another (all end in `)`,
so that costs the same), or the piece that held it may lose it (the block before
a dropped last block), and losing a trailing newline never adds tokens. The other
pieces only see numbers fall (the item count, the token total, the list
numbers): every 1-3 digit string is one cl100k token, so a
number costs ceil(digits / 3) tokens and never more as it falls, and `1 item`
costs what `2 items` does. The tests check these facts on the encoding and
compare the packer with brute force over every choice on small real bundles.

The dependency lines only lose numbers (or whole lines) when a later item is
dropped: an item is added as a dependency after the item it depends on, which
ranks above it, so dropping lower-priority items never turns `of item 1 (X)` into
the longer `of X (not in this bundle)` (an order rearranged by hand could; the
recount below still holds the budget). The header's token total is the text's
own count: it falls with the text, and a number never costs more as it falls.

The final text is counted again, whole, with `count_tokens`; the result is
never over the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from symscope.core.errors import SymscopeError

Detail = Literal["full", "signature", "name"]
#: Every detail level, most detailed first.
DETAILS: tuple[Detail, ...] = ("full", "signature", "name")
DROP, NAME, SIGNATURE, FULL = 0, 1, 2, 3
#: A level's number: drop < name < signature < full.
LEVEL: dict[Detail, int] = {"name": NAME, "signature": SIGNATURE, "full": FULL}
DETAIL_OF: dict[int, Detail] = {v: k for k, v in LEVEL.items()}


class BudgetError(SymscopeError):
    """The budget cannot hold even one item's name line, or is not a positive number."""


def check_budget(budget: int | None) -> None:
    """Raises BudgetError for a budget below one token."""
    if budget is not None and budget < 1:
        raise BudgetError(f"the budget must be a positive number of tokens, not {budget}")


def choose_levels(
    choices: Sequence[Sequence[int]],
    order: Sequence[int],
    cost: Callable[[Sequence[int]], int],
    budget: int,
) -> list[int]:
    """The lexicographically greatest levels, in `order`, whose `cost` is at most `budget`.

    Args:
        choices: Each item's allowed levels, most detailed first: its cap and the levels
            below it (`FULL`, `SIGNATURE`, `NAME`; an item with no signature to show skips it).
        order: Item positions, highest priority first (a permutation of `range(len(choices))`).
        cost: Exact cost of a level vector (positions as in `choices`; `DROP` leaves an item
            out). Lowering any level to `DROP` must never raise it (see the module docstring).
        budget: The most `cost` may be.

    Returns:
        One level per item: `DROP` for an item none of whose levels fits.
    """
    levels = [c[0] if c else DROP for c in choices]
    if cost(levels) <= budget:
        return levels  # everything at its cap fits: nothing to choose
    levels = [DROP] * len(choices)
    for i in order:
        for level in choices[i]:
            levels[i] = level
            if cost(levels) <= budget:
                break
        else:
            levels[i] = DROP
    return levels


def priority_order(secondary: Sequence[bool]) -> list[int]:
    """Positions with primary items (added by hand, changed) first, each group in bundle order."""
    return sorted(range(len(secondary)), key=lambda i: (secondary[i], i))
