"""The exact budget packer, on synthetic costs and on real bundles of the sample repo's code.

The guarantees under test: the packed text's exact cl100k count never exceeds the
budget, and the levels are the lexicographic optimum in priority order (checked
against brute force over every choice, and item by item: no item is dropped or left
at less detail while more detail of it would have fit given the items before it).
"""

from __future__ import annotations

import itertools
import re
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symscope.core.bundle import (
    Entry,
    Packer,
    Reason,
    make_entry,
    pack,
    resolve_item,
)
from symscope.core.bundle import lookup_item as item_for
from symscope.core.bundle.packer import (
    DROP,
    FULL,
    LEVEL,
    NAME,
    SIGNATURE,
    BudgetError,
    Detail,
    choose_levels,
    priority_order,
)
from symscope.core.index import Index
from symscope.core.tokens import count_tokens

SAMPLE = Path(__file__).parent / "fixtures" / "sample_repo"
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def lexicographic_best(
    choices: Sequence[Sequence[int]], order: Sequence[int], cost: Callable[[Sequence[int]], int], budget: int
) -> list[int]:
    """The definition, by brute force: the fitting level vector greatest in priority order
    (all dropped when nothing fits, as `choose_levels` answers)."""
    best: tuple[int, ...] | None = None
    best_levels = [DROP] * len(choices)
    for combo in itertools.product(*[[*c, DROP] for c in choices]):
        if cost(combo) > budget:
            continue
        key = tuple(combo[i] for i in order)
        if best is None or key > best:
            best, best_levels = key, list(combo)
    return best_levels


# -- the algorithm on synthetic costs ------------------------------------------------------


@st.composite
def synthetic(draw: st.DrawFn) -> tuple[list[list[int]], list[int], list[list[int]], int, int]:
    n = draw(st.integers(1, 5))
    caps = draw(st.lists(st.sampled_from([NAME, SIGNATURE, FULL]), min_size=n, max_size=n))
    choices = [[lv for lv in (FULL, SIGNATURE, NAME) if lv <= cap] for cap in caps]
    order = draw(st.permutations(list(range(n))))
    # Per item, a cost per level: not ordered by level (a signature may cost more than a body).
    costs = [[0, *draw(st.lists(st.integers(1, 60), min_size=3, max_size=3))] for _ in range(n)]
    header = draw(st.integers(0, 10))
    budget = draw(st.integers(0, 200))
    return choices, list(order), costs, header, budget


@given(synthetic())
@SETTINGS
def test_choose_levels_is_the_lexicographic_optimum(case: tuple[list[list[int]], list[int], list[list[int]], int, int]) -> None:
    choices, order, costs, header, budget = case

    def cost(levels: Sequence[int]) -> int:
        kept = sum(1 for lv in levels if lv != DROP)
        # A header that grows with the number of kept items, as the real one's numbers do.
        return header + kept // 3 + sum(costs[i][lv] for i, lv in enumerate(levels))

    got = choose_levels(choices, order, cost, budget)
    assert got == lexicographic_best(choices, order, cost, budget)


def test_priority_puts_hand_added_items_first_in_bundle_order() -> None:
    assert priority_order([True, False, True, False]) == [1, 3, 0, 2]


# -- facts about cl100k the optimality proof rests on ------------------------------------------


def test_numbers_and_nouns_never_cost_more_when_they_shrink() -> None:
    # Every 1-3 digit string is one token, so a number costs ceil(digits / 3) tokens.
    assert all(count_tokens(s) == 1 for n in range(1000) for s in {str(n), f"{n:02d}", f"{n:03d}"})
    assert count_tokens("1 item,") == count_tokens("2 items,")
    # A piece that gains the blank line before a block never costs fewer tokens.
    for end in [")\n", *("`" * k + "\n" for k in range(3, 40))]:
        assert count_tokens(end + "\n") >= count_tokens(end)


# -- real bundles -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    root = tmp_path_factory.mktemp("sample") / "repo"
    shutil.copytree(SAMPLE, root)
    index = Index.open(root, index_dir=tmp_path_factory.mktemp("idx"))
    index.update(processes=1)
    yield index
    index.close()


def _refs(index: Index) -> list[str]:
    return [s.id for s in index.all_symbols()] + [f.path for f in index.files()]


@st.composite
def bundles(draw: st.DrawFn, refs: list[str], max_items: int = 6) -> tuple[list[tuple[str, Reason, Detail]], int, str]:
    chosen = draw(st.lists(st.sampled_from(refs), min_size=1, max_size=max_items, unique=True))
    reasons: list[Reason] = ["added", "dependency", "changed", "caller"]
    spec = [(ref, draw(st.sampled_from(reasons)), draw(st.sampled_from(["full", "full", "signature", "name"])))
            for ref in chosen]
    budget = draw(st.integers(1, 1500))
    fmt = draw(st.sampled_from(["markdown", "xml"]))
    return spec, budget, fmt  # type: ignore[return-value]


def _entries(index: Index, spec: Sequence[tuple[str, Reason, Detail]]) -> list[Entry]:
    return [make_entry(index, resolve_item(index, item_for(index, ref)), reason, detail)
            for ref, reason, detail in spec]


def _levels_of(packer: Packer, details: dict[str, Detail | None]) -> list[int]:
    return [LEVEL[d] if (d := details.get(e.key)) is not None else DROP for e in packer.usable]


def test_property_packed_text_fits_and_no_better_level_was_left(sample: Index) -> None:
    refs = _refs(sample)

    @given(bundles(refs))
    @SETTINGS
    def check(case: tuple[list[tuple[str, Reason, Detail]], int, str]) -> None:
        spec, budget, fmt = case
        packer = Packer(_entries(sample, spec), fmt)  # type: ignore[arg-type]
        try:
            result = packer.pack(budget)
        except BudgetError:
            # Only when not even the cheapest single name line fits.
            for i in range(len(packer.usable)):
                alone = [NAME if j == i else DROP for j in range(len(packer.usable))]
                assert count_tokens(packer.text(alone)) > budget
            return
        assert result.tokens == count_tokens(result.text) <= budget
        assert result.header_tokens + sum(i.tokens for i in result.items) == result.tokens
        # The header states that same count (issue 28.3).
        stated = re.match(r'(?:# Code context: \d+ items?, (\d+) tokens|<code_context items="\d+" tokens="(\d+)">)',
                          result.text)
        assert stated is not None and int(stated.group(1) or stated.group(2)) == result.tokens
        details = {i.key: i.detail for i in result.items} | {i.key: None for i in result.dropped}
        levels = _levels_of(packer, details)
        assert packer.text(levels) == result.text
        # Item by item, in priority order: every more detailed allowed level would not have fit,
        # given the levels of the items before it (and the items after it dropped).
        for rank, i in enumerate(packer.order):
            before = set(packer.order[:rank])
            for better in (lv for lv in packer.choices[i] if lv > levels[i]):
                trial = [levels[j] if j in before else (better if j == i else DROP)
                         for j in range(len(levels))]
                assert count_tokens(packer.text(trial)) > budget, (rank, better)

    check()


def test_property_packer_matches_brute_force_on_small_bundles(sample: Index) -> None:
    refs = _refs(sample)

    @given(bundles(refs, max_items=3))
    @settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    def check(case: tuple[list[tuple[str, Reason, Detail]], int, str]) -> None:
        spec, budget, fmt = case
        packer = Packer(_entries(sample, spec), fmt, redact=False)  # type: ignore[arg-type]
        budget = min(budget, 400)  # where choices are made
        best = lexicographic_best(packer.choices, packer.order, lambda lv: count_tokens(packer.text(lv)),
                                  budget)
        try:
            result = packer.pack(budget)
        except BudgetError:
            assert all(lv == DROP for lv in best)
            return
        details = {i.key: i.detail for i in result.items} | {i.key: None for i in result.dropped}
        assert _levels_of(packer, details) == best

    check()


def test_budget_errors_are_one_clear_line(sample: Index) -> None:
    entries = _entries(sample, [("shortener/store.py::LinkStore#class", "added", "full")])
    with pytest.raises(BudgetError, match=r"^a budget of 5 tokens cannot hold even one item's name line "
                                          r"\(the smallest bundle takes \d+\)$"):
        pack(entries, budget=5)
    with pytest.raises(BudgetError, match="positive"):
        pack(entries, budget=0)


def test_hand_added_items_outrank_dependencies_and_keep_their_order(sample: Index) -> None:
    spec: list[tuple[str, Reason, Detail]] = [
        ("shortener/codes.py::encode#function", "dependency", "full"),
        ("shortener/store.py::LinkStore#class", "added", "full"),
        ("shortener/api.py::create_link#function", "added", "full"),
    ]
    packer = Packer(_entries(sample, spec))
    everything = packer.pack()
    assert [i.detail for i in everything.items] == ["full"] * 3 and not everything.dropped
    # Room for exactly the two added items in full: the dependency, listed first, is dropped.
    budget = packer.cost([DROP, FULL, FULL])
    result = packer.pack(budget)
    assert [(i.id, i.detail, i.reason) for i in result.items] == [
        ("shortener/store.py::LinkStore#class", "full", "added"),
        ("shortener/api.py::create_link#function", "full", "added"),
    ]
    assert [i.id for i in result.dropped] == ["shortener/codes.py::encode#function"]
    assert result.tokens == budget and result.reduced == 0
    # One token less: the second added item gives way (to a signature), never the first.
    # (The room that frees then takes the dependency back, at a level that fits.)
    tighter = packer.pack(budget - 1)
    got = {i.id: i.detail for i in tighter.items}
    assert got["shortener/store.py::LinkStore#class"] == "full"
    assert got["shortener/api.py::create_link#function"] == "signature"
    assert tighter.tokens <= budget - 1
    # A dependency at its cap comes back once there is room for it.
    more = packer.pack(everything.tokens)
    assert more.text == everything.text
