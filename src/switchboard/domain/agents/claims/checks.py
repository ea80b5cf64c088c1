"""Reading a candidate match: is it a claim, and which action does it state?"""

from __future__ import annotations

import re

from switchboard.domain.agents.claims.blockers import (
    available,
    licensed,
    negated,
    present_blocked,
    subject_fits,
)
from switchboard.domain.agents.claims.english import EN_BASE, EN_PASSIVE_ONLY, EN_TABLE
from switchboard.domain.agents.claims.lexicon import CUSTOMER_NOUNS, NOUN_ACTION, PAYMENT_NOUNS, Verb
from switchboard.domain.agents.claims.rules import PHRASE_ACTIONS, PRESENT_KINDS, Rule
from switchboard.domain.agents.claims.spanish import ES_FORMS, LIST_ES, SLOT_ES
from switchboard.domain.agents.claims.statements import clause_after, clause_before, first_words, tokens


def _noun_action(text: str, allowed: tuple[str, ...] | None, last: bool = False) -> str | None:
    words = tokens(text)
    for w in reversed(words) if last else words:
        action = NOUN_ACTION.get(w)
        if action and (allowed is None or action in allowed):
            return action
    return None


def _resolve(verb: Verb, before: str, after: str, passive: bool) -> str | None:
    """The action a verb claims, or None when its object/noun does not fit."""
    if verb.action is None or verb.key in ("confirm", "registr", "register"):
        if passive:
            action = _noun_action(before, verb.nouns, last=True) or _noun_action(after, verb.nouns)
        else:
            action = _noun_action(after, verb.nouns) or _noun_action(before, verb.nouns, last=True)
        if verb.action is None:
            return action
        if action == "paid" or (verb.key in ("registr", "register") and action is not None):
            return action  # "Pago confirmado" is paid; "Tu cita quedó registrada" is booked
    if verb.list_context and re.search(rf"\b(?:{LIST_ES})\b", first_words(after, 6)):
        return "registered"
    return verb.action


_REQUEST_NOUNS = frozenset({"solicitud", "pedido", "tramite", "gestion", "request"})


def _head_noun_action(verb: Verb, noun: str, phrase: str, after: str) -> str | None:
    """A headline noun's action; a request processed by a light verb takes its complement's action
    ("Solicitud de reprogramación gestionada" is changed)."""
    if noun in _REQUEST_NOUNS and verb.action is None and verb.nouns is None:
        complement = _noun_action(phrase[len(noun) :], None)
        if complement:
            return complement
    return _resolve(verb, noun, after, passive=True)


def _needs_ok(verb: Verb, after: str, clitic: str, lang: str = "es") -> bool:
    if verb.needs is None:
        return True
    if verb.pron_ok and re.search(r"\b(?:lo|la|los|las)\b", clitic):
        return True
    head = first_words(after, 6)
    if lang == "en":  # English needs carry their own lead-in
        return re.match(rf"\s*(?:{verb.needs})", head) is not None
    return re.match(rf"\s*(?:\S+\s+){{0,3}}?(?:{verb.needs})", head) is not None


def check(rule: Rule, m: re.Match[str], s: str) -> str | None:
    """The action of a candidate match, or None when the match is not a claim."""
    start, end = m.start("v") if rule.kind.startswith("head") else m.start(), m.end()
    if rule.kind == "head_noun":
        start = m.start("n")
    before = clause_before(s, start)
    after = clause_after(s, end)
    matched = s[start:end]
    if negated(before, matched):
        return None
    if rule.kind in PRESENT_KINDS and present_blocked(s, start, end, before):
        return None
    v = m.group("v")
    groups = m.groupdict()
    clitic = (groups.get("cl") or "").strip()
    pre = (groups.get("pre") or "").strip()

    if rule.kind in ("phrase", "waitlist", "listo", "went_through", "shipped", "performative", "departed"):
        if rule.kind == "waitlist":
            return "registered"
        if rule.kind == "listo":
            return "confirmed"
        if rule.kind in ("shipped", "departed"):
            return "sent"
        if rule.kind == "performative":
            return "confirmed"
        if rule.kind == "went_through":
            noun = m.group("n")
            return "paid" if noun in PAYMENT_NOUNS or noun == "it" else None
        return PHRASE_ACTIONS[v]
    if rule.kind == "proceed":  # "se ha procedido a la cancelación": a light verb with a noun
        return NOUN_ACTION.get(v)

    if rule.lang == "en":
        verb = EN_TABLE.get(EN_BASE.get(v, v)) or EN_PASSIVE_ONLY.get(v)
        if verb is None:  # the rule matched a word the tables do not know: no claim
            return None
        if rule.kind in ("past", "able"):
            if v in EN_PASSIVE_ONLY or not _needs_ok(verb, after, "", "en"):
                return None
            return _resolve(verb, before, after, passive=False)
        if rule.kind == "passive":
            aux = m.group("aux")
            if not before.strip() or not licensed("en", before, after):
                return None
            if aux in ("is", "are", "am", "is now", "are now"):
                if present_blocked(s, start, end, before):
                    return None
            subject = before + " " + s[start : m.start("v")]
            if verb.action == "booked" and available(subject, after):
                return None
            if not subject_fits(verb, subject, after):
                return None
            return _resolve(verb, subject, after, passive=True)
        if rule.kind == "head_part":
            if v in EN_PASSIVE_ONLY or verb.action == "booked" and available("", after):
                return None
            if verb.action is not None and not after.strip():
                return verb.action  # "Updated!", "Cancelled ✅"
            if not _needs_ok(verb, after, "", "en"):
                return None
            return _resolve(verb, "", after, passive=False)
        if rule.kind == "head_noun":
            noun = m.group("n")
            if noun not in CUSTOMER_NOUNS or noun.endswith("s") and noun not in ("class", "address"):
                return None
            return _head_noun_action(verb, noun, s[start : m.start("v")], after)
        return None

    if rule.kind == "paid_adj":  # "Ya está pago"
        return "paid" if licensed("es", before, after) else None

    verbs = ES_FORMS.get(_es_category(rule.kind, v), {}).get(v, [])
    for verb in verbs:
        action = _check_es(rule, m, verb, v, before, after, clitic, pre, s, start, end)
        if action:
            return action
    return None


def _es_category(kind: str, v: str) -> str:
    if kind in ("p1s", "p1p", "acabar"):
        return {"p1s": "p1s", "p1p": "p1p", "acabar": "inf"}[kind]
    if kind == "p3":
        return "p3s" if v in ES_FORMS["p3s"] else "p3p"
    return "part"


# What makes an "-amos" form past rather than present: one occasion, or the customer's request.
_OCCASION = re.compile(
    r"\b(?:para|del)\s+(?:el\s+)?(?:(?:dia\s+)?\d{1,2}(?:/\d{1,2})?\b|dia\s+\d|lunes|martes|miercoles|"
    r"jueves|viernes|sabado|domingo|manana|hoy)\b"
)
_AS_REQUESTED = re.compile(
    r"\bcomo\s+(?:me\s+|nos\s+|lo\s+)?(?:pediste|pidio|pidió|pidieron|solicitaste|solicitó|solicitaron|"
    r"indicaste|indicó|acordamos|hablamos)\b"
)
_LIST_OR_SLOT = re.compile(
    rf"\s*(?:en|al|a)\s+(?:(?:el|la|los|las|tu|su|nuestro|nuestra)\s+)?(?:\w+\s+)?(?:{LIST_ES}|{SLOT_ES})\b"
)
_SUBJUNCTIVE_TRIGGER = re.compile(
    r"\b(?:que|ojala|para|cuando|apenas|hasta|quiza|quizas|tal vez|quieres|queres|quiere|quieren)\s*$"
)


def _check_es(
    rule: Rule,
    m: re.Match[str],
    verb: Verb,
    v: str,
    before: str,
    after: str,
    clitic: str,
    pre: str,
    s: str,
    start: int,
    end: int,
) -> str | None:
    kind = rule.kind
    if verb.key == "confirm" and kind in ("p1s", "p1p", "p3", "perfect") and re.match(r"\s*que\b", after):
        return None  # "Le confirmamos que ...": confirming information; the clause after speaks for itself
    if kind == "p1s":
        accented = v[-1] in "éí" or v == "hice"
        has_support = bool(clitic) or bool(pre)
        if verb.irish and not has_support:
            if not (verb.bare_ok and _resolve(verb, "", after, passive=False)):
                return None
        elif not accented and not has_support:
            return None
        if not accented and _SUBJUNCTIVE_TRIGGER.search(before):
            return None
    elif kind == "p1p":
        past_only = verb.key in ("hac", "mov", "devolv", "suspend")  # -er verbs: -imos is preterite only
        # -ar/-ir "-amos/-imos" is present too: it needs "ya"/"recién", a possessive object, an object
        # pronoun plus an object or a list/slot ("Te enviamos el link", "Te inscribimos en el curso"; not
        # "te confirmamos por mail"), or one occasion or the customer's request after it.
        has_object = re.search(r"\b(?:lo|la|los|las)\b", clitic) is not None or (
            re.match(r"\s*(?:el|la|los|las|un|una|tu|tus|su|sus)\b", after) is not None
        )
        support = (
            bool(pre)
            or re.match(r"\s*(?:tu|tus|su|sus)\b", after) is not None
            or (bool(clitic) and (has_object or _LIST_OR_SLOT.match(after) is not None))
            or (verb.bare_ok and re.match(r"\s*(?:el|la)\s+\w+", after) is not None)
            # "Cancelamos la clase del jueves", "Anulamos el pedido como pediste"; not a bare plural
            # object, which is policy ("Tomamos reservas para el sábado").
            or (
                (_OCCASION.search(after) or _AS_REQUESTED.search(after))
                and not re.match(r"\s*(?!(?:los|las|tus|sus|mis|nos|les)\b)[a-z]+s\b", after)
            )
        )
        if not past_only and not support:
            return None
        if past_only and verb.action is None and not _resolve(verb, before, after, passive=False):
            return None
    elif kind == "p3":
        # "se lo reservo" is a present promise; only "se lo reservó" (accented) is past.
        if v.endswith("o") and re.search(r"\b(?:lo|la|los|las)\s*$", s[: m.start("v")]):
            return None
    elif kind == "perfect":
        if "usted" in tokens(before):  # "Usted ya ha pagado": the customer's action
            return None
    elif kind in ("passive", "state", "dejar", "tener"):
        if not licensed("es", before, after) and kind != "tener":
            aux = m.group("aux")
            if aux not in ("quedaste", "quedamos", "estás", "estas", "quedás", "quedas"):
                return None
        if kind == "dejar" and m.group("aux") == "dejo" and present_blocked(s, start, end, before):
            return None
        subject = before + " " + s[m.start() : m.start("v")]
        if verb.action == "booked" and available(subject, after):
            return None
        if not subject_fits(verb, subject, after):
            return None
    elif kind == "head_part":
        if (not verb.bare_headline or verb.needs) and not after.strip():
            return None  # "Anotado!" means noted; "Guardado!" names nothing
        if verb.needs and not _needs_ok(verb, after, ""):
            return None  # "Marcado como leído"
        if verb.action == "booked" and available("", after):
            return None
        # "Confirmado el pago, te reservo": an absolute construction, not a headline.
        if re.match(r"\s*(?:el|la|los|las)\b", after) and re.search(r",\s*\w", s[end:]):
            return None
    elif kind == "head_noun":
        noun = m.group("n")
        if noun not in CUSTOMER_NOUNS or noun.endswith("s") and noun not in ("datos",):
            return None
        return _head_noun_action(verb, noun, s[start : m.start("v")], after)

    passive = kind in ("passive", "state", "dejar", "tener", "head_part")
    if kind in ("p1s", "p1p", "p3", "perfect", "acabar") and not _needs_ok(verb, after, clitic):
        return None
    return _resolve(verb, before, after, passive=passive)
