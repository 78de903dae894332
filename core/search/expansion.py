"""A query's terms plus the repo's own spellings of them: neighbours, thesaurus, compounds.

The repo's vocabulary is the term index's dictionary (`termindex.py`): each lookup is a
term or a prefix, never a walk over every term.
"""

from __future__ import annotations

import itertools
import re

from symscope.core import levers
from symscope.core.search.scoring import SHORT_QUERY
from symscope.core.search.termindex import TermIndex
from symscope.core.terms import query_terms, stem
from symscope.core.thesaurus import related_terms

#: Weight of a code word the thesaurus supplies for a query word (`ajax` -> `xhr`).
THESAURUS_WEIGHT = 0.4
#: Weight of a repo word standing in for a query word the repo never uses.
NEIGHBOUR_WEIGHT = 0.6
#: Weight of a code name typed in a query (`mul_symbol`, `sendFile`): the name's whole term.
TYPED_NAME_WEIGHT = 2.0
#: snake_case and camelCase words: names, not English (`LaTeX`, `GitHub` are not matched).
_TYPED_NAME = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*")
#: Weight of two adjacent query words joined (`read lines` -> `readlines`).
COMPOUND_WEIGHT = 0.5
#: The weight of a stop-word verb that may start a name (`find`, `get`, `use`).
NAME_VERB_WEIGHT = 0.4
#: (stop words only: `finds` or `shows` is no stop word, so it is a query term already)
_NAME_VERBS = frozenset(["find", "show", "get", "gets", "use", "uses"])


class Expander:
    """Query expansion over one index's vocabulary; holds no state, so threads share it."""

    def expand(self, vocab: TermIndex, terms: list[str], query: str) -> tuple[list[str], list[float]]:
        """The query's terms plus the repo's own spellings of them, with a weight each.

        A word the repo never uses tries its nearest spellings there (`randomize` ->
        `random`, `ids` -> `id`); adjacent words also match their joined form
        (`file name` -> `filename`, `read lines` -> `readlines`).
        """
        words = re.findall(r"[a-z0-9]+", query.lower())
        out = list(dict.fromkeys(terms))
        boosts = [1.0] * len(out)
        if levers.on("typednames"):
            # `mul_symbol` in a sentence was typed on purpose: the name is the surest clue
            for name in _TYPED_NAME.findall(query):
                whole = name.lower().replace("_", "")
                if whole in out:
                    boosts[out.index(whole)] = TYPED_NAME_WEIGHT
        if levers.on("neighbours"):
            for term in list(out):
                if term in vocab:
                    # The stemmer keeps plurals of two-letter words whole (`ids`, `ops`): the
                    # singular is the same word.
                    one = term[:-1]
                    if len(term) == 3 and term.endswith("s") and term.isalpha() and one in vocab \
                            and one not in out:
                        out.append(one)
                        boosts.append(1.0)
                    continue
                for near in self.neighbours(vocab, term):
                    if near not in out:
                        out.append(near)
                        boosts.append(NEIGHBOUR_WEIGHT)
        if levers.on("thesaurus"):
            # A keyword query's words mean what they say; a sentence's may be the reader's own
            # words for the code's. A word the repo never uses is always worth translating.
            chosen = None if len(terms) > SHORT_QUERY else [
                w for w in words if not any(t in vocab for t in query_terms(w))]
            for near in related_terms(query, chosen):
                if near in vocab and near not in out:
                    out.append(near)
                    boosts.append(THESAURUS_WEIGHT)
        if levers.on("nameverbs"):
            # "find the subcommand ...", `app.use mount`: the verbs the stop words drop are
            # also the first word of many names (`Command.Find`, `app.use`, `get_app_dir`)
            for verb in (stem(w) for w in words if w in _NAME_VERBS):
                if verb in vocab and verb not in out:
                    out.append(verb)
                    boosts.append(NAME_VERB_WEIGHT)
        if levers.on("compounds"):
            for a, b in itertools.pairwise(words):
                # only the stemmed form: the unstemmed one is also every `a_b` name's whole term
                joined = stem(a + b)
                if joined != a + b and joined in vocab and joined not in out:
                    out.append(joined)
                    boosts.append(COMPOUND_WEIGHT)
        return out, boosts

    def neighbours(self, vocab: TermIndex, term: str) -> list[str]:
        """The repo's commonest term sharing a long prefix with `term` (none if nothing is close)."""
        if not term.isalpha():
            return []
        if term.endswith("s") and term[:-1] in vocab:
            return [term[:-1]]  # `ids` -> `id`: the stemmer keeps very short words whole
        if len(term) < 5:
            return []
        best: tuple[int, str] | None = None
        # the repo's word is a prefix of the query's (`random` for `randomiz`) ...
        for cut in range(len(term) - 1, max(4, (len(term) * 3 + 4) // 5) - 1, -1):
            head = term[:cut]
            if head in vocab:
                best = max(best or (0, ""), (vocab.df(head), head))
                break
        # ... or the query's word is a prefix of the repo's (`concat` for `concatenat`): among
        # the first few such words in alphabetical order
        if best is None:
            longer = sorted(t for t, _ in vocab.prefixed(term, limit=None) if t.isalpha() and t != term)
            for cand in longer[:8]:
                if len(cand) <= len(term) * 5 // 3 + 1:
                    best = max(best or (0, ""), (vocab.df(cand), cand))
        return [best[1]] if best else []
