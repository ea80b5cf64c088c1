"""The shipped urgency model: the one the corpus trains, and the layered decision it takes part in.

Held-out figures are printed here for reading and guarded only against going backwards (the layered
detector must catch more than the rules alone without raising more false alarms); ``bench/detectors.py``
lists every miss.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import pytest

from switchboard.domain.agents.urgency import assess_urgency, detect_urgency
from switchboard.domain.agents.urgency.classifier import ROUTINE, UrgencyModel
from switchboard.models.urgency_model import load_urgency_model

ROOT = Path(__file__).resolve().parents[3]
MODEL = load_urgency_model()


def test_the_shipped_model_is_the_one_the_corpus_and_seed_train() -> None:
    """Retrained from corpora/ and the rules' corpus, byte for byte (``make train-detectors`` wrote it)."""
    training: dict[str, Any] = runpy.run_path(str(ROOT / "scripts" / "train_detectors.py"))
    rendered = training["render"](training["trained"](training["labelled_training_set"]()))
    assert (ROOT / "src" / "switchboard" / "models" / "urgency_model.json").read_text() == rendered


def test_the_model_refuses_another_format() -> None:
    data = json.loads((ROOT / "src" / "switchboard" / "models" / "urgency_model.json").read_text())
    with pytest.raises(ValueError, match="format"):
        UrgencyModel.from_json({**data, "format": 99})
    assert ROUTINE in MODEL.classes and set(MODEL.thresholds) == set(MODEL.vetoes) == {"es", "en", "pt"}
    assert all(0 <= MODEL.veto(lang) < MODEL.threshold(lang) < 1 for lang in MODEL.thresholds)


@pytest.mark.parametrize(
    ("text", "category", "decided_by"),
    [
        # A strong rule decides alone, whatever the classifier thinks.
        ("no puedo respirar", "respiratory", "rule"),
        # Self-harm is never vetoed.
        ("me quiero matar", "suicide_self_harm", "rule"),
        # No rule matches what nobody listed; the classifier does.
        ("help my dad is having a heart attack", "cardiac", "classifier"),
        ("mi hijo tiene la nuca dura, fiebre y manchitas rojas", "child_symptom", "classifier"),
    ],
)
def test_layered_decisions(text: str, category: str, decided_by: str) -> None:
    verdict = assess_urgency(text, MODEL)
    assert verdict is not None and (verdict.category, verdict.decided_by) == (category, decided_by), verdict


def test_a_weak_rule_is_vetoed_when_the_classifier_finds_the_message_routine() -> None:
    text = "URGENTE: preciso da nota fiscal hoje pro reembolso do plano"
    match = detect_urgency(text)
    assert match is not None and match.strength != "strong"  # the rules alone raise a false alarm
    assert MODEL.score(text).urgent < MODEL.veto("pt")
    assert assess_urgency(text, MODEL) is None


def test_the_verdict_shows_its_evidence() -> None:
    verdict = assess_urgency("help my dad is having a heart attack", MODEL)
    assert verdict is not None and verdict.language == "en" and 0 < verdict.score <= 1
    assert "heart" in verdict.matched
    assert assess_urgency("", MODEL) is None and assess_urgency("   ", MODEL) is None


def test_on_the_held_out_corpora_the_layers_do_better_than_the_rules_alone() -> None:
    rows = [
        json.loads(line)
        for path in sorted((ROOT / "corpora" / "urgency" / "heldout").glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    for language in ("es", "en", "pt"):
        in_language = [r for r in rows if r["lang"] == language]
        urgent = [r["text"] for r in in_language if r["urgent"]]
        routine = [r["text"] for r in in_language if not r["urgent"]]
        layered_recall = sum(assess_urgency(t, MODEL) is not None for t in urgent) / len(urgent)
        rules_recall = sum(detect_urgency(t) is not None for t in urgent) / len(urgent)
        layered_fp = sum(assess_urgency(t, MODEL) is not None for t in routine) / len(routine)
        rules_fp = sum(detect_urgency(t) is not None for t in routine) / len(routine)
        print(
            f"{language}: recall {layered_recall:.3f} (rules alone {rules_recall:.3f}), "
            f"false alarms {layered_fp:.3f} (rules alone {rules_fp:.3f})"
        )
        assert layered_recall > rules_recall and layered_fp <= rules_fp, language
