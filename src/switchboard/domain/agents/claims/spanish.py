"""Spanish verb forms: each action verb by tense/person category, and their regex alternations.

Accents are kept only on a word's final vowel, as `normalize` leaves them.
"""

from __future__ import annotations

from switchboard.domain.agents.claims.lexicon import Verb, alt

SLOT_ES = (
    r"turnos?|citas?|reservas?|hora|horarios?|lugar|lugares|cupos?|mesas?|habitacion|cancha|clases?|"
    r"sesion|turnito|espacio|agenda"
)
_BOOKING_ES = (
    r"turnos?|citas?|reservas?|pedidos?|orden|suscripcion|membresia|inscripcion|clases?|sesion|compra"
)
_DOC_ES = (
    r"link|links|enlace|comprobante|factura|recibo|presupuesto|formulario|informacion|info|datos|"
    r"direccion|ubicacion|contacto|numero|mail|correo|pdf|archivo|foto|catalogo|menu|receta|detalles|"
    r"instrucciones|codigo"
)
_MONEY_ES = (
    r"dinero|plata|importe|monto|sena|pago|reembolso|diferencia|\$|\d|pesos|dolares|a (?:tu|su) tarjeta|"
    r"a (?:tu|su) cuenta|a la tarjeta"
)
LIST_ES = (
    r"lista|grupo|clase|clases|curso|taller|programa|newsletter|difusion|comunidad|canal|club|torneo|"
    r"evento|seminario|capacitacion|sorteo|maraton"
)
_ACCOUNT_ES = r"cuenta|usuario|perfil|ficha|legajo"


def _es(
    stem: str, conj: str, *, p1s: str | None = None, part: tuple[str, ...] | None = None
) -> dict[str, tuple[str, ...]]:
    """Spanish forms of one verb by category (accents only on a final vowel)."""
    if conj == "ar":
        forms = {
            "p1s": ((p1s or stem) + "é", (p1s or stem) + "e"),
            "p1p": (stem + "amos",),
            "p3s": (stem + "ó", stem + "o"),
            "p3p": (stem + "aron",),
            "part": tuple(stem + e for e in ("ado", "ada", "ados", "adas", "adisimo", "adisima")),
            "inf": (stem + "ar",),
        }
    else:
        forms = {
            "p1s": (stem + "í", stem + "i"),
            "p1p": (stem + "imos",),
            "p3s": (stem + "ió", stem + "io"),
            "p3p": (stem + "ieron",),
            "part": tuple(stem + e for e in ("ido", "ida", "idos", "idas")),
            "inf": (stem + ("er" if conj == "er" else "ir"),),
        }
    if part is not None:
        forms["part"] = part
    return forms


# (forms, verb) for every Spanish verb.
_ES_TABLE: list[tuple[dict[str, tuple[str, ...]], Verb]] = []


def _add_es(
    stem: str, conj: str, verb: Verb, *, p1s: str | None = None, part: tuple[str, ...] | None = None
) -> None:
    _ES_TABLE.append((_es(stem, conj, p1s=p1s, part=part), verb))


_V = Verb
_add_es("reserv", "ar", _V("reserv", "booked"))
_add_es("agend", "ar", _V("agend", "booked"))
_add_es("apart", "ar", _V("apart", "booked"))
_add_es("separ", "ar", _V("separ", "booked", SLOT_ES, pron_ok=True))
_add_es("bloque", "ar", _V("bloque", "booked", SLOT_ES, pron_ok=True))
_add_es("anot", "ar", _V("anot", "booked", list_context=True, bare_headline=False))
_add_es("marc", "ar", _V("marc", "booked", SLOT_ES + "|consulta", bare_headline=False), p1s="marqu")
_add_es("tom", "ar", _V("tom", "booked", SLOT_ES))
_add_es("sac", "ar", _V("sac", "booked", SLOT_ES), p1s="saqu")
_add_es("consegu", "ir", _V("consegu", "booked", SLOT_ES, irish=True))
_add_es("guard", "ar", _V("guard", "booked", SLOT_ES))
_add_es("program", "ar", _V("program", "booked", _BOOKING_ES, pron_ok=True))
_add_es("cancel", "ar", _V("cancel", "cancelled"))
_add_es("anul", "ar", _V("anul", "cancelled"))
_add_es("elimin", "ar", _V("elimin", "cancelled", _BOOKING_ES, pron_ok=True))
_add_es("borr", "ar", _V("borr", "cancelled", _BOOKING_ES, pron_ok=True))
_add_es("liber", "ar", _V("liber", "cancelled", SLOT_ES, pron_ok=True))
_add_es("suspend", "er", _V("suspend", "cancelled", _BOOKING_ES, pron_ok=True))
_add_es("reprogram", "ar", _V("reprogram", "changed"))
_add_es("modific", "ar", _V("modific", "changed"), p1s="modifiqu")
_add_es("cambi", "ar", _V("cambi", "changed"))
_add_es("actualiz", "ar", _V("actualiz", "changed"), p1s="actualic")
_add_es("mov", "er", _V("mov", "changed", SLOT_ES, pron_ok=True))
_add_es("adelant", "ar", _V("adelant", "changed", SLOT_ES, pron_ok=True))
_add_es("atras", "ar", _V("atras", "changed", SLOT_ES, pron_ok=True))
_add_es("posterg", "ar", _V("posterg", "changed"), p1s="postergu")
_add_es("correg", "ir", _V("correg", "changed", irish=True))
_add_es("pas", "ar", _V("pas-changed", "changed", r"(?:turno|cita|reserva|sesion|clase)\b"), part=())
_add_es("pas", "ar", _V("pas-sent", "sent", _DOC_ES), part=())
_add_es("pag", "ar", _V("pag", "paid"), p1s="pagu")
_add_es("abon", "ar", _V("abon", "paid"))
_add_es("acredit", "ar", _V("acredit", "paid"))
_add_es("cobr", "ar", _V("cobr", "paid"))
_add_es("debit", "ar", _V("debit", "paid"))
_add_es("reembols", "ar", _V("reembols", "paid"))
_add_es(
    "devolv",
    "er",
    _V("devolv", "paid", _MONEY_ES),
    part=("devuelto", "devuelta", "devueltos", "devueltas"),
)
_add_es("recib", "ir", _V("recib", None, nouns=("paid",), bare_ok=True, irish=True))
_add_es("aprob", "ar", _V("aprob", None, nouns=("paid", "registered", "confirmed")))
_add_es("proces", "ar", _V("proces", None))
_add_es("realiz", "ar", _V("realiz", None), p1s="realic")
_add_es("efectu", "ar", _V("efectu", None))
_add_es("gestion", "ar", _V("gestion", None))
_add_es("tramit", "ar", _V("tramit", None))
_add_es("complet", "ar", _V("complet", None))
_ES_TABLE.append(
    (
        {
            "p1s": ("hice",),
            "p1p": ("hicimos",),
            "p3s": ("hizo",),
            "p3p": ("hicieron",),
            "part": ("hecho", "hecha", "hechos", "hechas"),
            "inf": ("hacer",),
        },
        _V("hac", None),
    )
)
_add_es("envi", "ar", _V("envi", "sent"))
_add_es("reenvi", "ar", _V("reenvi", "sent"))
_add_es("mand", "ar", _V("mand", "sent"))
_add_es("remit", "ir", _V("remit", "sent", irish=True))
_add_es("despach", "ar", _V("despach", "sent"))
_add_es("compart", "ir", _V("compart", "sent", _DOC_ES, irish=True))
_add_es("registr", "ar", _V("registr", "registered"))
_add_es(
    "inscrib",
    "ir",
    _V("inscrib", "registered", irish=True),
    part=tuple(s + e for s in ("inscript", "inscrit") for e in ("o", "a", "os", "as")),
)
_add_es("sum", "ar", _V("sum", "registered", LIST_ES))
_add_es("agreg", "ar", _V("agreg", "registered", LIST_ES), p1s="agregu")
_add_es("cre", "ar", _V("cre", None, _ACCOUNT_ES, nouns=("registered",)))
_add_es("confirm", "ar", _V("confirm", "confirmed"))

ES_FORMS: dict[str, dict[str, list[Verb]]] = {}  # category -> form -> verbs
for _forms, _verb in _ES_TABLE:
    for _cat, _spellings in _forms.items():
        for _w in _spellings:
            ES_FORMS.setdefault(_cat, {}).setdefault(_w, []).append(_verb)

_ES_PART_EXTRA = {  # participle phrases with their own action
    "dado de baja": _V("baja", "cancelled"),
    "dada de baja": _V("baja", "cancelled"),
    "dados de baja": _V("baja", "cancelled"),
    "dado de alta": _V("alta", "registered"),
    "dada de alta": _V("alta", "registered"),
    "dados de alta": _V("alta", "registered"),
}
for _w, _verb in _ES_PART_EXTRA.items():
    ES_FORMS["part"].setdefault(_w, []).append(_verb)

# Regex alternations of each category (longest first).
P1S = alt(list(ES_FORMS["p1s"]))
P1P = alt(list(ES_FORMS["p1p"]))
P3S = alt(list(ES_FORMS["p3s"]))
P3P = alt(list(ES_FORMS["p3p"]))
PART = alt(list(ES_FORMS["part"]))
INF = alt(list(ES_FORMS["inf"]))
