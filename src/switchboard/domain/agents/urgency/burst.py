"""Urgency in a burst of messages that one run answers (or that no run will read).

A burst is read together first, as the model reads it, so a symptom split over two messages ("mi hijo"
/ "tiene 39 de fiebre") is found; then each message alone, because a message-level veto in one message
(a pet, a joke, an administrative framing) must not hide another message's emergency ("mi gato se está
muriendo" / "se muere mi papá, vengan").
"""

from __future__ import annotations

from collections.abc import Sequence

from switchboard.domain.agents.turns import merge_user_texts
from switchboard.domain.agents.urgency.classifier import UrgencyModel
from switchboard.domain.agents.urgency.detector import UrgencyMatch, detect_urgency
from switchboard.domain.agents.urgency.layered import UrgencyVerdict, assess_urgency


def detect_urgency_in_burst(texts: Sequence[str]) -> UrgencyMatch | None:
    """The first urgency in the burst read together, else in any one of its messages; None when none."""
    match = detect_urgency(merge_user_texts(texts))
    if match is not None or len(texts) < 2:
        return match
    return next((found for text in texts if (found := detect_urgency(text)) is not None), None)


def assess_urgency_in_burst(texts: Sequence[str], model: UrgencyModel) -> UrgencyVerdict | None:
    """The layered verdict on the burst read together, else on any one of its messages; None when routine."""
    verdict = assess_urgency(merge_user_texts(texts), model)
    if verdict is not None or len(texts) < 2:
        return verdict
    return next((found for text in texts if (found := assess_urgency(text, model)) is not None), None)
