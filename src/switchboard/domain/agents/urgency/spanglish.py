"""English and Spanglish phrases ("my dad can't breathe", "chest pain fuerte", "está having a seizure")."""

from __future__ import annotations

from switchboard.domain.agents.urgency.patterns import (
    BLEEDING,
    CARDIAC,
    DEATH,
    EMERGENCY,
    NEUROLOGICAL,
    POISON,
    RESPIRATORY,
    Rule,
    rule,
)

# Apostrophes are gone after normalization: "can't" is "cant", "he's" is "hes".
RULES: tuple[Rule, ...] = (
    rule(
        RESPIRATORY,
        "strong",
        r"\b(?:can ?t|cannot|can not|couldn ?t|could not) breath[a-z]*|\bnot breathing\b|\bshort(?:ness)? of breath\b"
        r"|\bchoking\b|\btrouble breathing\b|\bstruggling to breathe\b",
    ),
    rule(
        CARDIAC,
        "hist",
        r"\bchest (?:pain|hurts|pressure|tightness)\b|\bpain in (?:my|his|her|the) chest\b|\bheart attack\b"
        r"|\bcardiac arrest\b",
    ),
    rule(
        NEUROLOGICAL,
        "hist",
        r"\bseizure[a-z]*|\bhaving a stroke\b|\bstroke\b|\bpassed out\b|\bfainted\b|\bunresponsive\b"
        r"|\bnot responding\b|\bwon ?t wake up\b",
    ),
    rule(
        BLEEDING,
        "strong",
        r"\bbleeding (?:a lot|heavily|badly|everywhere|so much|nonstop|non stop)\b|\blots of blood\b"
        r"|\bwon ?t stop bleeding\b|\bbleeding out\b",
    ),
    rule(DEATH, "strong", r"\b(?:is|are|hes|shes|im|theyre) dying\b"),
    rule(POISON, "hist", r"\bpoison(?:ed|ing)\b"),
    rule(
        EMERGENCY,
        "free",
        r"\bemergency\b|\bambulance\b|\bcall 911\b|\bplease help\b|\bhelp me\b|\bhelp us\b",
    ),
)
