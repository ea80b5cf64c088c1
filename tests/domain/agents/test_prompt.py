"""Prompt assembly (system prompt + reglas sections + intent) and the router's prompt and answer parsing."""

from __future__ import annotations

from typing import Any

import pytest

from switchboard.domain.agents.prompt import (
    CATCH_ALL,
    intent_names,
    parse_intent,
    render_value,
    router_prompt,
    system_prompt,
)

BASE = "Sos la recepcionista de la Clínica Sur."

SYSTEM_ROWS: list[tuple[str, str, dict[str, Any], str | None, str]] = [
    ("base only", BASE, {}, None, BASE),
    ("base is stripped", f"  {BASE}\n\n", {}, None, BASE),
    (
        "string section",
        BASE,
        {"Horarios": "Lunes a viernes de 9 a 18."},
        None,
        f"{BASE}\n\n## Horarios\nLunes a viernes de 9 a 18.",
    ),
    (
        "list becomes bullets",
        BASE,
        {"Obras sociales": ["OSDE", "Swiss Medical"]},
        None,
        f"{BASE}\n\n## Obras sociales\n- OSDE\n- Swiss Medical",
    ),
    (
        "multi-line and non-string list items",
        BASE,
        {"Notas": ["uno\ndos", 3, {"a": 1}]},
        None,
        f'{BASE}\n\n## Notas\n- uno\n  dos\n- 3\n- {{"a": 1}}',
    ),
    (
        "dict as indented JSON, non-ASCII kept",
        BASE,
        {"Precios": {"consulta": 100, "sesión": "5 €"}},
        None,
        f'{BASE}\n\n## Precios\n{{\n  "consulta": 100,\n  "sesión": "5 €"\n}}',
    ),
    ("number as JSON", BASE, {"Demora": 15}, None, f"{BASE}\n\n## Demora\n15"),
    ("bool as JSON", BASE, {"Urgencias": False}, None, f"{BASE}\n\n## Urgencias\nfalse"),
    ("null as JSON", BASE, {"Nada": None}, None, f"{BASE}\n\n## Nada\nnull"),
    (
        "keys keep their given order",
        BASE,
        {"Zeta": "z", "Alfa": "a"},
        None,
        f"{BASE}\n\n## Zeta\nz\n\n## Alfa\na",
    ),
    (
        "newline in a key stays in the heading",
        BASE,
        {"Tono\nde voz": "amable"},
        None,
        f"{BASE}\n\n## Tono de voz\namable",
    ),
    (
        "intent last",
        BASE,
        {"Tono": "amable"},
        "pedir_turno",
        f"{BASE}\n\n## Tono\namable\n\n## Intención detectada\npedir_turno",
    ),
    (
        "intent without reglas",
        BASE,
        {},
        "consultar_precio",
        f"{BASE}\n\n## Intención detectada\nconsultar_precio",
    ),
    ("blank intent is no intent", BASE, {}, "  ", BASE),
    ("empty base", "", {"Tono": "amable"}, None, "## Tono\namable"),
]


@pytest.mark.parametrize(("label", "base", "reglas", "intent", "expected"), SYSTEM_ROWS)
def test_system_prompt(
    label: str, base: str, reglas: dict[str, Any], intent: str | None, expected: str
) -> None:
    assert system_prompt(base, reglas, intent=intent) == expected, label


def test_render_value_tuple_is_a_list() -> None:
    assert render_value(("a", "b")) == "- a\n- b"


INTENTS: list[dict[str, Any]] = [
    {
        "name": "pedir_turno",
        "description": "Quiere reservar un turno.",
        "examples": ["quiero un turno", "¿tenés lugar el martes?"],
    },
    {"name": "consultar_precio", "description": "Pregunta cuánto cuesta algo.", "examples": []},
    {"name": "cancelar_turno"},
]


def test_intent_names_dedupes_skips_blanks_and_ends_with_catch_all() -> None:
    intents = [
        *INTENTS,
        {"name": "Pedir_Turno"},
        {"name": ""},
        {"description": "no name"},
        {"name": "catch_all"},
    ]
    assert intent_names(intents) == ["pedir_turno", "consultar_precio", "cancelar_turno", CATCH_ALL]


def test_router_prompt_lists_every_intent_and_catch_all() -> None:
    prompt = router_prompt(INTENTS)
    for fragment in (
        "- pedir_turno",
        "Description: Quiere reservar un turno.",
        '"quiero un turno"',
        '"¿tenés lugar el martes?"',
        "- consultar_precio",
        "- cancelar_turno",
        "- catch_all",
        "ONLY the intent name",
    ):
        assert fragment in prompt
    assert prompt.index("pedir_turno") < prompt.index("consultar_precio") < prompt.index("- catch_all")
    assert prompt.count("- catch_all") == 1


def test_router_prompt_without_intents_still_offers_catch_all() -> None:
    assert "- catch_all" in router_prompt([])


PARSE_ROWS: list[tuple[str | None, str]] = [
    (None, CATCH_ALL),
    ("", CATCH_ALL),
    ("   ", CATCH_ALL),
    ("pedir_turno", "pedir_turno"),
    ("PEDIR_TURNO", "pedir_turno"),
    ("  pedir_turno\n", "pedir_turno"),
    ('"pedir_turno"', "pedir_turno"),
    ("'consultar_precio'.", "consultar_precio"),
    ("`cancelar_turno`", "cancelar_turno"),
    ("**pedir_turno**", "pedir_turno"),
    ("pedir turno", "pedir_turno"),
    ("Pedir-Turno", "pedir_turno"),
    ("catch_all", CATCH_ALL),
    ('{"intent": "consultar_precio"}', "consultar_precio"),
    ('{"intent": "Pedir_Turno", "confidence": 0.9}', "pedir_turno"),
    ('```json\n{"intent": "cancelar_turno"}\n```', "cancelar_turno"),
    ('Respuesta: {"intent": "pedir_turno"}', "pedir_turno"),
    ('{"intent": "comprar_auto"}', CATCH_ALL),
    ('{"name": "consultar_precio"}', "consultar_precio"),
    ('"consultar_precio"', "consultar_precio"),
    ('"yo diría pedir_turno"', "pedir_turno"),
    ('{"intent": "pedir_turno o cancelar_turno"}', CATCH_ALL),
    ('{"intent": "comprar_auto", "note": "not pedir_turno"}', CATCH_ALL),
    ("The intent is pedir_turno.", "pedir_turno"),
    ("Intent: consultar_precio because they ask the price", "consultar_precio"),
    ("pedir_turno or cancelar_turno", CATCH_ALL),
    ("pedir_turno, not catch_all", CATCH_ALL),
    ("pedir_turno pedir_turno", "pedir_turno"),
    ("turno", CATCH_ALL),
    ("pedir_turnos", CATCH_ALL),
    ("I don't know", CATCH_ALL),
    ("comprar_auto", CATCH_ALL),
]


@pytest.mark.parametrize(("answer", "expected"), PARSE_ROWS)
def test_parse_intent(answer: str | None, expected: str) -> None:
    assert parse_intent(answer, INTENTS) == expected


def test_parse_intent_prefers_longest_name_when_one_contains_another() -> None:
    intents = [{"name": "turno"}, {"name": "pedir turno"}]
    assert parse_intent("I think: pedir turno", intents) == "pedir turno"
    assert parse_intent("I think: turno", intents) == "turno"


def test_parse_intent_with_no_declared_intents() -> None:
    assert parse_intent("pedir_turno", []) == CATCH_ALL
    assert parse_intent("catch_all", []) == CATCH_ALL
