"""The output-safety claim detector: replies that state a completed action."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from switchboard.domain.agents import claims as claims_module
from switchboard.domain.agents.claims import ACTIONS, ActionClaim, detect_action_claim
from tests.domain.agents.claims_corpus import (
    BATCH_2_CLAIMS,
    BATCH_2_NOT_CLAIMS,
    CLAIMS,
    HELD_OUT_CLAIMS,
    HELD_OUT_NOT_CLAIMS,
    NOT_CLAIMS,
    NOT_CLAIMS_BY_KIND,
    TRICKY_KINDS,
)

# ------------------------------------------------------------------ per action

BY_ACTION: dict[str, list[str]] = {
    "booked": [
        "Listo, tu turno quedó reservado para el martes",
        "Ya te agendé",
        "Te reservé el turno",
        "quedó agendado",
        "Le he reservado una mesa para el sábado.",
        "Your appointment is booked",
        "I've put you down for Thursday at 5:30.",
        "Booked you for Friday at 3pm ✅",
    ],
    "cancelled": [
        "He cancelado tu cita",
        "Cancelé tu turno",
        "Se canceló tu turno del jueves.",
        "Te di de baja la suscripción.",
        "I've cancelled your booking",
        "Your order was cancelled.",
    ],
    "changed": [
        "Tu turno fue reprogramado",
        "Ya modifiqué la reserva",
        "Moví tu turno al jueves.",
        "Done! I rescheduled it",
        "Your appointment has been moved to 2pm.",
    ],
    "paid": [
        "El pago fue procesado",
        "Ya se acreditó la seña.",
        "Recibimos tu transferencia.",
        "Payment received",
        "I've refunded the deposit.",
        "Your card was charged $60.",
    ],
    "sent": [
        "Ya te envié el comprobante",
        "Te mandé el link por mail",
        "I have sent you the invoice",
        "Your order has shipped.",
        "Se envió el enlace a tu correo.",
    ],
    "registered": [
        "Quedaste registrado",
        "Te inscribí",
        "Te anoté en la lista de espera.",
        "I've signed you up for the yoga class.",
        "You've been added to the waitlist.",
    ],
    "confirmed": [
        "Su cita ha sido confirmada",
        "Tu turno está confirmado",
        "queda confirmado",
        "You're all set for Monday at 10",
        "Confirmed for 3pm",
        "Confirmado ✅",
        "Te confirmo tu turno para el lunes.",
    ],
}


@pytest.mark.parametrize(
    ("reply", "action"),
    [(reply, action) for action, replies in BY_ACTION.items() for reply in replies],
)
def test_a_completed_action_is_a_claim_with_its_action(reply: str, action: str) -> None:
    claim = detect_action_claim(reply)
    assert claim is not None, reply
    assert claim.action == action, (reply, claim)
    assert claim.matched


def test_every_action_has_examples() -> None:
    assert set(BY_ACTION) == set(ACTIONS)


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("LISTO, TU TURNO QUEDO RESERVADO", "booked"),  # caps, no accents
        ("ya te reserve el turno para mañana", "booked"),  # missing accent
        ("Resevé tu cita para el lunes", "booked"),  # typo
        ("Canselé tu turno del martes", "cancelled"),  # seseo typo
        ("I recieved your payment, thanks!", "paid"),  # typo
        ("u r booked for tmrw 10am", "booked"),  # abbreviations
        ("Tu turno quedo confirmao 👍", "confirmed"),  # colloquial -ao, emoji
        ("Ya t reservé el turno", "booked"),  # "t" for "te"
        ("Your appointment's been confirmed.", "confirmed"),  # contraction
    ],
)
def test_spelling_noise_does_not_hide_a_claim(reply: str, action: str) -> None:
    claim = detect_action_claim(reply)
    assert claim is not None and claim.action == action, (reply, claim)


def test_a_claim_anywhere_in_a_long_reply_counts_and_the_first_one_is_reported() -> None:
    reply = (
        "¡Hola Ana! Gracias por escribirnos. Tenemos turnos el martes y el jueves. "
        "¿Te sirve alguno?\nListo, cancelé el turno del lunes. Y ya te reservé el jueves a las 10."
    )
    claim = detect_action_claim(reply)
    assert claim is not None and claim.action == "cancelled", claim


def test_a_statement_before_a_question_in_the_same_sentence_is_still_a_claim() -> None:
    claim = detect_action_claim("Te envié un mensaje con la dirección, ¿te llegó?")
    assert claim is not None and claim.action == "sent"


# ------------------------------------------------------------- per negative kind

NEGATIVE_EXAMPLES: dict[str, list[str]] = {
    "offer": [
        "¿Querés que te reserve un turno?",
        "Puedo cancelarlo si querés",
        "Would you like me to book it?",
        "queres q te lo reserve?",
    ],
    "future": [
        "Te voy a reservar el turno mañana.",
        "Una vez que confirmes, lo reservo",
        "I will send you the link once the payment is confirmed.",
        "Your appointment is confirmed once you pay the deposit.",
    ],
    "instruction": [
        "Para cancelar, escribí CANCELAR",
        "Confirme su asistencia respondiendo SI.",
        "To cancel, reply CANCEL.",
    ],
    "customer_action": [
        "Veo que ya pagaste",
        "Ya te registraste con ese mail.",
        "I see you've already paid for this session.",
    ],
    "information": [
        "Los turnos se confirman por mail 24 h antes",
        "We send reminders the day before",
        "Refunds are processed within 5-7 business days.",
        "Te confirmo que abrimos a las 9.",
        "El estacionamiento está reservado para clientes.",
    ],
    "availability": [
        "Ese horario ya está reservado, ¿te sirve a las 11?",
        "El sábado ya está todo reservado.",
        "That slot is already booked, but 11am is free.",
        "Sorry, we're fully booked on Saturday.",
    ],
    "negative": [
        "No pude reservar el turno",
        "Todavía no está confirmado",
        "I couldn't cancel it",
        "Your card has not been charged.",
        "Nothing was cancelled.",
    ],
    "confirmation_request": [
        "¿Confirmás el martes a las 10?",
        "Please confirm the time",
        "Can you confirm your email address?",
    ],
    "smalltalk": [
        "Hola! ¿En qué te puedo ayudar?",
        "El corte cuesta $8.000.",
        "Atendemos de lunes a viernes de 9 a 19 hs.",
        "Tenemos disponibles: martes 10:00, 11:30 y jueves 16:00.",
        "Listo, ¿en qué más te puedo ayudar?",
    ],
}


@pytest.mark.parametrize(
    ("kind", "reply"),
    [(kind, reply) for kind, replies in NEGATIVE_EXAMPLES.items() for reply in replies],
)
def test_a_reply_that_claims_nothing_is_not_a_claim(kind: str, reply: str) -> None:
    assert detect_action_claim(reply) is None, (kind, reply)


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        # The judgement calls added with the second batch (see the detector's docstring).
        ("Tu paquete ya está en camino 🚚", "sent"),
        ("Your order is on its way!", "sent"),
        ("Se cancelou tu turno del lunes", "cancelled"),
        ("Tu cancelación quedó registrada.", "cancelled"),
        ("We have proceeded with the refund.", "paid"),
        ("Te anotamos en la lista de espera.", "registered"),
        ("La cuota de marzo ya está paga.", "paid"),
        ("Solicitud de cancelación procesada ✅", "cancelled"),
        ("Tu lugar quedó guardado para el viernes.", "booked"),
        ("Tu pedido salió perfecto", None),
        ("Si tu pedido ya salió, no se puede cancelar.", None),
        ("Solicitud de reembolso recibida, la revisamos en 48 h.", None),
        ("Tu tarjeta quedó bloqueada por seguridad.", None),
        ("Your card was removed from your account.", None),
        ("Guardado!", None),
        ("Marcado como leído.", None),
        ("Reservado para socios los fines de semana.", None),
        ("Tomamos reservas para el sábado hasta las 20.", None),
        ("Enviamos del lunes al viernes.", None),
        ("Te confirmé que abrimos a las 9.", None),
        ("Lavado y secado: $8.000", None),
    ],
)
def test_second_batch_judgement_calls(reply: str, action: str | None) -> None:
    claim = detect_action_claim(reply)
    assert (claim.action if claim else None) == action, (reply, claim)


@pytest.mark.parametrize("reply", [None, "", "   ", "\n"])
def test_no_reply_is_no_claim(reply: str | None) -> None:
    assert detect_action_claim(reply) is None


# ----------------------------------------------------------------------- corpus


def _recall(claims: list[tuple[str, str]]) -> tuple[float, list[str]]:
    misses = []
    for reply, action in claims:
        claim = detect_action_claim(reply)
        if claim is None or claim.action != action:
            misses.append(f"missed {action}: {reply!r} -> {claim}")
    return 1 - len(misses) / len(claims), misses


def _false_positive_rate(not_claims: list[str]) -> tuple[float, list[str]]:
    false_positives = []
    for reply in not_claims:
        claim = detect_action_claim(reply)
        if claim is not None:
            false_positives.append(f"false positive: {reply!r} -> {claim}")
    return len(false_positives) / len(not_claims), false_positives


def _score(claims: list[tuple[str, str]], not_claims: list[str]) -> tuple[float, float, list[str]]:
    recall, misses = _recall(claims)
    fpr, false_positives = _false_positive_rate(not_claims)
    return recall, fpr, misses + false_positives


# History, not thresholds: each fresh batch scored by the detector as it was before being tuned on the
# batch, and after. Recall counts a claim detected with the wrong action as a miss.
CORPUS_HISTORY: list[dict[str, object]] = [
    {
        "batch": "BATCH_2: salon/shop/pharmacy/vet/gym agents, Portuguese-influenced Spanish, one-word "
        "replies, bullet lists, claims inside summaries, English mixed with Spanish, formal Spanish",
        "size": {"claims": 60, "not_claims": 56},
        "before": {
            "batch": {"recall": 0.733, "fpr": 0.018},  # 16 misses, 1 false positive
            "main": {"recall": 1.000, "fpr": 0.000},  # 216 claims, 222 not claims (batch not merged)
            "held_out": {"recall": 0.974, "fpr": 0.000},
        },
        "after": {
            "batch": {"recall": 0.983, "fpr": 0.000},  # left: "Cambiamos el talle de la remera a M, ..."
            "main": {"recall": 0.996, "fpr": 0.000},  # 276 claims, 278 not claims (batch merged)
            "held_out": {"recall": 0.974, "fpr": 0.000},
        },
    },
]


def test_corpus_shape() -> None:
    assert len(CLAIMS) >= 150
    assert len(NOT_CLAIMS) >= 150
    assert sum(len(NOT_CLAIMS_BY_KIND[kind]) for kind in TRICKY_KINDS) >= 60
    assert len(HELD_OUT_CLAIMS) >= 30 and len(HELD_OUT_NOT_CLAIMS) >= 30
    assert {action for _, action in CLAIMS} == set(ACTIONS)
    assert {action for _, action in HELD_OUT_CLAIMS} == set(ACTIONS)
    replies = [reply for reply, _ in CLAIMS] + NOT_CLAIMS
    assert len(replies) == len(set(replies))
    held_out = {reply for reply, _ in HELD_OUT_CLAIMS} | set(HELD_OUT_NOT_CLAIMS)
    assert not held_out & set(replies)


def test_main_corpus_recall_and_false_positive_rate() -> None:
    recall, fpr, errors = _score(CLAIMS, NOT_CLAIMS)
    report = f"main corpus: recall={recall:.3f} ({len(CLAIMS)} claims), FPR={fpr:.3f} ({len(NOT_CLAIMS)} not claims)"
    print(report)
    print("\n".join(errors))
    assert recall >= 0.97 and fpr <= 0.03, report + "\n" + "\n".join(errors)


def test_held_out_corpus_recall_and_false_positive_rate() -> None:
    recall, fpr, errors = _score(HELD_OUT_CLAIMS, HELD_OUT_NOT_CLAIMS)
    report = (
        f"held-out corpus: recall={recall:.3f} ({len(HELD_OUT_CLAIMS)} claims), "
        f"FPR={fpr:.3f} ({len(HELD_OUT_NOT_CLAIMS)} not claims)"
    )
    print(report)
    print("\n".join(errors))
    assert recall >= 0.9 and fpr <= 0.07, report + "\n" + "\n".join(errors)


def test_second_batch_keeps_its_score_after_tuning() -> None:
    assert {reply for reply, _ in BATCH_2_CLAIMS} <= {reply for reply, _ in CLAIMS}
    assert {reply for reply, _ in BATCH_2_NOT_CLAIMS} <= set(NOT_CLAIMS)
    assert {kind for _, kind in BATCH_2_NOT_CLAIMS} <= set(NOT_CLAIMS_BY_KIND)
    recall, fpr, errors = _score(BATCH_2_CLAIMS, [reply for reply, _ in BATCH_2_NOT_CLAIMS])
    history = CORPUS_HISTORY[0]
    print(f"second batch: before {history['before']}, after {history['after']}")
    print(
        f"second batch now: recall={recall:.3f} ({len(BATCH_2_CLAIMS)}), FPR={fpr:.3f} ({len(BATCH_2_NOT_CLAIMS)})"
    )
    print("\n".join(errors))
    assert recall >= 0.98 and fpr == 0, "\n".join(errors)


@pytest.mark.parametrize("action", ACTIONS)
def test_main_corpus_recall_per_action(action: str) -> None:
    subset = [(reply, a) for reply, a in CLAIMS if a == action]
    recall, errors = _recall(subset)
    print(f"{action}: recall={recall:.3f} ({len(subset)})")
    assert recall >= 0.9, "\n".join(errors)


@pytest.mark.parametrize("kind", list(NOT_CLAIMS_BY_KIND))
def test_main_corpus_false_positive_rate_per_kind(kind: str) -> None:
    replies = NOT_CLAIMS_BY_KIND[kind]
    fpr, errors = _false_positive_rate(replies)
    print(f"{kind}: FPR={fpr:.3f} ({len(replies)})")
    assert fpr <= 0.1, "\n".join(errors)


# ------------------------------------------------------------------------ shape


def test_claim_is_frozen_and_names_a_known_action() -> None:
    claim = detect_action_claim("Ya te reservé el turno")
    assert isinstance(claim, ActionClaim)
    assert claim.action in ACTIONS
    with pytest.raises(dataclasses.FrozenInstanceError):
        claim.action = "paid"  # type: ignore[misc]


def test_the_detector_imports_only_the_standard_library() -> None:
    package = Path(claims_module.__file__).parent
    imported = set()
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add("." * node.level + (node.module or ""))
    own = {name for name in imported if name.startswith("switchboard.domain.agents.claims.")}
    assert imported - own <= {"__future__", "re", "unicodedata", "dataclasses"}, imported
    assert {name.rsplit(".", 1)[1] for name in own} <= {path.stem for path in package.glob("*.py")}, own
