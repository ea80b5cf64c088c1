"""The deterministic booking wizard: questions, parsing, validation, confirmation and payloads."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.agents.wizard import (
    WizardOption,
    WizardQuestion,
    WizardState,
    WizardStep,
    advance_wizard,
    retry_after_business_error,
    start_wizard,
    to_send_payload,
)

OBRAS_SOCIALES = [
    "osde",
    "swiss_medical",
    "galeno",
    "medife",
    "omint",
    "ioma",
    "pami",
    "osecac",
    "osdepym",
    "accord",
    "hospital_italiano",
    "particular",
]

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "nombre": {"type": "string", "description": "¿A nombre de quién es la reserva?", "minLength": 2},
        "sede": {
            "type": "string",
            "title": "Sede",
            "enum": ["norte", "sur", "palermo"],
            "enumNames": ["Norte", "Sur", "Centro Médico Palermo Soho"],
        },
        "especialidad": {
            "type": "string",
            "title": "Especialidad",
            "enum": [
                "clinica",
                "pediatria",
                "cardiologia",
                "dermatologia",
                "traumatologia",
                "ginecologia",
                "oftalmologia",
            ],
            "x-enumNames": [
                "Clínica médica",
                "Pediatría",
                "Cardiología",
                "Dermatología",
                "Traumatología y ortopedia infantil",
                "Ginecología",
                "Oftalmología",
            ],
        },
        "obra_social": {"type": "string", "enum": OBRAS_SOCIALES},
        "personas": {"type": "integer", "title": "Personas", "minimum": 1, "maximum": 10},
        "fecha": {"type": "string", "format": "date", "title": "Fecha"},
        "hora": {"type": "string", "format": "time", "title": "Hora"},
        "email": {"type": "string", "format": "email"},
    },
    # Deliberately not in declaration order: questions follow ``properties``.
    "required": ["hora", "nombre", "fecha", "sede", "personas", "especialidad", "obra_social"],
    "additionalProperties": False,
}

ASK_ORDER = ["nombre", "sede", "especialidad", "obra_social", "personas", "fecha", "hora"]

GOOD_ANSWERS: list[tuple[str | None, str | None]] = [
    ("  Ana Pérez ", None),
    (None, "sur"),
    ("pediatría", None),
    ("11", None),
    ("3", None),
    ("01/12/2026", None),
    ("10.30", None),
]

EXPECTED_ARGUMENTS = {
    "nombre": "Ana Pérez",
    "sede": "sur",
    "especialidad": "pediatria",
    "obra_social": "hospital_italiano",
    "personas": 3,
    "fecha": "2026-12-01",
    "hora": "10:30",
}


def persisted(state: WizardState | None) -> WizardState:
    """What the runtime does between turns: store the state as JSON and load it back."""
    assert state is not None
    restored = WizardState.model_validate_json(state.model_dump_json())
    assert restored == state
    return restored


def send(
    step: WizardStep, text: str | None = None, reply_id: str | None = None, schema: dict[str, Any] = SCHEMA
) -> WizardStep:
    # The whole step is JSON too (it crosses the activity boundary).
    assert WizardStep.model_validate_json(step.model_dump_json()) == step
    return advance_wizard(persisted(step.state), schema, text=text, reply_id=reply_id)


def answer_all(step: WizardStep, count: int = len(GOOD_ANSWERS)) -> WizardStep:
    for text, reply_id in GOOD_ANSWERS[:count]:
        step = send(step, text, reply_id)
    return step


def single(name: str) -> dict[str, Any]:
    return {"type": "object", "properties": {name: SCHEMA["properties"][name]}, "required": [name]}


# --------------------------------------------------------------------------- the scripted conversation

# (text, reply_id, action, pending field, error fragment)
SCRIPT: list[tuple[str | None, str | None, str, str | None, str | None]] = [
    ("A", None, "ask", "nombre", "al menos 2 caracteres"),
    ("  Ana Pérez ", None, "ask", "sede", None),
    ("oeste", None, "ask", "sede", "La respuesta debe ser una de: Norte, Sur, Centro Médico Palermo Soho"),
    (None, "sur", "ask", "especialidad", None),
    ("9", None, "ask", "especialidad", "La respuesta debe ser una de: Clínica médica"),
    ("PEDIATRIA", None, "ask", "obra_social", None),
    ("prepaga", None, "ask", "obra_social", "La respuesta debe ser una de las opciones"),
    ("11", None, "ask", "personas", None),
    ("once", None, "ask", "personas", "Tiene que ser un número entre 1 y 10"),
    ("11", None, "ask", "personas", "Tiene que ser un número entre 1 y 10"),
    ("3,5", None, "ask", "personas", "Tiene que ser un número entero entre 1 y 10"),
    ("3", None, "ask", "fecha", None),
    ("1/12", None, "ask", "fecha", "Falta el año. Formato de fecha: DD/MM/AAAA"),
    ("31/02/2026", None, "ask", "fecha", "Esa fecha no existe"),
    ("mañana", None, "ask", "fecha", "Formato de fecha: DD/MM/AAAA"),
    ("01/12/2026", None, "ask", "hora", None),
    ("25:00", None, "ask", "hora", "Formato de hora: HH:MM"),
    ("10.30", None, "confirm", None, None),
    ("quizás", None, "confirm", None, "Respondé Confirmar o Cancelar"),
    ("Dale!", None, "reserve", None, None),
]


def test_scripted_conversation_reaches_reserve_with_the_coerced_arguments() -> None:
    step = start_wizard("book_visit", SCHEMA)
    assert step.action == "ask" and step.state is not None
    assert step.state.pending_field == "nombre"
    asked = ["nombre"]
    for text, reply_id, action, pending, error in SCRIPT:
        previous = step
        step = send(step, text, reply_id)
        assert step.action == action, (text, step)
        if action == "reserve":
            break
        assert step.state is not None and step.question is not None
        assert step.state.pending_field == pending
        assert step.state.tool_slug == "book_visit"
        assert step.state.awaiting_confirmation is (action == "confirm")
        if error is None:
            assert step.error is None
            assert step.state.attempts == 0
        else:
            assert step.error is not None and error in step.error
            assert step.question.text.startswith(step.error)
            assert previous.state is not None
            assert step.state.attempts == previous.state.attempts + 1
        if pending is not None and pending != asked[-1]:
            asked.append(pending)
    assert asked == ASK_ORDER
    assert step.arguments == EXPECTED_ARGUMENTS
    assert list(step.arguments) == [name for name in SCHEMA["properties"] if name in EXPECTED_ARGUMENTS]
    assert step.state is not None and step.state.answers == EXPECTED_ARGUMENTS
    assert step.question is None and step.error is None


def test_confirmation_summary_lists_every_answer_with_titles() -> None:
    step = answer_all(start_wizard("book_visit", SCHEMA))
    assert step.action == "confirm" and step.question is not None
    assert step.question.kind == "buttons"
    assert [(o.id, o.title) for o in step.question.options] == [
        ("wizard_confirm", "Confirmar"),
        ("wizard_cancel", "Cancelar"),
    ]
    assert step.question.text == (
        "¿Confirmás la reserva?\n"
        "Nombre: Ana Pérez\n"
        "Sede: Sur\n"
        "Especialidad: Pediatría\n"
        "Obra social: hospital_italiano\n"
        "Personas: 3\n"
        "Fecha: 01/12/2026\n"
        "Hora: 10:30"
    )


@pytest.mark.parametrize(
    ("text", "reply_id", "action"),
    [
        (None, "wizard_confirm", "reserve"),
        ("Sí", None, "reserve"),
        ("si", None, "reserve"),
        ("CONFIRMAR", None, "reserve"),
        ("ok", None, "reserve"),
        ("yes", None, "reserve"),
        ("no", None, "cancelled"),
        ("No.", None, "cancelled"),
        ("cancelar", None, "cancelled"),
        (None, "wizard_cancel", "cancelled"),
        ("mejor otro día", None, "confirm"),
        (None, "sur", "confirm"),
        (None, None, "confirm"),
    ],
)
def test_confirmation_answers(text: str | None, reply_id: str | None, action: str) -> None:
    step = send(answer_all(start_wizard("book_visit", SCHEMA)), text, reply_id)
    assert step.action == action
    if action == "reserve":
        assert step.arguments == EXPECTED_ARGUMENTS
    elif action == "cancelled":
        assert step.state is None and step.question is None
    else:
        assert step.error == "Respondé Confirmar o Cancelar"
        assert step.state is not None and step.state.awaiting_confirmation and step.state.attempts == 1


# --------------------------------------------------------------------------- cancel at every stage


@pytest.mark.parametrize("answered", range(len(GOOD_ANSWERS) + 1))
@pytest.mark.parametrize(
    ("text", "reply_id"),
    [("cancelar", None), ("  CANCELÁR ", None), ("Cancel", None), ("salir.", None), (None, "wizard_cancel")],
)
def test_cancel_at_every_stage(answered: int, text: str | None, reply_id: str | None) -> None:
    step = answer_all(start_wizard("book_visit", SCHEMA), answered)
    assert step.action == ("confirm" if answered == len(GOOD_ANSWERS) else "ask")
    cancelled = send(step, text, reply_id)
    assert cancelled == WizardStep(action="cancelled", state=None)


def test_cancel_word_inside_a_sentence_is_an_answer() -> None:
    step = send(start_wizard("book_visit", SCHEMA), "quiero cancelar")
    assert step.action == "ask" and step.state is not None
    assert step.state.answers == {"nombre": "quiero cancelar"}


# --------------------------------------------------------------------------- per-field parsing

# (field, text, expected value, or None with an error fragment)
PARSE_CASES: list[tuple[str, str, Any, str | None]] = [
    ("nombre", " Juan ", "Juan", None),
    ("nombre", "J", None, "al menos 2 caracteres"),
    ("nombre", "   ", None, "mensaje de texto"),
    ("sede", "Norte", "norte", None),
    ("sede", "SUR", "sur", None),
    ("sede", "centro medico palermo soho", "palermo", None),
    ("sede", "Centro Médico Paler…", "palermo", None),
    ("sede", "palermo", "palermo", None),
    ("sede", "2", "sur", None),
    ("sede", "4", None, "La respuesta debe ser una de"),
    ("sede", "0", None, "La respuesta debe ser una de"),
    ("especialidad", "Traumatología y ortopedia infantil", "traumatologia", None),
    ("especialidad", "oftalmologia", "oftalmologia", None),
    ("especialidad", "7", "oftalmologia", None),
    ("obra_social", "Hospital_Italiano", "hospital_italiano", None),
    ("obra_social", "1", "osde", None),
    ("obra_social", "12", "particular", None),
    ("obra_social", "13", None, "una de las opciones"),
    ("personas", "10", 10, None),
    ("personas", " 1 ", 1, None),
    ("personas", "0", None, "Tiene que ser un número entre 1 y 10"),
    ("personas", "-2", None, "Tiene que ser un número entre 1 y 10"),
    ("personas", "2.5", None, "Tiene que ser un número entero entre 1 y 10"),
    ("fecha", "2026-12-01", "2026-12-01", None),
    ("fecha", "01/12/2026", "2026-12-01", None),
    ("fecha", "1/2/2027", "2027-02-01", None),
    ("fecha", "1-2-2027", "2027-02-01", None),
    ("fecha", "29.02.28", "2028-02-29", None),
    ("fecha", "29/02/2027", None, "Esa fecha no existe"),
    ("fecha", "1/12", None, "Falta el año"),
    ("fecha", "hoy", None, "Formato de fecha: DD/MM/AAAA"),
    ("fecha", "2026/12/01", None, "Formato de fecha: DD/MM/AAAA"),
    ("hora", "10:30", "10:30", None),
    ("hora", "10", "10:00", None),
    ("hora", "10hs", "10:00", None),
    ("hora", "10 hs.", "10:00", None),
    ("hora", "10.30", "10:30", None),
    ("hora", "9:05", "09:05", None),
    ("hora", "10h30", "10:30", None),
    ("hora", "3pm", "15:00", None),
    ("hora", "12 am", "00:00", None),
    ("hora", "10:30:00", "10:30", None),
    ("hora", "24:00", None, "Formato de hora: HH:MM"),
    ("hora", "10:75", None, "Formato de hora: HH:MM"),
    ("hora", "a la tarde", None, "Formato de hora: HH:MM"),
    ("email", "ana@example.com", "ana@example.com", None),
    ("email", "ana@example", None, "email válido"),
    ("email", "ana example.com", None, "email válido"),
]


@pytest.mark.parametrize(("name", "text", "expected", "error"), PARSE_CASES)
def test_answer_parsing(name: str, text: str, expected: Any, error: str | None) -> None:
    schema = single(name)
    step = start_wizard("t", schema)
    assert step.action == "ask" and step.state is not None and step.state.pending_field == name
    step = send(step, text, schema=schema)
    assert step.state is not None
    if error is None:
        assert step.action == "confirm", step.error
        assert step.state.answers == {name: expected}
        assert type(step.state.answers[name]) is type(expected)
    else:
        assert step.action == "ask" and step.state.pending_field == name
        assert step.error is not None and error in step.error
        assert step.state.answers == {}


NUMBER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "monto": {"type": "number", "exclusiveMinimum": 0, "maximum": 100.5},
        "acepta": {"type": "boolean", "title": "¿Aceptás los términos?"},
        "codigo": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "dni": {
            "type": "string",
            "pattern": "^[0-9]+$",
            "x-errorMessage": "Escribí solo los números del DNI",
        },
        "mitad": {"type": "number", "multipleOf": 0.5},
    },
    "required": ["monto", "acepta", "codigo", "dni", "mitad"],
}


@pytest.mark.parametrize(
    ("name", "text", "expected", "error"),
    [
        ("monto", "3,5", 3.5, None),
        ("monto", "3.5", 3.5, None),
        ("monto", "7", 7, None),
        ("monto", "0", None, "Tiene que ser un número mayor a 0 y menor o igual a 100,5"),
        ("monto", "tres", None, "Tiene que ser un número mayor a 0"),
        ("acepta", "Sí", True, None),
        ("acepta", "s", True, None),
        ("acepta", "YES", True, None),
        ("acepta", "no", False, None),
        ("acepta", "n", False, None),
        ("acepta", "quizás", None, "Respondé Sí o No"),
        ("codigo", "ABC", "ABC", None),
        ("codigo", "abc", None, "El formato de la respuesta no es válido"),
        ("dni", "30123456", "30123456", None),
        ("dni", "30.123.456", None, "Escribí solo los números del DNI"),
        ("mitad", "2,5", 2.5, None),
        ("mitad", "2,3", None, "Tiene que ser múltiplo de 0,5"),
    ],
)
def test_numbers_booleans_and_patterns(name: str, text: str, expected: Any, error: str | None) -> None:
    others = {k: v for k, v in {"monto": 1, "acepta": True, "codigo": "XYZ", "dni": "1", "mitad": 1}.items()}
    others.pop(name)
    step = start_wizard("t", NUMBER_SCHEMA, known=others)
    assert step.state is not None and step.state.pending_field == name
    step = send(step, text, schema=NUMBER_SCHEMA)
    assert step.state is not None
    if error is None:
        assert step.action == "confirm", step.error
        assert step.state.answers[name] == expected
        assert type(step.state.answers[name]) is type(expected)
    else:
        assert step.action == "ask"
        assert step.error is not None and error in step.error


# --------------------------------------------------------------------------- reply ids and question kinds


@pytest.mark.parametrize(
    ("name", "text", "reply_id", "expected"),
    [
        ("sede", None, "palermo", "palermo"),
        ("sede", "Centro Médico Palermo Soho", "palermo", "palermo"),
        ("sede", "Norte", "sur", "sur"),  # the reply id wins over the text
        ("sede", "Norte", "not_an_option", "norte"),  # unknown ids fall back to the text
        ("especialidad", None, "dermatologia", "dermatologia"),
        ("obra_social", None, "pami", "pami"),
    ],
)
def test_reply_ids(name: str, text: str | None, reply_id: str, expected: str) -> None:
    schema = single(name)
    step = send(start_wizard("t", schema), text, reply_id, schema=schema)
    assert step.action == "confirm" and step.state is not None
    assert step.state.answers == {name: expected}


def test_unknown_reply_id_without_text_is_asked_again() -> None:
    schema = single("sede")
    step = send(start_wizard("t", schema), None, "not_an_option", schema=schema)
    assert step.action == "ask" and step.error == "Necesito que respondas con un mensaje de texto"


def test_boolean_is_asked_with_si_no_buttons() -> None:
    step = start_wizard("t", NUMBER_SCHEMA, known={"monto": 1})
    assert step.question is not None
    assert step.question.text == "¿Aceptás los términos?"
    assert step.question.kind == "buttons"
    assert [(o.id, o.title) for o in step.question.options] == [("true", "Sí"), ("false", "No")]
    step = send(step, None, "false", schema=NUMBER_SCHEMA)
    assert step.state is not None and step.state.answers["acepta"] is False


def test_question_kinds_and_texts() -> None:
    known = dict(EXPECTED_ARGUMENTS)
    questions: dict[str, WizardQuestion] = {}
    for name in ASK_ORDER:
        partial = {k: v for k, v in known.items() if k != name}
        step = start_wizard("t", SCHEMA, known=partial)
        assert step.state is not None and step.state.pending_field == name
        assert step.question is not None
        questions[name] = step.question

    assert questions["nombre"] == WizardQuestion(text="¿A nombre de quién es la reserva?", kind="text")

    sede = questions["sede"]
    assert sede.kind == "buttons" and sede.text == "¿Cuál es tu sede?"
    assert [o.id for o in sede.options] == ["norte", "sur", "palermo"]
    assert [o.title for o in sede.options] == ["Norte", "Sur", "Centro Médico Paler…"]

    especialidad = questions["especialidad"]
    assert especialidad.kind == "list"
    assert len(especialidad.options) == 7
    assert especialidad.options[4] == WizardOption(id="traumatologia", title="Traumatología y ortoped…")
    assert all(len(o.title) <= 24 for o in especialidad.options)

    obra = questions["obra_social"]
    assert obra.kind == "text" and obra.options == []
    assert obra.text == "¿Cuál es tu obra social?\nOpciones: " + ", ".join(OBRAS_SOCIALES)

    assert questions["personas"].text == "¿Cuál es tu personas?"
    assert questions["fecha"].text == "¿Cuál es tu fecha? (DD/MM/AAAA)"
    assert questions["hora"].text == "¿Cuál es tu hora? (HH:MM)"


def test_long_titles_are_truncated_and_kept_unique() -> None:
    schema = {
        "type": "object",
        "properties": {
            "plan": {
                "enum": ["a", "b", "c", "d"],
                "enumNames": [
                    "Plan familiar completo con odontología",
                    "Plan familiar completo con óptica",
                    "Plan familiar completo con todo",
                    "Corto",
                ],
            },
            "turno": {"enum": ["m", "t"], "enumNames": ["Turno mañana temprano", "Turno mañana temprano"]},
        },
        "required": ["plan", "turno"],
    }
    step = start_wizard("t", schema)
    assert step.question is not None and step.question.kind == "list"
    titles = [o.title for o in step.question.options]
    assert titles == [
        "Plan familiar completo…",
        "Plan familiar compl… (2)",
        "Plan familiar compl… (3)",
        "Corto",
    ]
    assert all(len(t) <= 24 for t in titles)
    step = send(step, "Plan familiar completo con óptica", schema=schema)
    assert step.state is not None and step.state.answers == {"plan": "b"}
    assert step.question is not None and step.question.kind == "buttons"
    assert [o.title for o in step.question.options] == ["Turno mañana tempra…", "Turno mañana te… (2)"]
    assert all(len(o.title) <= 20 for o in step.question.options)
    assert [o.id for o in step.question.options] == ["m", "t"]


def test_non_string_enums_and_const_choices() -> None:
    schema = {
        "type": "object",
        "properties": {
            "duracion": {"type": "integer", "enum": [15, 30, 45, 60]},
            "modalidad": {
                "oneOf": [
                    {"const": "presencial", "title": "En el consultorio"},
                    {"const": "virtual", "title": "Videollamada"},
                ]
            },
        },
        "required": ["duracion", "modalidad"],
    }
    step = start_wizard("t", schema)
    assert step.question is not None and step.question.kind == "list"
    assert [(o.id, o.title) for o in step.question.options] == [
        ("15", "15"),
        ("30", "30"),
        ("45", "45"),
        ("60", "60"),
    ]
    assert send(step, "2", schema=schema).state.answers == {"duracion": 30}  # type: ignore[union-attr]
    step = send(step, "45", schema=schema)
    assert step.state is not None and step.state.answers == {"duracion": 45}
    assert step.question is not None and [o.title for o in step.question.options] == [
        "En el consultorio",
        "Videollamada",
    ]
    step = send(step, "videollamada", schema=schema)
    assert step.action == "confirm" and step.question is not None
    assert step.question.text.endswith("Modalidad: Videollamada")
    step = send(step, "si", schema=schema)
    assert step.arguments == {"duracion": 45, "modalidad": "virtual"}


def test_field_order_optional_fields_and_refs() -> None:
    schema = {
        "type": "object",
        "definitions": {"slot": {"type": "string", "format": "time", "title": "Horario"}},
        "properties": {
            "b": {"type": "string"},
            "opcional": {"type": "string"},
            "a": {"$ref": "#/definitions/slot"},
        },
        "required": ["extra_sin_schema", "a", "b"],
    }
    step = start_wizard("t", schema)
    asked = []
    for text in ["x", "9", "libre"]:
        assert step.state is not None
        asked.append(step.state.pending_field)
        step = send(step, text, schema=schema)
    assert asked == ["b", "a", "extra_sin_schema"]
    assert step.action == "confirm" and step.question is not None
    assert "Horario: 09:00" in step.question.text
    assert send(step, "ok", schema=schema).arguments == {"b": "x", "a": "09:00", "extra_sin_schema": "libre"}


# --------------------------------------------------------------------------- known prefill


def test_known_prefills_valid_answers_and_ignores_the_rest() -> None:
    known = {
        "nombre": "  Ana Pérez ",
        "sede": "Sur",  # a title
        "especialidad": "cardiologia",
        "obra_social": "2",  # numbers only count as answers typed by the customer
        "personas": 99,  # out of range
        "fecha": "1/12",  # no year
        "hora": "10hs",
        "email": "ana@example.com",  # optional: kept and sent
        "desconocido": "x",  # not in the schema
    }
    step = start_wizard("book_visit", SCHEMA, known=known)
    assert step.action == "ask" and step.state is not None
    assert step.state.pending_field == "obra_social"
    assert step.state.answers == {
        "nombre": "Ana Pérez",
        "sede": "sur",
        "especialidad": "cardiologia",
        "hora": "10:00",
        "email": "ana@example.com",
    }
    for text in ["osde", "2", "15/01/2027"]:
        step = send(step, text)
    assert step.action == "confirm" and step.question is not None
    assert "Email: ana@example.com" in step.question.text
    step = send(step, None, "wizard_confirm")
    assert step.arguments == {
        "nombre": "Ana Pérez",
        "sede": "sur",
        "especialidad": "cardiologia",
        "obra_social": "osde",
        "personas": 2,
        "fecha": "2027-01-15",
        "hora": "10:00",
        "email": "ana@example.com",
    }


def test_known_with_every_field_goes_straight_to_confirmation() -> None:
    step = start_wizard("book_visit", SCHEMA, known={**EXPECTED_ARGUMENTS, "personas": "3"})
    assert step.action == "confirm" and step.state is not None
    assert step.state.awaiting_confirmation and step.state.pending_field is None
    assert send(step, "sí").arguments == EXPECTED_ARGUMENTS


# --------------------------------------------------------------------------- business errors and revalidation


def test_business_error_asks_the_last_field_again_with_the_hint() -> None:
    reserve = send(answer_all(start_wizard("book_visit", SCHEMA)), "si")
    assert reserve.action == "reserve" and reserve.state is not None
    hint = "Ese horario ya está ocupado. Probá otro."
    step = retry_after_business_error(persisted(reserve.state), SCHEMA, hint=hint)
    assert step.action == "ask" and step.state is not None and step.question is not None
    assert step.state.pending_field == "hora"
    assert step.question.text == f"{hint}\n¿Cuál es tu hora? (HH:MM)"
    assert step.error == hint
    assert step.state.answers == {k: v for k, v in EXPECTED_ARGUMENTS.items() if k != "hora"}
    assert not step.state.awaiting_confirmation and step.state.attempts == 0
    stale = send(step, "Confirmar", "wizard_confirm")  # the old confirmation button, tapped again
    assert stale.action == "ask" and stale.error is None
    assert stale.state == step.state
    step = send(stale, "11")
    assert step.action == "confirm"
    step = send(step, None, "wizard_confirm")
    assert step.arguments == {**EXPECTED_ARGUMENTS, "hora": "11:00"}


def test_business_error_with_empty_hint_uses_a_default() -> None:
    reserve = send(answer_all(start_wizard("book_visit", SCHEMA)), "si")
    step = retry_after_business_error(persisted(reserve.state), SCHEMA, hint="  ")
    assert step.question is not None and step.question.text.startswith("No se pudo completar la reserva\n")


def test_confirmation_revalidates_the_whole_input() -> None:
    # A persisted state whose answers no longer fit (e.g. the tool's schema changed meanwhile).
    state = WizardState(
        tool_slug="book_visit",
        answers={**EXPECTED_ARGUMENTS, "personas": 40, "email": "no-es-email", "viejo": 1},
        awaiting_confirmation=True,
    )
    schema = {**SCHEMA, "properties": {**SCHEMA["properties"], "email": {"type": "string", "maxLength": 3}}}
    step = send(WizardStep(action="confirm", state=state), "confirmar", schema=schema)
    assert step.action == "ask" and step.state is not None
    assert step.state.pending_field == "personas"
    assert step.error == "Tiene que ser un número entre 1 y 10"
    assert step.state.answers == {k: v for k, v in EXPECTED_ARGUMENTS.items() if k != "personas"}
    step = send(step, "4", schema=schema)
    step = send(step, "ok", schema=schema)
    assert step.arguments == {**EXPECTED_ARGUMENTS, "personas": 4}


def test_confirmation_restarts_when_a_failure_has_no_field() -> None:
    schema = {**SCHEMA, "not": {"required": ["email"]}}
    step = start_wizard("t", schema, known={**EXPECTED_ARGUMENTS, "email": "ana@example.com"})
    assert step.action == "confirm"
    step = send(step, "si", schema=schema)
    assert step.action == "ask" and step.state is not None
    assert step.state.answers == {} and step.state.pending_field == "nombre"
    assert step.error is not None


def test_state_for_a_field_the_schema_dropped_moves_on() -> None:
    state = WizardState(tool_slug="t", answers={"nombre": "Ana"}, pending_field="borrado")
    step = send(WizardStep(action="ask", state=state), "lo que sea")
    assert step.action == "ask" and step.state is not None
    assert step.state.pending_field == "sede" and step.error is None
    fresh = send(WizardStep(action="ask", state=WizardState(tool_slug="t")), "hola")
    assert fresh.state is not None and fresh.state.pending_field == "nombre" and fresh.state.answers == {}


def test_attempts_count_wrong_answers_in_a_row_and_reset() -> None:
    step = start_wizard(
        "book_visit", SCHEMA, known={"nombre": "Ana", "sede": "sur", "especialidad": "clinica"}
    )
    for expected in (1, 2, 3):
        step = send(step, "nada")
        assert step.state is not None and step.state.attempts == expected
    step = send(step, "osde")
    assert step.state is not None and step.state.attempts == 0 and step.state.pending_field == "personas"


def test_wizard_is_deterministic() -> None:
    def run() -> list[dict[str, Any]]:
        step = start_wizard("book_visit", SCHEMA)
        dumps = [step.model_dump()]
        for text, reply_id, *_ in SCRIPT:
            step = send(step, text, reply_id)
            dumps.append(step.model_dump())
        return dumps

    assert run() == run()


# --------------------------------------------------------------------------- send payloads


def test_payload_text() -> None:
    payload = to_send_payload(WizardQuestion(text="¿Cuál es tu nombre?", kind="text"))
    assert payload == {"type": "text", "text": {"body": "¿Cuál es tu nombre?"}}


def test_payload_buttons_for_confirmation() -> None:
    step = answer_all(start_wizard("book_visit", SCHEMA))
    assert step.question is not None
    payload = to_send_payload(step.question)
    assert payload == {
        "type": "interactive",
        "interactive": {
            "type": "button",
            "body": {"text": step.question.text},
            "action": {
                "buttons": [
                    {"type": "reply", "reply": {"id": "wizard_confirm", "title": "Confirmar"}},
                    {"type": "reply", "reply": {"id": "wizard_cancel", "title": "Cancelar"}},
                ]
            },
        },
    }


def test_payload_list() -> None:
    step = start_wizard("t", single("especialidad"))
    assert step.question is not None
    payload = to_send_payload(step.question)
    assert payload["type"] == "interactive"
    interactive = payload["interactive"]
    assert interactive["type"] == "list"
    assert interactive["body"] == {"text": "¿Cuál es tu especialidad?"}
    action = interactive["action"]
    assert action["button"] == "Elegir"
    assert [s["title"] for s in action["sections"]] == ["Opciones"]
    rows = action["sections"][0]["rows"]
    assert [r["id"] for r in rows] == SCHEMA["properties"]["especialidad"]["enum"]
    assert rows[0] == {"id": "clinica", "title": "Clínica médica"}


def test_payload_limits() -> None:
    long_title = "Una opción con un título larguísimo"
    question = WizardQuestion(
        text="x" * 2000,
        kind="buttons",
        options=[WizardOption(id="a" * 300, title=long_title), WizardOption(id="b", title=long_title)],
    )
    payload = to_send_payload(question)
    body = payload["interactive"]["body"]["text"]
    assert len(body) == 1024 and body.endswith("…")
    buttons = payload["interactive"]["action"]["buttons"]
    titles = [b["reply"]["title"] for b in buttons]
    assert all(len(t) <= 20 for t in titles) and len(set(titles)) == 2
    assert all(len(b["reply"]["id"]) <= 200 for b in buttons)

    many = [WizardOption(id=str(i), title=f"{long_title} {i}") for i in range(5)]
    as_list = to_send_payload(WizardQuestion(text="elegí", kind="buttons", options=many))
    assert as_list["interactive"]["type"] == "list"
    rows = as_list["interactive"]["action"]["sections"][0]["rows"]
    assert len(rows) == 5 and all(len(r["title"]) <= 24 for r in rows)
    assert len({r["title"] for r in rows}) == 5

    too_many = [WizardOption(id=str(i), title=f"op{i}") for i in range(11)]
    as_text = to_send_payload(WizardQuestion(text="elegí", kind="list", options=too_many))
    assert as_text["type"] == "text"
    assert as_text["text"]["body"].startswith("elegí\nOpciones: op0, op1")


@pytest.mark.parametrize("name", ASK_ORDER)
def test_every_question_payload_respects_the_limits(name: str) -> None:
    step = start_wizard("t", single(name))
    assert step.question is not None
    payload = to_send_payload(step.question)
    if payload["type"] == "text":
        assert len(payload["text"]["body"]) <= 1024
        return
    interactive = payload["interactive"]
    assert len(interactive["body"]["text"]) <= 1024
    if interactive["type"] == "button":
        buttons = interactive["action"]["buttons"]
        assert 1 <= len(buttons) <= 3
        assert all(len(b["reply"]["title"]) <= 20 and len(b["reply"]["id"]) <= 200 for b in buttons)
    else:
        action = interactive["action"]
        assert len(action["button"]) <= 20
        rows = [r for s in action["sections"] for r in s["rows"]]
        assert 1 <= len(rows) <= 10
        assert all(len(s["title"]) <= 24 for s in action["sections"])
        assert all(len(r["title"]) <= 24 and len(r["id"]) <= 200 for r in rows)
