"""The candidate patterns: one regex per construction that can state a completed action.

Each rule's ``kind`` tells `checks` how to read the verb group it captures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from switchboard.domain.agents.claims.english import EN_BASE, EN_PART, EN_PAST
from switchboard.domain.agents.claims.lexicon import INTERJ, MASK, alt
from switchboard.domain.agents.claims.spanish import INF, P1P, P1S, P3P, P3S, PART


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    lang: str  # "es" | "en"
    kind: str  # how the verb group is read and checked (see check / _check_es)


def _r(name: str, lang: str, kind: str, pattern: str) -> Rule:
    return Rule(name, re.compile(pattern), lang, kind)


_CLITIC = r"(?:(?:te|le|les|me|nos|se)\s+)?(?:(?:lo|la|los|las)\s+)?"
_B = r"(?:^|(?<=[,:]))\s*"  # clause start
_ES_PAST_AUX = (
    r"fue|fueron|ha sido|han sido|habia sido|ha quedado|han quedado|hemos quedado|quedó|quedo|quedaron|"
    r"quedaste|quedamos|se ha|se han"
)
_ES_STATE_AUX = r"está|esta|están|estan|estás|estas|queda|quedan|quedás|quedas"
_ES_ADV = (
    r"(?:(?:ya|todo|correctamente|exitosamente|bien|tambien|oficialmente|debidamente|finalmente|recien)\s+)"
)
_PARCEL_ES = r"(?:pedido|paquete|envio|compra|encomienda|orden)"
# "El pedido salió caro / perfecto / $5.000": how it turned out, not that it shipped.
_NOT_A_PRICE = (
    r"(?!\s+(?:caro|cara|barato|barata|mal|bien|perfecto|perfecta|genial|rico|rica|hermoso|hermosa|lindo|"
    r"linda|excelente|igual|distinto|\$|\d|en\s+\$|en\s+\d|a\s+\$))"
)
_EN_ADV = r"(?:(?:now|all|just|already|also|successfully|officially|both|finally|correctly)\s+)"

RULES = [
    _r(
        "es_p1s",
        "es",
        "p1s",
        rf"\b(?P<pre>(?:(?:ya|yo|recien|tambien|ahora|hoy)\s+)*)(?P<cl>{_CLITIC})(?P<v>{P1S})\b",
    ),
    _r(
        "es_p1p",
        "es",
        "p1p",
        rf"\b(?P<pre>(?:(?:ya|recien|hoy|ayer)\s+)*)(?P<cl>{_CLITIC})(?P<v>{P1P})\b",
    ),
    _r("es_se_p3", "es", "p3", rf"\bse\s+(?:(?:te|le|les|me|nos)\s+)?(?P<v>{P3S}|{P3P})\b"),
    _r("es_clitic_p3p", "es", "p3", rf"\b(?:te|le|les)\s+(?:(?:lo|la|los|las)\s+)?(?P<v>{P3P})\b"),
    _r(
        "es_perfect",
        "es",
        "perfect",
        rf"\b(?P<cl>{_CLITIC})(?:he|hemos|ha|han|habeis|habia|habiamos)\s+{_ES_ADV}?(?P<v>{PART})\b",
    ),
    _r("es_passive", "es", "passive", rf"\b(?P<aux>{_ES_PAST_AUX})\s+{_ES_ADV}{{0,2}}(?P<v>{PART})\b"),
    _r("es_state", "es", "state", rf"\b(?P<aux>{_ES_STATE_AUX})\s+{_ES_ADV}{{0,2}}(?P<v>{PART})\b"),
    _r(
        "es_dejar",
        "es",
        "dejar",
        rf"\b{_CLITIC}(?P<aux>deje|dejé|dejamos|dejo)\s+{_ES_ADV}{{0,2}}(?P<v>{PART})\b",
    ),
    _r(
        "es_tener",
        "es",
        "tener",
        rf"\b(?P<aux>tenes|tenés|tienes|tiene|tienen)\s+(?:(?:tu|su|el|la|un|una|tus|sus)\s+)?"
        rf"(?:\w+\s+)?(?P<v>{PART})\b",
    ),
    _r(
        "es_acabar",
        "es",
        "acabar",
        rf"\b(?:(?:acabo|acabamos|acaba|acaban)\s+de|(?:he|hemos|ha)\s+procedido\s+a|(?:procedi|procedí|procedimos)\s+a|"
        rf"se\s+procedio\s+a|se\s+procedió\s+a|pude|pudimos|logre|logré|logramos)\s+{_CLITIC}(?P<v>{INF})"
        rf"(?:te|le|lo|la|les|los|las)*\b",
    ),
    _r(
        "es_confirmo",
        "es",
        "performative",
        r"\b(?:(?:te|le|les)\s+)?(?P<v>confirmo)\s+(?:tu|su|el|la|los|las|tus|sus)\s+"
        r"(?:turnos?|citas?|reservas?|hora|sesion|clase|consulta|mesa|asistencia|lugar|pedido|compra|"
        r"inscripcion|visita)\b",
    ),
    _r(
        "es_baja_alta",
        "es",
        "phrase",
        r"\b(?:(?:te|le|les|lo|la|ya|se)\s+){1,2}(?:di|dimos|dio)\s+de\s+(?P<v>baja|alta)\b",
    ),
    _r(
        "es_di_turno",
        "es",
        "phrase",
        r"\b(?:te|le|les|ya)\s+(?:di|dimos)\s+(?:un\s+|el\s+|una\s+)?(?P<v>turno|cita|hora|lugar)\b",
    ),
    _r("es_todo_listo", "es", "listo", r"\b(?P<v>todo listo|listo todo)\b"),
    _r(
        "es_waitlist",
        "es",
        "waitlist",
        r"\b(?P<aux>quedaste|quedás|quedas|estás|estas|ya estás|ya estas)\s+(?:ya\s+)?en\s+(?:la\s+)?"
        r"(?P<v>lista de espera)\b",
    ),
    _r(
        "es_head_part",
        "es",
        "head_part",
        rf"{_B}(?:{INTERJ}\s+){{0,2}}(?P<v>{PART})(?=\s*$|\s*[,:!{MASK}]|\s+\w)",
    ),
    _r(
        "es_head_noun",
        "es",
        "head_noun",
        rf"{_B}(?:{INTERJ}\s+){{0,2}}(?:(?:tu|su)\s+)?(?P<n>[a-z]+)"
        rf"(?:\s+(?:de|del|de la|con|para|a)\s+[^,:{MASK}]{{0,30}}?)?\s+(?P<v>{PART})\b",
    ),
    _r(
        "en_past",
        "en",
        "past",
        rf"\b(?P<subj>i|we)\s+(?:(?:have|had)\s+)?"
        rf"(?:(?:just|already|also|now|successfully|finally|quickly|personally|gone ahead and|went ahead and)\s+)*"
        rf"(?P<v>{EN_PAST})\b",
    ),
    _r(
        "en_passive",
        "en",
        "passive",
        rf"\b(?P<aux>has been|have been|had been|was|were|got|is|are|am|is now|are now)\s+{_EN_ADV}{{0,2}}"
        rf"(?P<v>{EN_PART})\b",
    ),
    _r(
        "en_head_part",
        "en",
        "head_part",
        rf"{_B}(?:{INTERJ}\s+){{0,2}}(?P<v>{EN_PART})"
        rf"(?=\s*$|\s*[,:!{MASK}]|\s+(?:for|to|on|at|with|you|it|your|the|that|this|them|successfully|and|as|in|per|up)\b)",
    ),
    _r(
        "en_head_noun",
        "en",
        "head_noun",
        rf"{_B}(?:{INTERJ}\s+){{0,2}}(?:(?:your|the)\s+)?(?P<n>[a-z]+)"
        rf"(?:\s+(?:of|for|on|at|with|to)\s+[^,:{MASK}]{{0,30}}?)?\s+(?P<v>{EN_PART})\b",
    ),
    _r("en_all_set", "en", "listo", r"\b(?P<v>all set|good to go)\b"),
    _r("en_set_for", "en", "listo", r"\b(?:you are|you re|we are)\s+(?:now\s+)?(?P<v>set)\s+for\b"),
    _r(
        "en_went_through",
        "en",
        "went_through",
        r"\b(?P<n>[a-z]+)\s+(?:has\s+|have\s+)?(?:just\s+|already\s+|successfully\s+)?(?P<v>went|gone)\s+through\b",
    ),
    _r("en_shipped", "en", "shipped", r"\b(?:has|have)\s+(?:just\s+|already\s+)?(?P<v>shipped|dispatched)\b"),
    _r(
        "en_waitlist",
        "en",
        "waitlist",
        r"\b(?:you are|you re)\s+(?:now\s+|also\s+)?on\s+(?:the|our)\s+(?P<v>waitlist|wait list|waiting list)\b",
    ),
    _r(
        "en_phrase_booked",
        "en",
        "phrase",
        r"\b(?:i|we)\s+(?:have\s+)?(?:just\s+|already\s+)?(?P<v>put you down|got you in|got you booked|"
        r"penciled you in|pencilled you in|fit you in|squeezed you in)\b",
    ),
    _r(
        "en_able",
        "en",
        "able",
        rf"\b(?:i|we)\s+(?:(?:was|were|have been|had been)\s+able|(?:just\s+|successfully\s+)?managed)\s+to\s+"
        rf"(?P<v>{alt(list(EN_BASE))})\b",
    ),
    _r(
        "es_paid_adj",  # "Ya está pago", "quedó paga la seña"
        "es",
        "paid_adj",
        rf"\b(?P<aux>{_ES_STATE_AUX}|quedó|quedo|quedaron)\s+{_ES_ADV}{{0,2}}(?P<v>pago|paga|pagos|pagas)\b"
        r"(?!\s+(?:de|del|con|por|en|mediante|pendiente|minimo|total|parcial|online|anticipado)\b)",
    ),
    _r(
        "es_proceed_noun",  # "Se ha procedido a la cancelación de su turno"
        "es",
        "proceed",
        r"\b(?:(?:se\s+)?(?:he|hemos|ha|han|habia|habiamos)\s+procedido|(?:se\s+)?(?:procedió|procedio)|"
        r"procedí|procedi|procedimos)\s+(?:a|con)\s+(?:la|el|su|tu)\s+(?P<v>[a-z]+)\b",
    ),
    _r(
        "en_proceed_noun",  # "We have proceeded with the cancellation"
        "en",
        "proceed",
        r"\b(?:i|we)\s+(?:have\s+)?proceeded\s+(?:with|to)\s+(?:the|your)\s+(?P<v>[a-z]+)\b",
    ),
    _r(
        "es_departed",  # "Tu pedido salió hoy", "Ya salió tu pedido", "Tu paquete está en camino"
        "es",
        "departed",
        rf"\b(?:tu|su|el)\s+{_PARCEL_ES}\s+(?:ya\s+)?(?P<v>salió|salio|(?:está|esta)\s+(?:ya\s+)?en camino)\b"
        rf"{_NOT_A_PRICE}",
    ),
    _r(
        "es_departed_first",
        "es",
        "departed",
        rf"\bya\s+(?P<v>salió|salio)\s+(?:tu|su|el)\s+{_PARCEL_ES}\b",
    ),
    _r(
        "en_departed",  # "Your order is on its way"
        "en",
        "departed",
        r"\b(?:your|the)\s+(?:order|package|parcel|shipment|delivery)\s+(?:is|has)\s+(?:now\s+|already\s+)?"
        r"(?P<v>on its way|on the way|out for delivery|in transit|left our warehouse)\b",
    ),
    _r(
        "en_called_off",
        "en",
        "phrase",
        r"\b(?:i|we)\s+(?:have\s+)?(?:just\s+|already\s+)?(?P<v>called off)\b",
    ),
]

PHRASE_ACTIONS = {
    "baja": "cancelled",
    "alta": "registered",
    "turno": "booked",
    "cita": "booked",
    "hora": "booked",
    "lugar": "booked",
    "put you down": "booked",
    "got you in": "booked",
    "got you booked": "booked",
    "penciled you in": "booked",
    "pencilled you in": "booked",
    "fit you in": "booked",
    "squeezed you in": "booked",
    "called off": "cancelled",
}

# Forms that are present tense too: rejected under conditions and habits.
PRESENT_KINDS = frozenset(
    {"p1p", "state", "tener", "performative", "listo", "head_part", "head_noun", "paid_adj", "departed"}
)
