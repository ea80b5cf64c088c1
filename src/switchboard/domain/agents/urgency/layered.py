"""The layered urgency decision: the rules for the unmistakable, the learned classifier for the rest.

A self-harm rule, a message of nothing but cries for help, and in Spanish any rule of ``strong``
strength (a present-tense description of danger) decide alone. Another rule (a keyword, a history, an
"urgente", an alarm emoji) decides unless the classifier finds the message plainly routine (below the
model's veto for the message's language): that is where hand-written patterns raise false alarms ("lo
necesito urgente para el curro"). With no rule, the classifier decides at its threshold for the
language: that is where patterns miss what people write in ways nobody listed. Both come from the
training run's cross-validation, never from the held-out corpus.

Pure: the model comes in as a parameter.
"""

from __future__ import annotations

from dataclasses import dataclass

from switchboard.domain.agents.urgency.classifier import UrgencyModel
from switchboard.domain.agents.urgency.detector import UrgencyMatch, detect_urgency
from switchboard.domain.agents.urgency.features import fold
from switchboard.domain.agents.urgency.language import SPANISH, detect_language
from switchboard.domain.agents.urgency.patterns import SUICIDE

RULE = "rule"
CLASSIFIER = "classifier"
EMERGENCY = "explicit_emergency"
# A message of nothing but cries for help is an emergency in any of the three languages.
CRIES = frozenset("auxilio socorro ayuda ayudenme ayudame help sos ajuda ajudem emergency emergencia".split())
# Below this many words a message carries too little for the classifier to call it urgent alone: a
# linear model reads "no" or "y?" by one word's weight (the rules, and the cries above, still decide).
MIN_CLASSIFIER_WORDS = 3


def is_cry(text: str) -> bool:
    """Whether the message is only cries for help ("auxilio", "HELP!!", "socorro socorro", "ajuda 🆘")."""
    words = fold(text).split()
    return bool(words) and all(word in CRIES for word in words)


def rule_decides_alone(rule: UrgencyMatch, language: str) -> bool:
    """Self-harm always; any strong rule in Spanish, the language the rules were written and tuned in.

    In English and Portuguese the few rules that match are keyword-like ("dying", "can't breathe" read
    figuratively as often as not), so the classifier may veto them there as it does weak rules.
    """
    return rule.category == SUICIDE or (rule.strength == "strong" and language == SPANISH)


def classifier_may_decide(text: str) -> bool:
    """Whether the message is long enough for the classifier to call it urgent with no rule."""
    return len(fold(text).split()) >= MIN_CLASSIFIER_WORDS


@dataclass(frozen=True)
class UrgencyVerdict:
    """An urgent message: its category, what decided (a rule or the classifier) and on what evidence."""

    category: str
    decided_by: str
    # The rule's normalized snippet, or the classifier's three weightiest terms.
    matched: str
    # The classifier's chance that the message is urgent, whatever decided.
    score: float
    language: str


def assess_urgency(text: str | None, model: UrgencyModel) -> UrgencyVerdict | None:
    """The verdict on one customer message, or None when it is routine."""
    if not text or not text.strip():
        return None
    rule = detect_urgency(text)
    scored = model.score(text)
    language = detect_language(text)
    if rule is None and is_cry(text):
        return UrgencyVerdict(EMERGENCY, RULE, fold(text), round(scored.urgent, 4), language)
    if rule is not None and (rule_decides_alone(rule, language) or scored.urgent >= model.veto(language)):
        return UrgencyVerdict(rule.category, RULE, rule.matched, round(scored.urgent, 4), language)
    if rule is None and classifier_may_decide(text) and scored.urgent >= model.threshold(language):
        matched = ", ".join(term.split(":", 1)[1].strip() for term in model.evidence(scored))
        return UrgencyVerdict(scored.category, CLASSIFIER, matched, round(scored.urgent, 4), language)
    return None
