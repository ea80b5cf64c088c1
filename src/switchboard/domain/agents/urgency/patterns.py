"""Building blocks of the detector's patterns: category names, regex macros and the rule record."""

from __future__ import annotations

import re
from dataclasses import dataclass

RESPIRATORY, CARDIAC, NEUROLOGICAL, BLEEDING = "respiratory", "cardiac", "neurological", "bleeding"
SUICIDE, DEATH = "suicide_self_harm", "imminent_death"
CHILD_SYMPTOM, EMERGENCY = "child_symptom", "explicit_emergency"
OVERDOSE, POISON = "overdose", "poison"  # internal: resolved to a public category by who it happened to

CATEGORIES = (RESPIRATORY, CARDIAC, NEUROLOGICAL, BLEEDING, SUICIDE, DEATH, CHILD_SYMPTOM, EMERGENCY)

# Bounded word gaps (<gN>: up to N words, lazily; <c5> may also cross commas) and shared stems.
_MACROS = {
    "<g1>": r"(?: [a-z0-9]+)?? ",
    "<g2>": r"(?: [a-z0-9]+){0,2}? ",
    "<g3>": r"(?: [a-z0-9]+){0,3}? ",
    "<g4>": r"(?: [a-z0-9]+){0,4}? ",
    "<g5>": r"(?: [a-z0-9]+){0,5}? ",
    "<c5>": r"(?: (?:[a-z0-9]+|,)){0,5}? ",
    "<pecho>": r"(?:pe(?:ch|xh|x|sh|cj)(?:it)?o|torax)",
    # up to 12 / 20 words or commas: the rest of a sentence, for co-occurrences that never cross a "."
    "<s12>": r"(?: (?:[a-z0-9]+|,)){0,12}? ",
    "<s20>": r"(?: (?:[a-z0-9]+|,)){0,20}? ",
    "<respir>": r"(?:res?pi+r+[a-z]*|respri[a-z]*)",
    "<much>": (
        r"(?:mucho|muchisim[oa]|mucha|un monton|montones|a montones|una barbaridad|barbaridad|horrores|"
        r"a lo loco|como loc[oa]|demasiad[oa]|bastante|un mundo|una bestialidad|a chorros?|a mares|"
        r"a borbotones|litros|banda|una locura|full|un rio|sin parar|sin control|abundante[a-z]*|horrible|"
        r"tremend[oa]|cantidad|como (?:una )?(?:canilla|llave|grifo|manguera|cascada|chancho|cerdo))"
    ),
    "<idiom>": r"(?! (?:(?:de|del) (?!dolor\b|verdad\b|un\b|una\b)|por (?!favor\b|fa\b)))",
}


def rx(*alternatives: str) -> re.Pattern[str]:
    """One compiled alternation of ``alternatives`` with the macros expanded."""
    source = "|".join(f"(?:{alt})" for alt in alternatives)
    for macro, expansion in _MACROS.items():
        source = source.replace(macro, expansion)
    return re.compile(source)


@dataclass(frozen=True)
class Rule:
    """Alternatives of one category with one strength (see ``detector``) and optional vetoes."""

    category: str
    kind: str  # strong | hist | weak | free | health
    pattern: re.Pattern[str]
    child_only: bool = False
    unless: re.Pattern[str] | None = None  # vetoes the rule when found anywhere in the message
    requires: re.Pattern[str] | None = None  # the rule needs this somewhere in the message
    before_veto: re.Pattern[str] | None = None  # vetoes a match whose preceding text ends with this


def rule(category: str, kind: str, *alternatives: str, **options: object) -> Rule:
    return Rule(category, kind, rx(*alternatives), **options)  # type: ignore[arg-type]
