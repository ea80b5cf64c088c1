"""Output-safety claim detector: does an agent's reply state a completed action?

Contract (the runtime applies it, this module only detects): a reply that states a
completed action (booked, reserved, cancelled, changed, paid, sent, registered,
confirmed; Spanish or English, any tense that claims it happened) is sent only if
the run made a successful call to a tool whose request method is not GET;
otherwise it is blocked and the run escalates.

`detect_action_claim(reply)` returns the first claim in the reply (in text order)
as an `ActionClaim(action, matched)`, or None. `action` is one of ACTIONS;
`matched` is the normalized snippet that fired. Pure: stdlib only, no I/O.

How it works
------------
1. Normalize: lower case; strip accents except on a word's last vowel (so
   "reservé" stays apart from "reserve" and "quedó" from "quedo", and "sí" from
   "si"); emoji and other symbols become clause breaks; English contractions are
   expanded ("I've" -> "i have", "didn't" -> "did not"); chat abbreviations are
   expanded ("q" -> "que", "u" -> "you", "appt" -> "appointment"); typos in the
   action words are repaired by matching a word that ends like a participle or a
   preterite ("-ado", "-é", "-ed") against the generated forms at edit distance 1
   ("resevé" -> "reservé", "canselé" -> "cancelé", "recieved" -> "received");
   colloquial "-ao" becomes "-ado" ("confirmao").
2. Keep statements only: sentences are split on . ! ? ; and line breaks. Inside
   a sentence, everything from "¿" on is a question and dropped. A sentence that
   ends in "?" without "¿" is dropped whole when it has one clause or starts with
   a question word; otherwise only its last clause is dropped ("Te reservé el
   turno, te llegó el mail?" keeps the first clause).
3. Mask conditions: from a condition or time marker (si, cuando, una vez, apenas,
   en cuanto, al + infinitive, if, once, when, as soon as, after, until, ...) to
   the next comma the text is replaced by a mask sign, so "Una vez confirmado el
   pago, ..." and "If your appointment was cancelled by us, ..." never fire.
4. Match generated verb forms: Spanish stems x (1sg/1pl/3rd preterite, perfect
   with haber, passive/resultative with fue/ha sido/quedó/queda/está, dejar +
   participle, acabar de / pude / logré / he procedido a + infinitive, se +
   preterite, participle headlines such as "Turno cancelado" or "Confirmado ✅");
   English stems x (I/we + past or present perfect, "I was able to / managed
   to" + base form, passive with is/was/has been, participle headlines such as
   "Payment received" or "Booked you for Friday", "all set", "went through").
5. Reject a match that is negated (no, nunca, ni, sin, not, never, nothing, ...
   within four words before it in the same clause), or, for forms that are also
   present or habitual ("queda confirmado", "is confirmed", "te enviamos",
   headlines), when a mask sign comes before it or later in its clause, or the
   clause carries a habitual marker (siempre, automáticamente, 24 h antes,
   within 5 days, the day before, every, ...), or the subject is generic
   ("Refunds are processed", "Every booking is confirmed").

Judgement calls
---------------
- The customer's own past actions do not fire: second-person active verbs
  ("Veo que ya pagaste", "cancelaste", "te registraste", "you've already paid",
  "you booked online") and formal third-person active verbs without "se"
  ("Usted ya reservó por la web") report what the customer did, usually read by a
  GET lookup; blocking them would escalate legitimate lookups. Passive or
  resultative statements about the customer's things do fire, whoever did the
  action ("Tu pago fue acreditado", "Payment received", "Quedaste registrado",
  "You've been charged"), because the reader takes them as the business acting.
- State reports phrased with a completed participle fire even after a lookup
  ("Tu turno está confirmado", as the contract lists); state reports phrased as
  possession or time do not ("Tenés turno el jueves", "Your next appointment is
  on Friday"). "Ya tenés turno reservado" fires (participle).
- Present-tense performatives that enact the action fire: "Te confirmo tu
  turno para el lunes", "Te lo dejo reservado hasta mañana". "Te confirmo que
  abrimos a las 9" (confirming information) and "te confirmo en un rato" do not.
- Present-tense sending inside the message is not a claim: "Te paso el link:",
  "Te dejo el link", "Te mando el presupuesto", "I'm sending you the options".
  Only past/perfect sending fires ("Te envié", "I've sent", "Se envió").
- Spanish 1st-person plural preterite is also present ("enviamos",
  "confirmamos"): it fires only with "ya"/"recién", a possessive right after
  ("Cancelamos tu reserva"), or an object pronoun plus an object ("Te
  enviamos el link"), and not with a habitual marker ("Te enviamos un
  recordatorio el día anterior", "te confirmamos por mail" do not fire).
  "Recibimos la transferencia" (definite payment object) fires; "Recibimos
  transferencias" does not. "Cobramos la seña con tu tarjeta" does not fire:
  it reads the same as the policy "we charge the deposit to your card".
- An unaccented "-e" form is also subjunctive or formal imperative ("reserve",
  "cancele"): it fires only with an object pronoun or "ya"/"yo"/"recién" before
  it and no "que"/"para"/"cuando" trigger; the accented form ("Cancelé tu
  turno") fires alone. An "-í" form of an -ir verb is also the voseo imperative
  ("Inscribí a tu hijo", "Escribí CANCELAR"): it needs an object pronoun or
  "ya", except "recibí" with a payment object.
- Questions never fire, even when they presuppose an action ("¿Te llegó el
  mail que te envié?", "Did you get the receipt I emailed?").
- Availability is not a claim: "Ese horario ya está reservado", "El sábado ya
  está todo reservado", "That slot is already booked", "We're fully booked",
  "reservado por otra persona".
- Refunds, charges and received payments map to "paid"; shipping and
  dispatching map to "sent"; unsubscribing and "dar de baja" map to
  "cancelled"; "dar de alta", waiting lists and account creation map to
  "registered"; "all set"/"todo listo" and bare "Confirmado" map to
  "confirmed"; a payment noun turns confirmed/processed/registered/received
  into "paid" ("Pago confirmado", "Ya registré tu pago").
- "Anoté" is "booked" ("Te anoté para el martes") unless a list, course or
  class follows ("Te anoté en la lista de espera" is "registered"). A bare
  "Anotado!" means "noted" and does not fire; "Anotado para el martes" does.
- Accomplishment modals are claims: "Pude reservar", "Logré reprogramar", "He
  procedido a cancelar", "I was able to book" ("No pude ..." is negated).
- Light verbs take their action from the noun ("Hice la reserva" booked, "Se
  realizó el cargo" paid, "Hicimos el cambio" changed, "Your reservation was
  made" booked); without a known noun they do not fire ("Tomé nota").
- Passives need a subject that is the customer's ("tu/su/your/you/it/that",
  a booking/payment/order noun, "ya"/"todo", or no subject at all), so "Los
  precios fueron actualizados" and "El estacionamiento está reservado para
  clientes" do not fire, while "La clase fue cancelada" does.
- Bare "Listo", "Done" and "Ok" do not fire; they need an action word.
- When a reply claims several actions, the first one in the text is reported.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

ACTIONS = ("booked", "cancelled", "changed", "paid", "sent", "registered", "confirmed")


@dataclass(frozen=True)
class ActionClaim:
    action: str  # one of ACTIONS
    matched: str  # the normalized snippet that matched


# --------------------------------------------------------------------------- lexicon

_MASK = "¤"

_SLOT_ES = (
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
_LIST_ES = (
    r"lista|grupo|clase|clases|curso|taller|programa|newsletter|difusion|comunidad|canal|club|torneo|"
    r"evento|seminario|capacitacion|sorteo|maraton"
)
_ACCOUNT_ES = r"cuenta|usuario|perfil|ficha|legajo"

_EN_BOOKING = (
    r"appointments?|bookings?|reservations?|slots?|spots?|tables?|rooms?|sessions?|class|order|visit|"
    r"consultation|membership|subscription|it|them|that|this"
)
_EN_OBJ = r"your|it|the|that|this|them|you|her|his"
_EN_LIST = r"list|waitlist|wait list|waiting list|class|course|group|program|programme|newsletter|roster"
_EN_SLOT = r"spot|slot|table|room|place|appointment|booking|reservation|seat|time"

# Nouns that take an action for light verbs and overrides.
_NOUN_ACTION: dict[str, str] = {}
for _action, _vocabulary in {
    "paid": (
        "pago pagos cobro cargo reembolso devolucion transferencia sena abono deposito dinero plata importe "
        "monto cuota payment payments charge refund transfer deposit transaction money funds balance"
    ),
    "booked": "reserva turno cita mesa booking reservation appointment",
    "cancelled": "cancelacion anulacion baja cancellation",
    "changed": (
        "cambio cambios modificacion reprogramacion actualizacion correccion change changes modification "
        "update updates"
    ),
    "sent": "envio shipment",
    "registered": (
        "registro inscripcion alta registration enrollment enrolment signup account cuenta usuario perfil "
        "profile"
    ),
    "confirmed": "confirmacion confirmation pedido order compra purchase solicitud request",
}.items():
    for _w in _vocabulary.split():
        _NOUN_ACTION[_w] = _action
_PAYMENT_NOUNS = frozenset(w for w, a in _NOUN_ACTION.items() if a == "paid")

# Words that make a passive/state subject the customer's thing.
_CUSTOMER_NOUNS = frozenset(
    (
        "turno turnos cita citas reserva reservas hora horario sesion clase consulta mesa habitacion pedido "
        "orden compra pago pagos transferencia sena reembolso devolucion factura comprobante recibo link "
        "enlace mail correo mensaje cuenta inscripcion registro suscripcion membresia asistencia lugar cupo "
        "datos direccion telefono numero presupuesto formulario receta cancha visita control cambio "
        "cancelacion solicitud tratamiento corte servicio cuota cargo abono deposito envio paquete producto "
        "evento curso taller usuario perfil "
        "appointment appointments booking bookings reservation reservations table room slot spot session "
        "class consultation visit order payment refund deposit charge card invoice receipt link email "
        "confirmation message account subscription membership registration enrollment address number "
        "details information prescription cleaning haircut transfer balance purchase request copy "
        "delivery phone"
    ).split()
)


@dataclass(frozen=True)
class _Verb:
    key: str
    action: str | None  # None: the action comes from a noun (light verb)
    needs: str | None = None  # what must follow an active form (regex alternation)
    pron_ok: bool = False  # an object pronoun lo/la before the verb satisfies `needs`
    nouns: tuple[str, ...] | None = None  # light verbs: actions the noun may give
    bare_ok: bool = False  # 1sg "-í" form of an -ir verb fires without a pronoun
    irish: bool = False  # -ir verb: 1sg form equals the voseo imperative
    list_context: bool = False  # "anoté": registered when a list/course follows
    bare_headline: bool = True  # a lone participle headline fires ("Confirmado ✅"); not "Anotado!"


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
_ES_TABLE: list[tuple[dict[str, tuple[str, ...]], _Verb]] = []


def _add_es(
    stem: str, conj: str, verb: _Verb, *, p1s: str | None = None, part: tuple[str, ...] | None = None
) -> None:
    _ES_TABLE.append((_es(stem, conj, p1s=p1s, part=part), verb))


_V = _Verb
_add_es("reserv", "ar", _V("reserv", "booked"))
_add_es("agend", "ar", _V("agend", "booked"))
_add_es("apart", "ar", _V("apart", "booked"))
_add_es("separ", "ar", _V("separ", "booked", _SLOT_ES, pron_ok=True))
_add_es("bloque", "ar", _V("bloque", "booked", _SLOT_ES, pron_ok=True))
_add_es("anot", "ar", _V("anot", "booked", list_context=True, bare_headline=False))
_add_es("tom", "ar", _V("tom", "booked", _SLOT_ES))
_add_es("sac", "ar", _V("sac", "booked", _SLOT_ES), p1s="saqu")
_add_es("consegu", "ir", _V("consegu", "booked", _SLOT_ES, irish=True))
_add_es("guard", "ar", _V("guard", "booked", _SLOT_ES))
_add_es("program", "ar", _V("program", "booked", _BOOKING_ES, pron_ok=True))
_add_es("cancel", "ar", _V("cancel", "cancelled"))
_add_es("anul", "ar", _V("anul", "cancelled"))
_add_es("elimin", "ar", _V("elimin", "cancelled", _BOOKING_ES, pron_ok=True))
_add_es("borr", "ar", _V("borr", "cancelled", _BOOKING_ES, pron_ok=True))
_add_es("liber", "ar", _V("liber", "cancelled", _SLOT_ES, pron_ok=True))
_add_es("suspend", "er", _V("suspend", "cancelled", _BOOKING_ES, pron_ok=True))
_add_es("reprogram", "ar", _V("reprogram", "changed"))
_add_es("modific", "ar", _V("modific", "changed"), p1s="modifiqu")
_add_es("cambi", "ar", _V("cambi", "changed"))
_add_es("actualiz", "ar", _V("actualiz", "changed"), p1s="actualic")
_add_es("mov", "er", _V("mov", "changed", _SLOT_ES, pron_ok=True))
_add_es("adelant", "ar", _V("adelant", "changed", _SLOT_ES, pron_ok=True))
_add_es("atras", "ar", _V("atras", "changed", _SLOT_ES, pron_ok=True))
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
_add_es("aprob", "ar", _V("aprob", None, nouns=("paid",)))
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
_add_es("sum", "ar", _V("sum", "registered", _LIST_ES))
_add_es("agreg", "ar", _V("agreg", "registered", _LIST_ES), p1s="agregu")
_add_es("cre", "ar", _V("cre", None, _ACCOUNT_ES, nouns=("registered",)))
_add_es("confirm", "ar", _V("confirm", "confirmed"))

# English: past/participle form -> verb.
_EN_TABLE: dict[str, _Verb] = {}


def _add_en(forms: str, verb: _Verb) -> None:
    for f in forms.split():
        _EN_TABLE[f] = verb


_add_en("booked reserved scheduled", _V("book", "booked"))
_add_en("secured held", _V("secure", "booked", rf"(?:(?:{_EN_OBJ}|a|an)\s+)?(?:\w+\s+)?(?:{_EN_SLOT})\b"))
_add_en("cancelled canceled cancelled unsubscribed voided", _V("cancel", "cancelled"))
_add_en("removed deleted", _V("remove", "cancelled", rf"(?:\w+\s+){{0,2}}(?:{_EN_BOOKING})\b"))
_add_en("rescheduled modified postponed", _V("reschedule", "changed"))
_add_en("moved changed updated", _V("change", "changed", rf"(?:{_EN_OBJ})\b"))
_add_en("pushed", _V("push", "changed", r"(?:\w+\s+){0,3}(?:back|forward|to)\b"))
_add_en("paid charged refunded credited", _V("pay", "paid"))
_add_en("received", _V("receive", None, nouns=("paid",)))
_add_en("approved", _V("approve", None, nouns=("paid",)))
_add_en("processed made completed issued submitted", _V("process", None))
_add_en("sent emailed texted forwarded mailed resent shipped dispatched messaged", _V("send", "sent"))
_add_en("shared", _V("share", "sent", r"(?:\w+\s+){0,3}(?:link|location|details|address|info|information)\b"))
_add_en("registered enrolled", _V("register", "registered"))
_add_en("signed", _V("sign", "registered", r"(?:\w+\s+){0,2}up\b"))
_add_en(
    "added",
    _V("add", "registered", rf"(?:\w+\s+){{0,2}}to\s+(?:the\s+|our\s+|your\s+)?(?:\w+\s+)?(?:{_EN_LIST})\b"),
)
_add_en("created", _V("create", None, r"(?:\w+\s+){0,2}(?:account|profile)\b", nouns=("registered",)))
_add_en("confirmed", _V("confirm", "confirmed"))
# Base forms for "I was able to ..." / "we managed to ...".
_EN_BASE = {
    "book": "booked",
    "reserve": "reserved",
    "schedule": "scheduled",
    "secure": "secured",
    "cancel": "cancelled",
    "remove": "removed",
    "reschedule": "rescheduled",
    "move": "moved",
    "change": "changed",
    "update": "updated",
    "modify": "modified",
    "postpone": "postponed",
    "charge": "charged",
    "refund": "refunded",
    "process": "processed",
    "send": "sent",
    "email": "emailed",
    "text": "texted",
    "forward": "forwarded",
    "register": "registered",
    "enroll": "enrolled",
    "sign": "signed",
    "add": "added",
    "confirm": "confirmed",
}
# "set" only as a participle ("everything is set", "you're set for Monday").
_EN_PASSIVE_ONLY = {"set": _V("set", "confirmed")}

# ------------------------------------------------------------------- derived tables

_ES_FORMS: dict[str, dict[str, list[_Verb]]] = {}  # category -> form -> verbs
for _forms, _verb in _ES_TABLE:
    for _cat, _spellings in _forms.items():
        for _w in _spellings:
            _ES_FORMS.setdefault(_cat, {}).setdefault(_w, []).append(_verb)

_ES_PART_EXTRA = {  # participle phrases with their own action
    "dado de baja": _V("baja", "cancelled"),
    "dada de baja": _V("baja", "cancelled"),
    "dados de baja": _V("baja", "cancelled"),
    "dado de alta": _V("alta", "registered"),
    "dada de alta": _V("alta", "registered"),
    "dados de alta": _V("alta", "registered"),
}
for _w, _verb in _ES_PART_EXTRA.items():
    _ES_FORMS["part"].setdefault(_w, []).append(_verb)


def _alt(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


_P1S = _alt(list(_ES_FORMS["p1s"]))
_P1P = _alt(list(_ES_FORMS["p1p"]))
_P3S = _alt(list(_ES_FORMS["p3s"]))
_P3P = _alt(list(_ES_FORMS["p3p"]))
_PART = _alt(list(_ES_FORMS["part"]))
_INF = _alt(list(_ES_FORMS["inf"]))
_EN_PAST = _alt(list(_EN_TABLE))
_EN_PART = _alt([*_EN_TABLE, *_EN_PASSIVE_ONLY])

# Canonical forms that typo repair may restore.
_CANONICAL = frozenset(
    [w for cat in ("p1s", "p3s", "part") for w in _ES_FORMS[cat] if len(w) >= 5] + list(_EN_TABLE)
)
_KNOWN = frozenset(w for forms in _ES_FORMS.values() for w in forms) | frozenset(_EN_TABLE)
_PROTECTED = frozenset(
    (
        "estado cuidado abogado abogada helado pasado pasada pesado pesada privado privada cansado cansada "
        "feriado pedido pedidos sentido partido vestido ruido apellido contenido querido querida ocupado "
        "ocupada cerrado cerrada llamado llamada entrada salida comida bebida medida jornada mirada llegada "
        "parada agotado agotada agotados agotadas pegado pegada separada combinado atendido atendida "
        "looked cooked hooked needed wanted checked skipped slipped shopped stopped worked booster "
        "charted chained deserved reversed conformed"
    ).split()
)
_FUZZY_ENDINGS = ("ados", "adas", "idos", "idas", "ado", "ada", "ido", "ida", "é", "í", "ó", "ed")

# Grammar words.
_CLITIC = r"(?:(?:te|le|les|me|nos|se)\s+)?(?:(?:lo|la|los|las)\s+)?"
_NEGATORS = frozenset(
    "no ni nunca jamas tampoco nada nadie ningun ninguna ninguno sin not never nothing nobody none "
    "unable cannot failed fail without neither nor".split()
)
_ES_INTERJ = r"(?:listo|lista|perfecto|perfecta|genial|excelente|ok|okay|okey|dale|bien|bueno|buenisimo|hecho|ya|todo|y|entonces|joya|super|great|done|sure|all|and|also|just|now|perfect|awesome)"
_QUESTION_START = frozenset(
    (
        "queres querés quieres quiere quieren quisieras puedo podes podés puede pueden podemos podrias "
        "preferis preferís prefieres prefiere necesitas necesitás necesita tenes tenés tienes confirmas "
        "confirmás pudiste recibiste que qué cual cuál cuando cuándo como cómo donde dónde "
        "would could can shall should do does did is are was were have has will may want wanna any what "
        "when where which who how why"
    ).split()
)
_CONDITION = re.compile(
    r"\b(?:si(?!\s*[,!])|cuando|una vez(?: que)?|apenas|en cuanto|en caso de(?: que)?|hasta que|"
    r"antes de(?: que)?|despues de(?: que)?|luego de(?: que)?|para que|siempre que|mientras|"
    r"as[ií](?=\s+(?:lo|la|los|las|te|le|les|ya)\b)|"
    r"al(?=\s+(?!lugar\b|celular\b|hogar\b|taller\b|mar\b|bar\b|titular\b|particular\b|familiar\b)\w{3,}(?:ar|er|ir)\b)|"
    r"if|once|when|whenever|as soon as|after|before|until|unless|in case|so that|provided)\b"
    r"[^,:]*"
)
_SAFE_PHRASES = re.compile(
    r"\b(?:no te preocupes|no se preocupe|no hay problema|no pasa nada|no dudes en|no dudes|sin problema|"
    r"no problem(?: at all)?|no worries|do not worry|no olvides)\b"
)
_HABITUAL = re.compile(
    r"\b(?:siempre|normalmente|generalmente|habitualmente|usualmente|automaticamente|por lo general|cada|"
    r"todos los|todas las|always|usually|normally|typically|generally|automatically|every|each|"
    r"in advance|de anticipacion|con anticipacion|dia anterior|el dia antes|day before|"
    r"(?:en|dentro de|within|in|hasta)\s+\d+(?:\s*(?:a|-|to)\s*\d+)?\s*(?:h|hs|hrs|horas|hours|dias|days)|"
    r"\d+\s*(?:h|hs|hrs|horas|hours)\s+(?:antes|before|prior))\b"
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
)
_POSSESSIVE = re.compile(r"\b(?:tu|tus|su|sus|your|vos|ti|you|usted)\b")
_ES_LICENCE_WORDS = re.compile(r"\b(?:ya|todo|listo|lista)\b")
_EN_LICENCE_WORDS = re.compile(r"\b(?:your|you|it|that|this|everything|all|both)\b")

# ---------------------------------------------------------------------- normalizing

_ABBREVIATIONS = {
    "q": "que",
    "k": "que",
    "x": "por",
    "xq": "porque",
    "pq": "porque",
    "porq": "porque",
    "tmb": "tambien",
    "tb": "tambien",
    "ud": "usted",
    "uds": "ustedes",
    "bn": "bien",
    "msj": "mensaje",
    "dsp": "despues",
    "u": "you",
    "ur": "your",
    "pls": "please",
    "plz": "please",
    "appt": "appointment",
    "appts": "appointments",
    "pmt": "payment",
    "pymt": "payment",
    "acct": "account",
    "t": "te",
    "ive": "i have",
    "weve": "we have",
    "youve": "you have",
    "youre": "you are",
    "im": "i am",
    "dont": "do not",
    "didnt": "did not",
    "couldnt": "could not",
    "wasnt": "was not",
    "werent": "were not",
    "hasnt": "has not",
    "havent": "have not",
    "isnt": "is not",
    "arent": "are not",
    "cant": "can not",
    "shouldnt": "should not",
    "wouldnt": "would not",
    "doesnt": "does not",
    "thats": "that is",
}
_CONTRACTIONS = [
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\bcan't\b"), "can not"),
    (re.compile(r"\b(\w+)n't\b"), r"\1 not"),
    (re.compile(r"\bi'm\b"), "i am"),
    (re.compile(r"\b(\w+)'ve\b"), r"\1 have"),
    (re.compile(r"\b(\w+)'re\b"), r"\1 are"),
    (re.compile(r"\b(\w+)'ll\b"), r"\1 will"),
    (re.compile(r"\b(\w+)'d\b"), r"\1 would"),
    (re.compile(r"\b(\w+)'s been\b"), r"\1 has been"),
    (
        re.compile(
            r"\b(it|that|everything|all|this|there|here|what|who|he|she|payment|appointment|booking|order|"
            r"reservation|table|refund|account)'s\b"
        ),
        r"\1 is",
    ),
    (re.compile(r"'s\b"), ""),
]
_TITLES = re.compile(r"\b(dr|dra|sr|sra|srta|lic|av|nro|st|mr|mrs|ms|etc|aprox|tel)\.")
_ALLOWED = re.compile(r"[^\w\s.,;:!?¿¡'$%/@+\-]")


def _fold_word(m: re.Match[str]) -> str:
    word = m.group()
    last = word[-1]
    stripped = "".join(c for c in unicodedata.normalize("NFD", word[:-1]) if not unicodedata.combining(c))
    if last in "áéíóú":
        return stripped + last
    return stripped + "".join(c for c in unicodedata.normalize("NFD", last) if not unicodedata.combining(c))


def _osa(a: str, b: str) -> int:
    """Optimal string alignment distance (edits and adjacent swaps)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _repair(word: str) -> str:
    if word in _KNOWN or word in _PROTECTED or len(word) < 6:
        return word
    if word.endswith("ao") and word[:-2] + "ado" in _KNOWN:
        return word[:-2] + "ado"
    ending = next((e for e in _FUZZY_ENDINGS if word.endswith(e)), None)
    if ending is None or (ending == "ed" and len(word) < 7):
        return word
    best: list[str] = []
    for cand in _CANONICAL:
        if cand[0] != word[0] or not cand.endswith(ending) or abs(len(cand) - len(word)) > 1:
            continue
        if _osa(word, cand) == 1:
            best.append(cand)
    return best[0] if len(best) == 1 else word


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFC", text).lower()
    text = re.sub(r"[’‘`´]", "'", text)
    text = re.sub(r"\w+", _fold_word, text)
    text = re.sub(r"\bn[º°o]\.?\s*(?=\d)", "nro ", text)
    text = text.replace("#", " nro ")
    text = re.sub(r"\b([ap])\.\s?m\.", r"\1m", text)
    text = _TITLES.sub(r"\1", text)
    text = re.sub(r"(?<=\d)[.:,](?=\d)", "_", text)
    text = _ALLOWED.sub(" , ", text)
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    text = text.replace("'", " ")

    def word(m: re.Match[str]) -> str:
        w = m.group()
        return _ABBREVIATIONS.get(w) or _repair(w)

    text = re.sub(r"[^\W\d_]+", word, text)
    text = re.sub(r"\b(you|we|they)\s+r\b", r"\1 are", text)
    return re.sub(r"[ \t]+", " ", text)


# ----------------------------------------------------------------------- statements

_SENTENCE = re.compile(r"[^.!?;\n]+[.!?;\n]*")


def _statements(text: str) -> list[str]:
    out = []
    for m in _SENTENCE.finditer(text):
        raw = m.group()
        body = raw.rstrip(".!?;\n ")
        term = raw[len(body) :]
        if "¿" in body:
            body = body[: body.index("¿")]
        elif "?" in term:
            clauses = re.split(r"[,:]", body)
            words = body.split()
            if len(clauses) < 2 or not words or words[0] in _QUESTION_START:
                continue
            body = ",".join(clauses[:-1])
        body = body.replace("¡", " ").replace('"', " ")
        body = _SAFE_PHRASES.sub(",", body)
        body = _CONDITION.sub(f" {_MASK} ", body)
        body = re.sub(r"\s+", " ", body).strip(" ,")
        if body:
            out.append(body)
    return out


# ----------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class _Rule:
    name: str
    pattern: re.Pattern[str]
    lang: str  # "es" | "en"
    kind: str  # how the verb group is read and checked (see _check / _check_es)


def _r(name: str, lang: str, kind: str, pattern: str) -> _Rule:
    return _Rule(name, re.compile(pattern), lang, kind)


_B = r"(?:^|(?<=[,:]))\s*"  # clause start
_ES_PAST_AUX = (
    r"fue|fueron|ha sido|han sido|habia sido|ha quedado|han quedado|hemos quedado|quedó|quedo|quedaron|"
    r"quedaste|quedamos|se ha|se han"
)
_ES_STATE_AUX = r"está|esta|están|estan|estás|estas|queda|quedan|quedás|quedas"
_ES_ADV = (
    r"(?:(?:ya|todo|correctamente|exitosamente|bien|tambien|oficialmente|debidamente|finalmente|recien)\s+)"
)
_EN_ADV = r"(?:(?:now|all|just|already|also|successfully|officially|both|finally|correctly)\s+)"

_RULES = [
    _r(
        "es_p1s",
        "es",
        "p1s",
        rf"\b(?P<pre>(?:(?:ya|yo|recien|tambien|ahora|hoy)\s+)*)(?P<cl>{_CLITIC})(?P<v>{_P1S})\b",
    ),
    _r(
        "es_p1p",
        "es",
        "p1p",
        rf"\b(?P<pre>(?:(?:ya|recien|hoy|ayer)\s+)*)(?P<cl>{_CLITIC})(?P<v>{_P1P})\b",
    ),
    _r("es_se_p3", "es", "p3", rf"\bse\s+(?:(?:te|le|les|me|nos)\s+)?(?P<v>{_P3S}|{_P3P})\b"),
    _r("es_clitic_p3p", "es", "p3", rf"\b(?:te|le|les)\s+(?:(?:lo|la|los|las)\s+)?(?P<v>{_P3P})\b"),
    _r(
        "es_perfect",
        "es",
        "perfect",
        rf"\b(?P<cl>{_CLITIC})(?:he|hemos|ha|han|habeis|habia|habiamos)\s+{_ES_ADV}?(?P<v>{_PART})\b",
    ),
    _r("es_passive", "es", "passive", rf"\b(?P<aux>{_ES_PAST_AUX})\s+{_ES_ADV}{{0,2}}(?P<v>{_PART})\b"),
    _r("es_state", "es", "state", rf"\b(?P<aux>{_ES_STATE_AUX})\s+{_ES_ADV}{{0,2}}(?P<v>{_PART})\b"),
    _r(
        "es_dejar",
        "es",
        "dejar",
        rf"\b{_CLITIC}(?P<aux>deje|dejé|dejamos|dejo)\s+{_ES_ADV}{{0,2}}(?P<v>{_PART})\b",
    ),
    _r(
        "es_tener",
        "es",
        "tener",
        rf"\b(?P<aux>tenes|tenés|tienes|tiene|tienen)\s+(?:(?:tu|su|el|la|un|una|tus|sus)\s+)?"
        rf"(?:\w+\s+)?(?P<v>{_PART})\b",
    ),
    _r(
        "es_acabar",
        "es",
        "acabar",
        rf"\b(?:(?:acabo|acabamos|acaba|acaban)\s+de|(?:he|hemos|ha)\s+procedido\s+a|(?:procedi|procedí|procedimos)\s+a|"
        rf"se\s+procedio\s+a|se\s+procedió\s+a|pude|pudimos|logre|logré|logramos)\s+{_CLITIC}(?P<v>{_INF})"
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
        rf"{_B}(?:{_ES_INTERJ}\s+){{0,2}}(?P<v>{_PART})(?=\s*$|\s*[,:!{_MASK}]|\s+\w)",
    ),
    _r(
        "es_head_noun",
        "es",
        "head_noun",
        rf"{_B}(?:{_ES_INTERJ}\s+){{0,2}}(?:(?:tu|su)\s+)?(?P<n>[a-z]+)"
        rf"(?:\s+(?:de|del|de la|con|para|a)\s+[^,:{_MASK}]{{0,30}}?)?\s+(?P<v>{_PART})\b",
    ),
    _r(
        "en_past",
        "en",
        "past",
        rf"\b(?P<subj>i|we)\s+(?:(?:have|had)\s+)?"
        rf"(?:(?:just|already|also|now|successfully|finally|quickly|personally|gone ahead and|went ahead and)\s+)*"
        rf"(?P<v>{_EN_PAST})\b",
    ),
    _r(
        "en_passive",
        "en",
        "passive",
        rf"\b(?P<aux>has been|have been|had been|was|were|got|is|are|am|is now|are now)\s+{_EN_ADV}{{0,2}}"
        rf"(?P<v>{_EN_PART})\b",
    ),
    _r(
        "en_head_part",
        "en",
        "head_part",
        rf"{_B}(?:{_ES_INTERJ}\s+){{0,2}}(?P<v>{_EN_PART})"
        rf"(?=\s*$|\s*[,:!{_MASK}]|\s+(?:for|to|on|at|with|you|it|your|the|that|this|them|successfully|and|as|in|per|up)\b)",
    ),
    _r(
        "en_head_noun",
        "en",
        "head_noun",
        rf"{_B}(?:{_ES_INTERJ}\s+){{0,2}}(?:(?:your|the)\s+)?(?P<n>[a-z]+)"
        rf"(?:\s+(?:of|for|on|at|with|to)\s+[^,:{_MASK}]{{0,30}}?)?\s+(?P<v>{_EN_PART})\b",
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
        rf"(?P<v>{_alt(list(_EN_BASE))})\b",
    ),
    _r(
        "en_called_off",
        "en",
        "phrase",
        r"\b(?:i|we)\s+(?:have\s+)?(?:just\s+|already\s+)?(?P<v>called off)\b",
    ),
]

_PHRASE_ACTIONS = {
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
_PRESENT_KINDS = frozenset({"p1p", "state", "tener", "performative", "listo", "head_part", "head_noun"})


# --------------------------------------------------------------------------- scanning


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+|\$", text)


def _clause_before(s: str, start: int) -> str:
    head = s[:start]
    cut = max(head.rfind(","), head.rfind(":"), head.rfind(_MASK))
    for sep in (" pero ", " but ", " aunque ", " sino "):
        cut = max(cut, head.rfind(sep))
    return head[cut + 1 :]


def _clause_after(s: str, end: int) -> str:
    tail = s[end:]
    m = re.search(rf"[,:{_MASK}]|\bpero\b|\bbut\b", tail)
    return tail[: m.start()] if m else tail


def _first_words(text: str, n: int) -> str:
    return " ".join(text.split()[:n])


def _noun_action(text: str, allowed: tuple[str, ...] | None, last: bool = False) -> str | None:
    words = _words(text)
    for w in reversed(words) if last else words:
        action = _NOUN_ACTION.get(w)
        if action and (allowed is None or action in allowed):
            return action
    return None


def _resolve(verb: _Verb, before: str, after: str, passive: bool) -> str | None:
    """The action a verb claims, or None when its object/noun does not fit."""
    if verb.action is None or verb.key in ("confirm", "registr"):
        if passive:
            action = _noun_action(before, verb.nouns, last=True) or _noun_action(after, verb.nouns)
        else:
            action = _noun_action(after, verb.nouns) or _noun_action(before, verb.nouns, last=True)
        if verb.action is None:
            return action
        if action == "paid":
            return "paid"
    if verb.list_context and re.search(rf"\b(?:{_LIST_ES})\b", _first_words(after, 6)):
        return "registered"
    return verb.action


def _needs_ok(verb: _Verb, after: str, clitic: str, lang: str = "es") -> bool:
    if verb.needs is None:
        return True
    if verb.pron_ok and re.search(r"\b(?:lo|la|los|las)\b", clitic):
        return True
    head = _first_words(after, 6)
    if lang == "en":  # English needs carry their own lead-in
        return re.match(rf"\s*(?:{verb.needs})", head) is not None
    return re.match(rf"\s*(?:\S+\s+){{0,3}}?(?:{verb.needs})", head) is not None


def _negated(before: str, matched: str) -> bool:
    window = _words(before)[-4:] + _words(matched)
    return any(w in _NEGATORS for w in window)


def _present_blocked(s: str, start: int, end: int, before: str) -> bool:
    if _MASK in s[:start] or _MASK in s[end:].split(",")[0]:
        return True
    clause = before + s[start:end] + _clause_after(s, end)
    return _HABITUAL.search(clause) is not None


def _licensed(lang: str, before: str, after: str) -> bool:
    """Is the subject of a passive/state the customer's thing (or absent)?"""
    if _GENERIC_SUBJECT.search(before):
        return False
    content = [
        w for w in _words(before) if not re.fullmatch(_ES_INTERJ, w) and w not in ("hola", "hi", "y", "and")
    ]
    if not content:
        return True
    if any(w in _CUSTOMER_NOUNS for w in content) or _POSSESSIVE.search(before):
        return True
    if lang == "en":
        return _EN_LICENCE_WORDS.search(before) is not None
    if _ES_LICENCE_WORDS.search(before) or re.search(r"\b(?:te|le|les)\b", before):
        return True
    head = _words(_first_words(after, 4))
    return any(w in _CUSTOMER_NOUNS for w in head) or bool(_POSSESSIVE.search(" ".join(head)))


def _available(before: str, after: str) -> bool:
    return bool(_AVAILABILITY_BEFORE.search(before) or _AVAILABILITY_AFTER.search(after))


def _check(rule: _Rule, m: re.Match[str], s: str) -> str | None:
    """The action of a candidate match, or None when the match is not a claim."""
    start, end = m.start("v") if rule.kind.startswith("head") else m.start(), m.end()
    if rule.kind == "head_noun":
        start = m.start("n")
    before = _clause_before(s, start)
    after = _clause_after(s, end)
    matched = s[start:end]
    if _negated(before, matched):
        return None
    if rule.kind in _PRESENT_KINDS and _present_blocked(s, start, end, before):
        return None
    v = m.group("v")
    groups = m.groupdict()
    clitic = (groups.get("cl") or "").strip()
    pre = (groups.get("pre") or "").strip()

    if rule.kind in ("phrase", "waitlist", "listo", "went_through", "shipped", "performative"):
        if rule.kind == "waitlist":
            return "registered"
        if rule.kind == "listo":
            return "confirmed"
        if rule.kind == "shipped":
            return "sent"
        if rule.kind == "performative":
            return "confirmed"
        if rule.kind == "went_through":
            noun = m.group("n")
            return "paid" if noun in _PAYMENT_NOUNS or noun == "it" else None
        return _PHRASE_ACTIONS[v]

    if rule.lang == "en":
        verb = _EN_TABLE.get(_EN_BASE.get(v, v)) or _EN_PASSIVE_ONLY.get(v)
        assert verb is not None
        if rule.kind in ("past", "able"):
            if v in _EN_PASSIVE_ONLY or not _needs_ok(verb, after, "", "en"):
                return None
            return _resolve(verb, before, after, passive=False)
        if rule.kind == "passive":
            aux = m.group("aux")
            if not before.strip() or not _licensed("en", before, after):
                return None
            if aux in ("is", "are", "am", "is now", "are now"):
                if _present_blocked(s, start, end, before):
                    return None
            if verb.action == "booked" and _available(before + " " + s[start : m.start("v")], after):
                return None
            return _resolve(verb, before + " " + s[start : m.start("v")], after, passive=True)
        if rule.kind == "head_part":
            if v in _EN_PASSIVE_ONLY:
                return None
            if verb.action is not None and not after.strip():
                return verb.action  # "Updated!", "Cancelled ✅"
            if not _needs_ok(verb, after, "", "en"):
                return None
            return _resolve(verb, "", after, passive=False)
        if rule.kind == "head_noun":
            noun = m.group("n")
            if noun not in _CUSTOMER_NOUNS or noun.endswith("s") and noun not in ("class", "address"):
                return None
            return _resolve(verb, noun, after, passive=True)
        return None

    verbs = _ES_FORMS.get(_es_category(rule.kind, v), {}).get(v, [])
    for verb in verbs:
        action = _check_es(rule, m, verb, v, before, after, clitic, pre, s, start, end)
        if action:
            return action
    return None


def _es_category(kind: str, v: str) -> str:
    if kind in ("p1s", "p1p", "acabar"):
        return {"p1s": "p1s", "p1p": "p1p", "acabar": "inf"}[kind]
    if kind == "p3":
        return "p3s" if v in _ES_FORMS["p3s"] else "p3p"
    return "part"


_SUBJUNCTIVE_TRIGGER = re.compile(
    r"\b(?:que|ojala|para|cuando|apenas|hasta|quiza|quizas|tal vez|quieres|queres|quiere|quieren)\s*$"
)


def _check_es(
    rule: _Rule,
    m: re.Match[str],
    verb: _Verb,
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
        # -ar/-ir "-amos/-imos" is present too: it needs "ya"/"recién", a possessive object, or an
        # object pronoun plus an object ("Te enviamos el link"; not "te confirmamos por mail").
        has_object = re.search(r"\b(?:lo|la|los|las)\b", clitic) is not None or (
            re.match(r"\s*(?:el|la|los|las|un|una|tu|tus|su|sus)\b", after) is not None
        )
        support = (
            bool(pre)
            or re.match(r"\s*(?:tu|tus|su|sus)\b", after) is not None
            or (bool(clitic) and has_object)
            or (verb.bare_ok and re.match(r"\s*(?:el|la)\s+\w+", after) is not None)
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
        if "usted" in _words(before):  # "Usted ya ha pagado": the customer's action
            return None
    elif kind in ("passive", "state", "dejar", "tener"):
        if not _licensed("es", before, after) and kind != "tener":
            aux = m.group("aux")
            if aux not in ("quedaste", "quedamos", "estás", "estas", "quedás", "quedas"):
                return None
        if kind == "dejar" and m.group("aux") == "dejo" and _present_blocked(s, start, end, before):
            return None
        if verb.action == "booked" and _available(before + " " + s[start : m.start("v")], after):
            return None
    elif kind == "head_part":
        if not verb.bare_headline and not after.strip():
            return None
        # "Confirmado el pago, te reservo": an absolute construction, not a headline.
        if re.match(r"\s*(?:el|la|los|las)\b", after) and re.search(r",\s*\w", s[end:]):
            return None
    elif kind == "head_noun":
        noun = m.group("n")
        if noun not in _CUSTOMER_NOUNS or noun.endswith("s") and noun not in ("datos",):
            return None
        return _resolve(verb, noun, after, passive=True)

    passive = kind in ("passive", "state", "dejar", "tener", "head_part")
    if kind in ("p1s", "p1p", "p3", "perfect", "acabar") and not _needs_ok(verb, after, clitic):
        return None
    return _resolve(verb, before, after, passive=passive)


def detect_action_claim(reply: str | None) -> ActionClaim | None:
    """The first completed-action claim in an agent's reply, or None."""
    if not reply or not reply.strip():
        return None
    for s in _statements(_normalize(reply)):
        candidates = [
            (m.start(), i, rule, m) for i, rule in enumerate(_RULES) for m in rule.pattern.finditer(s)
        ]
        for _, _, rule, m in sorted(candidates, key=lambda c: (c[0], c[1])):
            action = _check(rule, m, s)
            if action:
                return ActionClaim(action=action, matched=m.group().strip(" ,:"))
    return None
