"""The learned urgency classifier: a linear model over TF-IDF n-grams, scored in pure Python.

Trained by ``scripts/train_detectors.py`` from ``corpora/urgency/train`` (scikit-learn's
``TfidfVectorizer`` with ``features.features`` as its analyzer, sublinear term frequency, then a
multinomial logistic regression over the routine class and the eight urgency categories), and shipped
as JSON inside the package. This module rebuilds the same arithmetic: counts, ``1 + log(tf)`` times
the term's idf, L2-normalised over every term the vectorizer knows, then each class's weights and
intercept, and a softmax. The chance that a message is urgent is one minus the routine class's.

Building the model from its JSON is pure; reading the file is ``models/urgency_model.py``'s, once per
process.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from switchboard.domain.agents.urgency.features import features

ROUTINE = "routine"
FORMAT = 1


@dataclass(frozen=True)
class Scored:
    """A message's chance of being urgent and its likeliest urgency category (with what ``evidence`` reads)."""

    urgent: float
    category: str
    vector: dict[str, float] = field(repr=False)
    norm: float = field(repr=False)
    index: int = field(repr=False)


@dataclass(frozen=True)
class UrgencyModel:
    """The shipped model: the vectorizer's terms with their idf, and each class's weights on some of them."""

    classes: tuple[str, ...]
    idf: dict[str, float]
    weights: dict[str, tuple[float, ...]]
    intercepts: tuple[float, ...]
    # Per language: urgent at or above the threshold when no rule matched; below the veto, a weak rule's
    # match is dropped. The rules are Spanish, so the classifier carries more of English and Portuguese.
    thresholds: dict[str, float]
    vetoes: dict[str, float]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UrgencyModel:
        """The model a training run wrote (``FORMAT`` 1)."""
        if data.get("format") != FORMAT:
            raise ValueError(f"urgency model format {data.get('format')!r}, expected {FORMAT}")
        classes = tuple(data["classes"])
        if ROUTINE not in classes:
            raise ValueError("urgency model has no routine class")
        return cls(
            classes=classes,
            idf={term: float(value) for term, value in data["idf"].items()},
            weights={term: tuple(map(float, row)) for term, row in data["weights"].items()},
            intercepts=tuple(map(float, data["intercepts"])),
            thresholds={lang: float(v) for lang, v in data["thresholds"].items()},
            vetoes={lang: float(v) for lang, v in data["vetoes"].items()},
        )

    def score(self, text: str) -> Scored:
        """The message's chance of being urgent, with the class and the terms that decided it."""
        counts = Counter(term for term in features(text) if term in self.idf)
        vector = {term: (1.0 + math.log(tf)) * self.idf[term] for term, tf in counts.items()}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        logits = list(self.intercepts)
        for term, value in vector.items():
            row = self.weights.get(term)
            if row is not None:
                share = value / norm
                logits = [logit + weight * share for logit, weight in zip(logits, row, strict=True)]
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = sum(exps)
        routine = self.classes.index(ROUTINE)
        urgent = 1.0 - exps[routine] / total
        best = max((i for i in range(len(self.classes)) if i != routine), key=exps.__getitem__)
        return Scored(urgent=urgent, category=self.classes[best], vector=vector, norm=norm, index=best)

    def evidence(self, scored: Scored) -> tuple[str, ...]:
        """The three words or word pairs that pushed hardest towards the class (the run's guardrail step
        shows them; a character n-gram only when no word pushed, since a fragment reads poorly)."""
        index, norm = scored.index, scored.norm
        pushes = [
            (row[index] * value / norm, term)
            for term, value in scored.vector.items()
            if (row := self.weights.get(term)) is not None and row[index] * value > 0
        ]
        words = [p for p in pushes if not p[1].startswith("c:")] or pushes
        return tuple(term for _, term in sorted(words, reverse=True)[:3])

    def threshold(self, language: str) -> float:
        """The chance at which the classifier alone calls a message in ``language`` urgent."""
        return self.thresholds.get(language, max(self.thresholds.values()))

    def veto(self, language: str) -> float:
        """The chance below which a weak rule's match in ``language`` is dropped."""
        return self.vetoes.get(language, min(self.vetoes.values()))
