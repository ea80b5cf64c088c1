"""The classifier's features and the language guess: pure functions, read on plain examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from switchboard.domain.agents.urgency.features import features, fold
from switchboard.domain.agents.urgency.language import detect_language

HELD_OUT = Path(__file__).resolve().parents[3] / "corpora" / "urgency" / "heldout"


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        (
            "¡AYUDAAAA! Mi mamá no puede respirar 😭",
            "ayudaa mi mama nao puede respirar".replace("nao ", "no "),
        ),
        ("Tô com falta de ar, não consigo", "to com falta de ar nao consigo"),
        ("help!!! my dad's having a heart-attack", "help my dad s having a heart attack"),
        ("  39,5 de fiebre\n\n", "39 5 de fiebre"),
        ("snake_case_word", "snake case word"),
    ],
)
def test_fold_is_casefolded_accentless_words(text: str, folded: str) -> None:
    assert fold(text) == folded


def test_features_are_words_pairs_and_character_grams_within_words() -> None:
    found = features("Me duele")
    assert found[:3] == ["w:me", "w:duele", "b:me duele"]
    assert {"c: me", "c:me ", "c: du", "c:duel", "c:uele "} <= set(found)
    assert not any(f.startswith("c:") and " " in f[2:].strip() for f in found)  # no gram spans two words


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("help my dad is having a heart attack", "en"),
        ("my phone died lol", "en"),
        ("me late el corazón rapidísimo y me estoy mareando", "es"),
        ("hola, tienen turno para el jueves?", "es"),
        ("tô com muita falta de ar, não consigo respirar", "pt"),
        ("preciso urgente do atestado pro trabalho", "pt"),
        ("auxilio", "es"),
        ("🆘🆘", "es"),
    ],
)
def test_detect_language(text: str, language: str) -> None:
    assert detect_language(text) == language


def test_detect_language_on_the_held_out_corpora() -> None:
    """Nearly every held-out message is read in the language its writer used (printed per language)."""
    rows = [
        json.loads(line)
        for path in sorted(HELD_OUT.glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]
    by_language: dict[str, list[bool]] = {}
    for row in rows:
        by_language.setdefault(row["lang"], []).append(detect_language(row["text"]) == row["lang"])
    for language, right in sorted(by_language.items()):
        print(f"{language}: {sum(right)}/{len(right)} read as {language}")
    assert by_language and all(sum(right) / len(right) >= 0.9 for right in by_language.values())
