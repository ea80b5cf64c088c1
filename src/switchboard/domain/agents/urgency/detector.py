"""The public function: message-level context, rule strengths, negation and category precedence.

Each rule has a strength that says what can veto it (see the package docstring): *strong* only a
negation right before it; *hist* also a past / resolved framing without an acute marker; *weak* also an
administrative framing; *free* ("urgente", "emergencia") only an administrative message naming no
symptom; *health* ("ayuda", bare "me muero", alarm emoji) needs a symptom word and no administrative or
past framing. Categories resolve as suicide_self_harm > child_symptom > imminent_death > cardiac >
respiratory > neurological > bleeding > explicit_emergency.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from switchboard.domain.agents.urgency import (
    children,
    emergency,
    exposures,
    imminent_death,
    neuro_bleeding,
    respiratory_cardiac,
    self_harm,
    spanglish,
)
from switchboard.domain.agents.urgency.compact import expand_compact
from switchboard.domain.agents.urgency.lexicon import HEALTH, NOW, has_child
from switchboard.domain.agents.urgency.negatives import (
    ABOUT_A_PET,
    ADMIN,
    ALMOST,
    HYPOTHETICAL,
    NEGATORS,
    PAST,
    PERSON_HURT,
    SERVICE_BEFORE,
    negated,
)
from switchboard.domain.agents.urgency.normalize import normalize
from switchboard.domain.agents.urgency.patterns import (
    BLEEDING,
    CARDIAC,
    CHILD_SYMPTOM,
    DEATH,
    EMERGENCY,
    NEUROLOGICAL,
    OVERDOSE,
    POISON,
    RESPIRATORY,
    SUICIDE,
    Rule,
)


@dataclass(frozen=True)
class UrgencyMatch:
    """A detected medical urgency: its category, the normalized snippet that matched and the rule's strength.

    ``strength`` is the matching rule's kind (``strong``, ``hist``, ``weak``, ``free``, ``health``, or
    ``alarm`` for alarm emoji beside a symptom): how much a rule alone can be trusted, which the layered
    detector reads (``layered.assess_urgency``).
    """

    category: str
    matched: str
    strength: str = field(default="strong", compare=False)


# Within a category the first rule that matches gives the snippet, so the order below is kept.
_RULES: tuple[Rule, ...] = (
    *self_harm.RULES,
    *children.RULES,
    *imminent_death.RULES,
    *respiratory_cardiac.CARDIAC_RULES,
    *respiratory_cardiac.RESPIRATORY_RULES,
    *neuro_bleeding.NEUROLOGICAL_RULES,
    *neuro_bleeding.BLEEDING_RULES,
    *emergency.RULES,
    *exposures.RULES,
    *spanglish.RULES,
)

_PRIORITY = (DEATH, CARDIAC, RESPIRATORY, NEUROLOGICAL, BLEEDING, EMERGENCY)


@dataclass(frozen=True)
class _Context:
    past: bool
    now: bool
    admin: bool
    health: bool
    child: bool


def _allowed(rule: Rule, ctx: _Context) -> bool:
    if rule.kind == "strong":
        return True
    stale = ctx.past and not ctx.now
    if rule.kind == "hist":
        return not stale
    if rule.kind == "weak":
        return not ((ctx.past or ctx.admin) and not ctx.now)
    if rule.kind == "free":
        return not stale and (ctx.health or not ctx.admin)
    if rule.kind == "health":
        return ctx.health and not ctx.admin and not ctx.past
    raise ValueError(rule.kind)


# The vetoes look at a bounded window before a match (a clause, a sentence), so a long message with many
# vetoed matches stays linear.
_CLAUSE_WINDOW = 160
_SENTENCE_WINDOW = 400


def _first_match(rule: Rule, norm: str, ctx: _Context) -> str | None:
    for match in rule.pattern.finditer(norm):
        snippet = match.group(0).strip()
        start = match.start()
        before = norm[max(0, start - _CLAUSE_WINDOW) : start]
        own_negation = snippet.split(" ", 1)[0] in NEGATORS
        if not own_negation and negated(before):
            continue
        if rule.before_veto is not None and rule.before_veto.search(before):
            continue
        if rule.category != SUICIDE:
            if not own_negation and ALMOST.search(before):
                continue
            if norm.startswith(" si ", match.end()):  # hyperbole: "me desmayo si me dicen que esperemos"
                continue
            if rule.kind in ("weak", "hist") and SERVICE_BEFORE.search(before):
                continue
            if not ctx.now:
                window = max(0, start - _SENTENCE_WINDOW)
                sentence = norm[max(window, norm.rfind(" . ", window, start) + 1) : start]
                if HYPOTHETICAL.search(sentence):
                    continue
        return snippet
    return None


def detect_urgency(text: str | None) -> UrgencyMatch | None:
    """The medical urgency a customer message describes, or None for routine talk."""
    if not text or not text.strip():
        return None
    norm, alarm = normalize(text)
    norm = expand_compact(norm)
    if not re.search(r"[a-z0-9]", norm):
        return None
    ctx = _Context(
        past=bool(PAST.search(norm)),
        now=bool(NOW.search(norm)),
        admin=bool(ADMIN.search(norm)),
        health=bool(HEALTH.search(norm)),
        child=has_child(norm),
    )
    found: dict[str, tuple[str, str]] = {}
    for rule in _RULES:
        if rule.category in found:
            continue
        if rule.child_only and not ctx.child:
            continue
        if rule.unless is not None and rule.unless.search(norm):
            continue
        if rule.requires is not None and not rule.requires.search(norm):
            continue
        if not _allowed(rule, ctx):
            continue
        snippet = _first_match(rule, norm, ctx)
        if snippet is not None:
            found[rule.category] = (snippet, rule.kind)
    if found and SUICIDE not in found and ABOUT_A_PET.search(norm) and not PERSON_HURT.search(norm):
        return None
    if not found and alarm and ctx.health and not ctx.admin:
        found[EMERGENCY] = ("alarm emoji", "alarm")
    return _resolve(found, ctx)


def _resolve(found: dict[str, tuple[str, str]], ctx: _Context) -> UrgencyMatch | None:
    if not found:
        return None
    if SUICIDE in found:
        return UrgencyMatch(SUICIDE, *found[SUICIDE])
    if ctx.child:
        for category in (CHILD_SYMPTOM, OVERDOSE, POISON, *_PRIORITY):
            if category in found:
                return UrgencyMatch(CHILD_SYMPTOM, *found[category])
    if OVERDOSE in found:
        return UrgencyMatch(SUICIDE, *found[OVERDOSE])
    for category in _PRIORITY:
        if category in found:
            return UrgencyMatch(category, *found[category])
    if POISON in found:
        return UrgencyMatch(EMERGENCY, *found[POISON])
    return None
