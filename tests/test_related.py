"""`core/related.py`: a symbol's uses and used-by, typed, from the engine (the TUI's Related pane reads it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from symscope.core.errors import UnknownSymbolError
from symscope.core.index import Index
from symscope.core.related import RelatedRows, plan_with_deps, related

GIN_MINI = Path(__file__).resolve().parent / "tui" / "fixtures" / "gin_mini"
BIND_JSON = "context.go::Context.BindJSON#method"
MUST_BIND = "context.go::Context.MustBindWith#method"


@pytest.fixture(scope="module")
def gin_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    ix = Index.open(GIN_MINI, index_dir=tmp_path_factory.mktemp("idx"))
    ix.update(processes=1)
    yield ix
    ix.close()


def test_uses_and_callers_with_their_lines(gin_index: Index) -> None:
    must = gin_index.symbol(MUST_BIND)
    rel = related(gin_index, must)
    assert isinstance(rel, RelatedRows) and rel.error is None and rel.symbol == must
    # uses: in order of first use, each with the line of the use inside MustBindWith
    assert [r.symbol.qualname for r in rel.uses] == [s.qualname for s, _, _ in gin_index.deps.uses(must)]
    assert {"Context.ShouldBindWith", "Context.AbortWithError"} <= {r.symbol.qualname for r in rel.uses}
    for row in rel.uses:
        assert not row.caller and must.start_line <= row.line <= must.end_line
        assert row.where == f"{row.symbol.path}:{row.symbol.start_line}"  # where the used symbol is defined
    assert rel.uses_tokens == sum(r.symbol.tokens for r in rel.uses)
    # used by: BindJSON, at the line of its call
    bind = gin_index.symbol(BIND_JSON)
    assert [r.symbol.qualname for r in rel.callers] == ["Context.BindJSON"]
    call = rel.callers[0]
    assert call.caller and bind.start_line < call.line <= bind.end_line
    assert call.where == f"context.go:{call.line}"
    text = gin_index.source(bind).splitlines()
    assert "MustBindWith" in text[call.line - bind.start_line]
    assert not rel.more_callers


def test_an_id_or_a_unique_name_is_accepted_and_an_unknown_one_is_an_error(gin_index: Index) -> None:
    by_symbol = related(gin_index, gin_index.symbol(MUST_BIND))
    assert related(gin_index, MUST_BIND) == by_symbol
    assert related(gin_index, "Context.MustBindWith") == by_symbol
    with pytest.raises(UnknownSymbolError):
        related(gin_index, "context.go::Nope#method")


def test_the_caller_list_is_capped_and_says_so(gin_index: Index) -> None:
    must = gin_index.symbol(MUST_BIND)
    with_callers = next(s for s in gin_index.all_symbols() if len(related(gin_index, s).callers) >= 2)
    capped = related(gin_index, with_callers, caller_limit=1)
    assert len(capped.callers) == 1 and capped.more_callers
    assert related(gin_index, must, caller_limit=1).more_callers is False


def test_a_plan_adds_the_symbol_and_its_missing_dependencies(gin_index: Index) -> None:
    must = gin_index.symbol(MUST_BIND)
    plan = plan_with_deps(gin_index, must, frozenset())
    assert plan.add_root and plan.deps and plan.error is None
    assert plan.tokens == must.tokens + sum(d.symbol.tokens for d in plan.deps)
    assert plan.delta == f"+{len(plan.deps)} {'dep' if len(plan.deps) == 1 else 'deps'}, +{plan.tokens:,} tok"
