"""The shipped urgency model (``urgency_model.json`` beside this module), read once per process.

Written by ``make train-detectors``; the API (a muted thread's unread messages) and the workers (a run's
guardrail) both score with it, so it lives below both.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from switchboard.domain.agents.urgency.classifier import UrgencyModel

MODEL_FILE = "urgency_model.json"


@cache
def load_urgency_model() -> UrgencyModel:
    """The classifier ``make train-detectors`` wrote into the package (parsed once, then shared)."""
    text = resources.files("switchboard.models").joinpath(MODEL_FILE).read_text("utf-8")
    return UrgencyModel.from_json(json.loads(text))
