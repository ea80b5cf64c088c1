"""Shared vocabulary: nouns that give or license an action, the verb record, interjections."""

from __future__ import annotations

import re
from dataclasses import dataclass

MASK = "¤"  # replaces a masked condition/time clause (see statements)

# Nouns that take an action for light verbs and overrides.
NOUN_ACTION: dict[str, str] = {}
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
        NOUN_ACTION[_w] = _action
PAYMENT_NOUNS = frozenset(w for w, a in NOUN_ACTION.items() if a == "paid")

# Words that make a passive/state subject the customer's thing.
CUSTOMER_NOUNS = frozenset(
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

# Interjections that may open a headline ("Listo, reservado") or precede a passive subject.
INTERJ = r"(?:listo|lista|perfecto|perfecta|genial|excelente|ok|okay|okey|dale|bien|bueno|buenisimo|hecho|ya|todo|y|entonces|joya|super|great|done|sure|all|and|also|just|now|perfect|awesome)"


@dataclass(frozen=True)
class Verb:
    """One action verb and what its active forms need to count as a claim."""

    key: str
    action: str | None  # None: the action comes from a noun (light verb)
    needs: str | None = None  # what must follow an active form (regex alternation)
    pron_ok: bool = False  # an object pronoun lo/la before the verb satisfies `needs`
    nouns: tuple[str, ...] | None = None  # light verbs: actions the noun may give
    bare_ok: bool = False  # 1sg "-í" form of an -ir verb fires without a pronoun
    irish: bool = False  # -ir verb: 1sg form equals the voseo imperative
    list_context: bool = False  # "anoté": registered when a list/course follows
    bare_headline: bool = True  # a lone participle headline fires ("Confirmado ✅"); not "Anotado!"


def alt(words: list[str]) -> str:
    """A regex alternation of the words, longest first."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
