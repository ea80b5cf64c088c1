"""Vetoes on a candidate match: negation, conditions and habits, generic subjects, availability,
and whose thing a passive subject is (the customer's own actions do not fire).
"""

from __future__ import annotations

import re

from switchboard.domain.agents.claims.lexicon import CUSTOMER_NOUNS, INTERJ, MASK, Verb
from switchboard.domain.agents.claims.statements import clause_after, first_words, tokens

_DAY = r"(?:lunes|martes|miercoles|jueves|viernes|sabado|domingo|monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NEGATORS = frozenset(
    "no ni nunca jamas tampoco nada nadie ningun ninguna ninguno sin not never nothing nobody none "
    "unable cannot failed fail without neither nor".split()
)
_HABITUAL = re.compile(
    r"\b(?:siempre|normalmente|generalmente|habitualmente|usualmente|automaticamente|por lo general|cada|"
    r"todos los|todas las|always|usually|normally|typically|generally|automatically|every|each|"
    r"in advance|de anticipacion|con anticipacion|dia anterior|el dia antes|day before|"
    r"(?:en|dentro de|within|in|hasta)\s+\d+(?:\s*(?:a|-|to)\s*\d+)?\s*(?:h|hs|hrs|horas|hours|dias|days)|"
    r"\d+\s*(?:h|hs|hrs|horas|hours)\s+(?:antes|before|prior)|"
    rf"(?:de|del|from)\s+{_DAY}\s+(?:a|al|to|through)\s+{_DAY})\b"
)
_GENERIC_SUBJECT = re.compile(r"\b(?:every|each|all|any|cada|todos|todas|cualquier)\b")
_AVAILABILITY_BEFORE = re.compile(
    r"\b(?:ese|esa|eso|este|esta|esto|esos|esas|estos|estas|that|this|those|these)\s+"
    r"(?:horario|hora|dia|fecha|turno|slot|time|day|date|spot|habitacion|room|mesa|table|cancha|clase|class|"
    r"lugar|place)s?\b"
    r"|^\s*(?:el|la|los|las|on|this|next)?\s*(?:lunes|martes|miercoles|jueves|viernes|sabado|domingo|manana|hoy|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today)s?\b"
    r"|\b(?:fully|completely|totally|totalmente|completamente|todo|all)\s*$"
)
_AVAILABILITY_AFTER = re.compile(
    r"^\s*(?:up|solid|por otra persona|por otro cliente|por otro|by someone|by another|by other)\b"
    # A restriction to a kind of people: "Reserved for members only", "reservado para socios".
    r"|^\s*(?:(?:only|exclusively|solo|solamente|exclusivamente)\s+)?(?:for|para)\s+"
    r"(?:our\s+|nuestros\s+|nuestras\s+|los\s+|las\s+)?(?:members|staff|employees|customers|clients|"
    r"guests|residents|patients|vips?|adults|kids|children|students|private events|events|socios|socias|"
    r"clientes|empleados|huespedes|residentes|pacientes|miembros|personal|alumnos|eventos)\b"
)
_FUNCTION_WORDS = frozenset(
    "hola hi y and que se te le les lo la los las me nos fue fueron ha han sido quedo quedó quedaron queda "
    "quedan esta está estan están has have been was were is are got now deje dejé dejamos dejo tenes tenés "
    "tienes tiene tienen el un una tu su tus sus you your it everything all both that this eso esto".split()
)
_POSSESSIVE = re.compile(r"\b(?:tu|tus|su|sus|your|vos|ti|you|usted)\b")
_ES_LICENCE_WORDS = re.compile(r"\b(?:ya|todo|listo|lista)\b")
_EN_LICENCE_WORDS = re.compile(r"\b(?:your|you|it|that|this|everything|all|both)\b")


def negated(before: str, matched: str) -> bool:
    window = tokens(before)[-4:] + tokens(matched)
    return any(w in _NEGATORS for w in window)


def present_blocked(s: str, start: int, end: int, before: str) -> bool:
    if MASK in s[:start] or MASK in s[end:].split(",")[0]:
        return True
    clause = before + s[start:end] + clause_after(s, end)
    return _HABITUAL.search(clause) is not None


def licensed(lang: str, before: str, after: str) -> bool:
    """Is the subject of a passive/state the customer's thing (or absent)?"""
    if _GENERIC_SUBJECT.search(before):
        return False
    content = [
        w for w in tokens(before) if not re.fullmatch(INTERJ, w) and w not in ("hola", "hi", "y", "and")
    ]
    if not content:
        return True
    if any(w in CUSTOMER_NOUNS for w in content) or _POSSESSIVE.search(before):
        return True
    if lang == "en":
        return _EN_LICENCE_WORDS.search(before) is not None
    if _ES_LICENCE_WORDS.search(before) or re.search(r"\b(?:te|le|les)\b", before):
        return True
    head = tokens(first_words(after, 4))
    return any(w in CUSTOMER_NOUNS for w in head) or bool(_POSSESSIVE.search(" ".join(head)))


def available(before: str, after: str) -> bool:
    """Does a "booked" participle report availability ("ese horario ya está reservado"), not a booking?"""
    return bool(_AVAILABILITY_BEFORE.search(before) or _AVAILABILITY_AFTER.search(after))


def subject_fits(verb: Verb, subject: str, after: str) -> bool:
    """A passive of a verb that needs an object ("bloqueado", "guardado", "borrado") fires only when its
    subject, or what follows, is that object: "Tu lugar quedó guardado", not "Tu tarjeta fue bloqueada".
    """
    if verb.needs is None:
        return True
    if re.search(rf"(?<![^\W_])(?:{verb.needs})", subject):
        return True
    if re.match(rf"\s*(?:\S+\s+){{0,3}}?(?:{verb.needs})", first_words(after, 6)):
        return True
    content = [w for w in tokens(subject) if not re.fullmatch(INTERJ, w) and w not in _FUNCTION_WORDS]
    return not content
