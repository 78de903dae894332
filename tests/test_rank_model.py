"""The ranking model (`core/search/model.py`): features seen on real parsed code, weights that
decide the order, and the fitting script's rank simulation (`benchmarks/fit_rank.py`)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from benchmarks.fit_rank import Records, fit, metrics
from symscope.core.index import Index
from symscope.core.search import searcher as searcher_module
from symscope.core.search.model import FEATURES, HAND_WEIGHTS, INDEX, vector
from symscope.core.settings import DEFAULTS, RankSettings


@pytest.fixture
def model_repo(write_repo, tmp_path: Path) -> Index:  # type: ignore[no-untyped-def]
    root = write_repo({
        "pkg/mail.py": '''
            EMAIL_PATTERN = r"^[^@]+@[^@]+$"  # the address pattern an email address is validated by


            def check_email(address):
                """Reject an address that does not look like user@host."""
                if not re.match(EMAIL_PATTERN, address):
                    raise ValueError(address)


            def send_email(address, body):
                """Send a message body to one address."""
                check_email(address)
                return transport.send(address, body)
            ''',
        "tests/test_mail.py": '''
            def test_check_email_address_validated():
                """The email address is validated."""
                assert check_email("a@b")
            ''',
    })
    ix = Index.open(root, tmp_path / "model-idx")
    ix.update(processes=1)
    return ix


def _observed(ix: Index, query: str) -> dict[str, np.ndarray]:
    seen: list[tuple[list[str], np.ndarray]] = []
    ix.searcher.observe = lambda _q, data, top, x: seen.append(([data.names[d] for d in top.tolist()], x))
    try:
        ix.search(query, limit=5)
    finally:
        ix.searcher.observe = None
    names, x = seen[-1]
    assert x.shape == (len(names), len(FEATURES))
    return dict(zip(names, x, strict=True))


def test_the_features_say_what_each_candidate_is(model_repo: Index) -> None:
    rows = _observed(model_repo, "where is an email address validated by its pattern")
    f = INDEX
    assert rows["EMAIL_PATTERN"][f["constant"]] == 1 and rows["check_email"][f["constant"]] == 0
    assert rows["test_check_email_address_validated"][f["aux"]] == 1 and rows["check_email"][f["aux"]] == 0
    assert rows["check_email"][f["cover"]] > 0 and rows["EMAIL_PATTERN"][f["cover"]] > 0  # `email` is typed
    assert all(r[f["bm25"]] > math.log(1e-6) for r in rows.values())
    named = _observed(model_repo, "check_email")
    assert named["check_email"][f["exact"]] == 1 and named["send_email"][f["exact"]] == 0


def test_the_sentence_weights_decide_the_order(model_repo: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    query = "where is an email address validated by its pattern"
    names = [h.symbol.name for h in model_repo.search(query, limit=5)]
    assert names.index("check_email") < names.index("EMAIL_PATTERN")
    weights = list(DEFAULTS.sentence_weights)
    weights[INDEX["constant"]] = 5.0  # a constant now wins whatever BM25 says
    monkeypatch.setattr(searcher_module, "DEFAULTS", dataclasses.replace(DEFAULTS, sentence_weights=tuple(weights)))
    assert model_repo.search(query, limit=5)[0].symbol.name == "EMAIL_PATTERN"
    # a keyword query keeps the hand weights: the fitted ones are for sentences only
    assert model_repo.search("check_email", limit=1)[0].symbol.name == "check_email"


def test_weights_match_the_features() -> None:
    assert len(DEFAULTS.sentence_weights) == len(HAND_WEIGHTS) == len(FEATURES)
    assert vector(HAND_WEIGHTS, sentence=False)[INDEX["shape"]] == 0  # shapes count in sentences only
    with pytest.raises(ValueError, match="weights"):
        vector((1.0,), sentence=True)
    assert RankSettings(sentence_weights=HAND_WEIGHTS).fingerprint() != RankSettings(
        sentence_weights=(*HAND_WEIGHTS[:-1], 1.0)).fingerprint()


def _records() -> Records:
    # two queries; query 0: a target (row 1) folded with row 2 (one group), beaten on bm25 by row 0;
    # query 1: the target (row 4) behind row 3 on bm25 but ahead on `cover`
    x = np.zeros((5, len(FEATURES)))
    x[:, INDEX["bm25"]] = [3.0, 2.0, 2.5, 2.0, 1.0]
    x[:, INDEX["cover"]] = [0.0, 0.4, 0.0, 0.0, 2.0]
    return Records(x, np.array([0, 0, 0, 1, 1]), np.array([0, 1, 1, 2, 3]),
                   np.array([False, True, False, False, True]), 2, np.array([False, True]))


def test_fold_groups_count_once_and_a_target_folded_under_its_group_is_found() -> None:
    r = _records()
    w = np.zeros(len(FEATURES))
    w[INDEX["bm25"]] = 1.0
    assert r.ranks(w).tolist() == [2, 2]  # query 0: group {1, 2} second (its best, row 2, is 2.5)
    w[INDEX["cover"]] = 1.0
    assert r.ranks(w).tolist() == [2, 1]
    assert metrics(r.ranks(w)) == {"p_at_1": 0.5, "r_at_5": 1.0, "mrr": 0.75}


def test_fitting_raises_the_training_mrr_and_keeps_what_does_not_help() -> None:
    r = _records()
    start = np.zeros(len(FEATURES))
    start[INDEX["bm25"]] = 1.0
    w = fit(r, start, log=False)
    assert metrics(r.ranks(w))["mrr"] > metrics(r.ranks(start))["mrr"]
    assert w[INDEX["heft"]] == 0.0  # a feature that is zero everywhere is never moved


def test_the_default_sentence_weights_are_the_hand_set_ones_but_two_fitted() -> None:
    """Only the weights the validation split kept differ from the hand-set factors (results.md
    section 9): the file context weighs more and the reference count nothing; BM25, the scale,
    is never fitted."""
    moved = {FEATURES[i] for i, (a, b) in enumerate(zip(DEFAULTS.sentence_weights, HAND_WEIGHTS, strict=True))
             if not math.isclose(a, b)}
    assert moved == {"file", "refs"}
    assert DEFAULTS.sentence_weights[INDEX["bm25"]] == HAND_WEIGHTS[INDEX["bm25"]] == 1.0
    assert DEFAULTS.sentence_weights[INDEX["file"]] > HAND_WEIGHTS[INDEX["file"]]
