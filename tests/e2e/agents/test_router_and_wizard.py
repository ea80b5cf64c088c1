"""The router and the booking wizard, end to end: scripted conversations through the channel webhook.

Everything runs for real (Temporal, the database, the worker); the model provider, the upstream channel and
the tenant's tool API are loopback fakes. Each customer message is sent only after the previous run ended,
so every message is answered by its own run, and the test reads what the customer received
(``channel.sends_to``), what the model was asked (``fakes[...].requests``) and what the tool got
(``tools.calls``), then the public API's view of runs and threads.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx

from tests.e2e.agents.support import (
    ToolServer,
    button_reply_envelope,
    deploy_agent,
    eventually,
    run_detail,
    runs,
    say,
    text_envelope,
)
from tests.fakes.scripting import FakeProvider, TextReply
from tests.fixtures.channel import USER_PHONE
from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture

PROVIDER = "anthropic"
INTENT_SECTION = "## Intención detectada"
RESERVED_TEXT = "Listo, tu reserva quedó registrada. ¡Gracias!"
CANCELLED_TEXT = "De acuerdo, dejamos la reserva sin hacer. ¿Te ayudo con algo más?"
TAKEN_HINT = "Ese turno ya fue tomado, elegí otro horario."

ROUTING: dict[str, Any] = {
    "intents": [
        {
            "name": "pedir_turno",
            "description": "el cliente quiere reservar un turno",
            "examples": ["quiero un turno", "necesito sacar turno para el martes"],
        },
        {
            "name": "consultar_precio",
            "description": "el cliente pregunta cuánto cuesta algo",
            "examples": ["cuánto sale la consulta", "precio de la limpieza"],
        },
    ]
}

SEDES = ["centro", "norte", "sur", "oeste", "palermo"]
RESERVA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "especialidad": {
            "type": "string",
            "title": "Especialidad",
            "enum": ["clinica", "pediatria", "dermatologia"],
            "enumNames": ["Clínica médica", "Pediatría", "Dermatología"],
        },
        "sede": {"type": "string", "title": "Sede", "enum": SEDES},
        "fecha": {"type": "string", "format": "date", "title": "Fecha"},
        "hora": {"type": "string", "format": "time", "title": "Hora"},
    },
    "required": ["especialidad", "sede", "fecha", "hora"],
}
ESPECIALIDAD_BUTTONS = [
    {"type": "reply", "reply": {"id": "clinica", "title": "Clínica médica"}},
    {"type": "reply", "reply": {"id": "pediatria", "title": "Pediatría"}},
    {"type": "reply", "reply": {"id": "dermatologia", "title": "Dermatología"}},
]
CONFIRM_BUTTONS = [
    {"type": "reply", "reply": {"id": "wizard_confirm", "title": "Confirmar"}},
    {"type": "reply", "reply": {"id": "wizard_cancel", "title": "Cancelar"}},
]
FECHA_QUESTION = "¿Cuál es tu fecha? (DD/MM/AAAA)"
HORA_QUESTION = "¿Cuál es tu hora? (HH:MM)"


def reserva_declaration(*, errors: dict[str, Any] | None = None) -> dict[str, Any]:
    """The reservation tool: POST /reservas with every wizard field in the body."""
    declaration: dict[str, Any] = {
        "description": "Reserva un turno",
        "input_schema": RESERVA_SCHEMA,
        "request": {
            "method": "POST",
            "url": "{{binding.base_url}}/reservas",
            "body": {
                "especialidad": "{{input.especialidad}}",
                "sede": "{{input.sede}}",
                "fecha": "{{input.fecha}}",
                "hora": "{{input.hora}}",
                "telefono": "{{context.contact_phone}}",
            },
            "timeout_ms": 5000,
        },
        "response": {"pick": "*"},
    }
    if errors is not None:
        declaration["errors"] = errors
    return declaration


def list_reply_envelope(reply_id: str, title: str) -> bytes:
    """A user's pick of a row of an interactive list."""
    envelope = json.loads(button_reply_envelope(reply_id, title))
    message = envelope["entry"][0]["changes"][0]["value"]["messages"][0]
    message["interactive"] = {"type": "list_reply", "list_reply": {"id": reply_id, "title": title}}
    return json.dumps(envelope).encode()


class Conversation:
    """Drives one customer conversation, message by message, each answered by its own run."""

    def __init__(self, client: httpx.AsyncClient, tenant: TenantFixture, channel: FakeChannel) -> None:
        self.client = client
        self.tenant = tenant
        self.channel = channel
        self.messages = 0

    def sends(self) -> list[dict[str, Any]]:
        return self.channel.sends_to(USER_PHONE)

    async def send(self, body: bytes, *, replies: int = 1) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Send one message; wait for its run to end and for ``replies`` new sends; the run (with steps)."""
        before = len(self.sends())
        self.messages += 1
        await say(self.client, body)

        async def ended() -> list[dict[str, Any]] | None:
            data = await runs(self.client, self.tenant)
            if len(data) >= self.messages and all(run["status"] != "running" for run in data):
                return data
            return None

        data = await eventually(ended)
        assert len(data) == self.messages, [run["status"] for run in data]
        detail = await run_detail(self.client, self.tenant, data[0]["id"])
        reply_steps = [step for step in detail["steps"] if step["kind"] == "reply"]
        assert len(reply_steps) == replies, detail["steps"]
        if replies:

            async def sent() -> bool:
                return len(self.sends()) >= before + replies

            await eventually(sent)
        new = self.sends()[before:]
        assert len(new) == replies, new
        return detail, new

    async def say_text(self, text: str, *, replies: int = 1) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        return await self.send(text_envelope(text), replies=replies)

    async def thread(self) -> dict[str, Any]:
        response = await self.client.get("/v1/agent-threads", headers=self.tenant.headers())
        assert response.status_code == 200, response.text
        [listed] = response.json()["data"]
        one = await self.client.get(f"/v1/agent-threads/{listed['id']}", headers=self.tenant.headers())
        assert one.status_code == 200, one.text
        return dict(one.json())


def _buttons(send: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    assert send["type"] == "interactive", send
    assert send["interactive"]["type"] == "button", send
    return send["interactive"]["body"]["text"], send["interactive"]["action"]["buttons"]


def _list(send: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    assert send["type"] == "interactive", send
    assert send["interactive"]["type"] == "list", send
    [section] = send["interactive"]["action"]["sections"]
    return send["interactive"]["body"]["text"], section["rows"]


def _text(send: dict[str, Any]) -> str:
    assert send["type"] == "text", send
    return str(send["text"]["body"])


def _model_steps(detail: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for step in detail["steps"] if step["kind"] == "model_call"]


def _wizard_steps(detail: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for step in detail["steps"] if step["kind"] == "wizard"]


async def _deploy_wizard(
    client: httpx.AsyncClient, tenant: TenantFixture, tools_url: str, **declaration: Any
) -> dict[str, Any]:
    return await deploy_agent(
        client,
        tenant,
        provider=PROVIDER,
        tool_base_url=tools_url,
        tools={"reservar": reserva_declaration(**declaration)},
        routing=ROUTING,
        params={"wizardEnabled": True, "wizardReserveToolSlug": "reservar"},
    )


async def _start_wizard(chat: Conversation, fake: FakeProvider) -> None:
    """First message: the router says pedir_turno and the wizard asks the especialidad (buttons)."""
    fake.script(TextReply("pedir_turno"))
    detail, [send] = await chat.say_text("Hola, quiero pedir un turno")
    assert detail["status"] == "completed", detail
    assert detail["intent"] == "pedir_turno"
    [router_call] = _model_steps(detail)
    assert router_call["name"] == "router"
    text, buttons = _buttons(send)
    assert text == "¿Cuál es tu especialidad?"
    assert buttons == ESPECIALIDAD_BUTTONS
    assert [step["name"] for step in _wizard_steps(detail)] == ["ask"]


async def _answer(chat: Conversation, body: bytes | str) -> dict[str, Any]:
    """One wizard answer: a completed run, no model call, exactly one question back; the question sent."""
    detail, [send] = await (chat.say_text(body) if isinstance(body, str) else chat.send(body))
    assert detail["status"] == "completed", detail
    assert _model_steps(detail) == [], detail["steps"]
    assert Decimal(detail["costUsd"]) == 0
    assert len(_wizard_steps(detail)) == 1
    return send


async def _fill_to_confirmation(chat: Conversation, *, hora: str = "10.30") -> dict[str, Any]:
    """Answer every field quickly (typed answers); the confirmation question sent."""
    await _answer(chat, "2")  # the second especialidad, by number
    await _answer(chat, "Norte")
    await _answer(chat, "15/03/2026")
    return await _answer(chat, hora)


# --------------------------------------------------------------------------- router


async def test_router_names_the_intent_then_the_loop_answers_with_it_in_context(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fake = fakes[PROVIDER]
    fake.script(TextReply("consultar_precio"), TextReply("La consulta general sale $10.000."))
    await deploy_agent(app_client, bound_tenant, provider=PROVIDER, tool_base_url=tools_url, routing=ROUTING)
    chat = Conversation(app_client, bound_tenant, channel)

    detail, [send] = await chat.say_text("¿cuánto sale la consulta?")

    assert _text(send) == "La consulta general sale $10.000."
    assert detail["status"] == "completed", detail
    assert detail["intent"] == "consultar_precio"
    assert len(fake.requests) == 2
    router_request, loop_request = (request.body for request in fake.requests)
    # The router: a classifier prompt listing the declared intents (with examples) and catch_all, no tools.
    assert "pedir_turno" in router_request["system"] and "consultar_precio" in router_request["system"]
    assert "cuánto sale la consulta" in router_request["system"]
    assert "catch_all" in router_request["system"]
    assert not router_request.get("tools")
    assert "¿cuánto sale la consulta?" in json.dumps(router_request["messages"], ensure_ascii=False)
    # The loop: the agent's prompt with the detected intent as its last section, and the tools.
    assert loop_request["system"].startswith("Sos el asistente de la clínica.")
    assert loop_request["system"].endswith(f"{INTENT_SECTION}\nconsultar_precio")
    assert INTENT_SECTION not in router_request["system"]
    # Both calls are recorded with their own cost; the router's step says what it answered.
    router_call, loop_call = _model_steps(detail)
    assert (router_call["name"], router_call["data"]["purpose"]) == ("router", "router")
    assert (loop_call["name"], loop_call["data"]["purpose"]) == ("loop", "loop")
    assert router_call["seq"] < loop_call["seq"]
    assert Decimal(router_call["costUsd"]) > 0 and Decimal(loop_call["costUsd"]) > 0
    assert Decimal(router_call["costUsd"]) + Decimal(loop_call["costUsd"]) == Decimal(detail["costUsd"])
    [routed] = [step for step in detail["steps"] if step["kind"] == "router"]
    assert routed["name"] == "consultar_precio" and routed["data"]["answer"] == "consultar_precio"
    thread = await chat.thread()
    assert [entry["role"] for entry in thread["messages"]] == ["user", "assistant"]
    assert thread["wizard_active"] is False


async def test_without_routing_there_is_no_router_call(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fake = fakes[PROVIDER]
    fake.script(TextReply("¡Hola! ¿En qué te ayudo?"))
    await deploy_agent(app_client, bound_tenant, provider=PROVIDER, tool_base_url=tools_url)
    chat = Conversation(app_client, bound_tenant, channel)

    detail, [send] = await chat.say_text("hola")

    assert _text(send) == "¡Hola! ¿En qué te ayudo?"
    assert detail["status"] == "completed" and detail["intent"] is None
    assert len(fake.requests) == 1
    [loop_call] = _model_steps(detail)
    assert loop_call["name"] == "loop"
    assert not [step for step in detail["steps"] if step["kind"] == "router"]
    assert INTENT_SECTION not in fake.requests[0].body["system"]


async def test_catch_all_escalates_by_default(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fake = fakes[PROVIDER]
    fake.script(TextReply("no estoy seguro"))
    await deploy_agent(app_client, bound_tenant, provider=PROVIDER, tool_base_url=tools_url, routing=ROUTING)
    chat = Conversation(app_client, bound_tenant, channel)

    detail, _ = await chat.say_text("¿el perro de mi vecino ladra mucho?", replies=0)

    assert detail["status"] == "escalated", detail
    assert detail["intent"] == "catch_all"
    assert "catch_all" in detail["errorMessage"]
    assert len(fake.requests) == 1  # the router only; the loop never ran
    [router_call] = _model_steps(detail)
    assert router_call["name"] == "router" and Decimal(detail["costUsd"]) > 0
    assert chat.sends() == []
    thread = await chat.thread()
    assert thread["muted"] is True and thread["muted_reason"] == "handoff"


async def test_catch_all_with_respond_goes_to_the_loop(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    fake = fakes[PROVIDER]
    fake.script(TextReply("catch_all"), TextReply("No sé de perros, pero te ayudo con turnos y precios."))
    await deploy_agent(
        app_client,
        bound_tenant,
        provider=PROVIDER,
        tool_base_url=tools_url,
        routing=ROUTING,
        params={"catchAllAction": "respond"},
    )
    chat = Conversation(app_client, bound_tenant, channel)

    detail, [send] = await chat.say_text("¿el perro de mi vecino ladra mucho?")

    assert _text(send) == "No sé de perros, pero te ayudo con turnos y precios."
    assert detail["status"] == "completed", detail
    assert detail["intent"] == "catch_all"
    assert len(fake.requests) == 2
    assert fake.requests[1].body["system"].endswith(f"{INTENT_SECTION}\ncatch_all")
    thread = await chat.thread()
    assert thread["muted"] is False


# --------------------------------------------------------------------------- wizard


async def test_wizard_books_one_question_per_message_without_the_model(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    fake = fakes[PROVIDER]
    tools.script("/reservas", (201, {"id": "R-1", "estado": "reservado"}))
    await _deploy_wizard(app_client, bound_tenant, tools_url)
    chat = Conversation(app_client, bound_tenant, channel)

    await _start_wizard(chat, fake)
    assert (await chat.thread())["wizard_active"] is True

    # A tap on a reply button answers the especialidad; the sede (5 options) comes as a list.
    text, rows = _list(await _answer(chat, button_reply_envelope("pediatria", "Pediatría")))
    assert text == "¿Cuál es tu sede?"
    assert rows == [{"id": sede, "title": sede} for sede in SEDES]

    # An option not in the list is asked again, with the reason first.
    text, rows = _list(await _answer(chat, "Recoleta"))
    assert text == "La respuesta debe ser una de: centro, norte, sur, oeste, palermo\n¿Cuál es tu sede?"
    assert [row["id"] for row in rows] == SEDES

    # A pick from the list answers it; the date is a text question.
    assert _text(await _answer(chat, list_reply_envelope("norte", "norte"))) == FECHA_QUESTION

    # A date that does not exist is asked again with the reason.
    assert _text(await _answer(chat, "31/02/2026")) == (
        f"Esa fecha no existe. Formato de fecha: DD/MM/AAAA\n{FECHA_QUESTION}"
    )
    assert _text(await _answer(chat, "15/03/2026")) == HORA_QUESTION
    assert (
        _text(await _answer(chat, "a la tarde"))
        == f"Formato de hora: HH:MM (por ejemplo 10:30)\n{HORA_QUESTION}"
    )

    # Every field answered: the summary with Confirmar / Cancelar.
    text, buttons = _buttons(await _answer(chat, "10.30"))
    assert text == (
        "¿Confirmás la reserva?\nEspecialidad: Pediatría\nSede: norte\nFecha: 15/03/2026\nHora: 10:30"
    )
    assert buttons == CONFIRM_BUTTONS
    assert tools.calls == []

    # Confirm: the tool gets exactly the coerced answers, and the customer the final confirmation.
    detail, [send] = await chat.send(button_reply_envelope("wizard_confirm", "Confirmar"))
    assert detail["status"] == "completed", detail
    assert _text(send) == RESERVED_TEXT
    [call] = tools.calls
    assert (call["method"], call["path"]) == ("POST", "/reservas")
    assert call["json"] == {
        "especialidad": "pediatria",
        "sede": "norte",
        "fecha": "2026-03-15",
        "hora": "10:30",
        "telefono": USER_PHONE,
    }
    [tool_step] = [step for step in detail["steps"] if step["kind"] == "tool_call"]
    assert (tool_step["name"], tool_step["status"]) == ("reservar", "ok")
    assert [step["name"] for step in _wizard_steps(detail)] == ["reserve"]

    # The router's call was the only model call of the whole conversation.
    assert len(fake.requests) == 1
    thread = await chat.thread()
    assert thread["wizard_active"] is False and thread["muted"] is False
    # Questions and answers are the thread's history: one user and one assistant message per run.
    assert [entry["role"] for entry in thread["messages"]] == ["user", "assistant"] * chat.messages
    assert thread["messages"][-1]["text"] == RESERVED_TEXT

    # One run per customer message, each answering exactly its own message, all completed.
    response = await app_client.get(
        "/v1/agent-runs", params={"thread_id": thread["id"], "per_page": 100}, headers=bound_tenant.headers()
    )
    listed = response.json()
    assert listed["total"] == chat.messages == 9
    assert {run["status"] for run in listed["data"]} == {"completed"}
    message_ids = [tuple(run["message_ids"]) for run in listed["data"]]
    assert all(len(ids) == 1 for ids in message_ids) and len(set(message_ids)) == chat.messages
    assert len(chat.sends()) == chat.messages


async def test_cancelar_mid_wizard_leaves_without_booking(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    fake = fakes[PROVIDER]
    await _deploy_wizard(app_client, bound_tenant, tools_url)
    chat = Conversation(app_client, bound_tenant, channel)
    await _start_wizard(chat, fake)
    await _answer(chat, "Clínica")

    send = await _answer(chat, "Cancelar")

    assert _text(send) == CANCELLED_TEXT
    assert tools.calls == []
    thread = await chat.thread()
    assert thread["wizard_active"] is False and thread["muted"] is False
    assert len(fake.requests) == 1

    # With the wizard gone, the next message is routed again.
    fake.script(TextReply("consultar_precio"), TextReply("La consulta sale $10.000."))
    detail, [reply] = await chat.say_text("¿y cuánto sale?")
    assert detail["intent"] == "consultar_precio" and _text(reply) == "La consulta sale $10.000."
    assert len(fake.requests) == 3
    assert tools.calls == []


async def test_business_error_shows_the_hint_and_asks_again(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    fake = fakes[PROVIDER]
    tools.script("/reservas", (409, {"error": "slot_taken", "detail": "internal"}), (201, {"id": "R-2"}))
    await _deploy_wizard(app_client, bound_tenant, tools_url, errors={"negocio": {"409": TAKEN_HINT}})
    chat = Conversation(app_client, bound_tenant, channel)
    await _start_wizard(chat, fake)
    _buttons(await _fill_to_confirmation(chat))

    # Confirmed, but the slot was taken: the hint opens the question for the hour, asked again.
    detail, [send] = await chat.send(button_reply_envelope("wizard_confirm", "Confirmar"))
    assert detail["status"] == "completed", detail
    assert _text(send) == f"{TAKEN_HINT}\n{HORA_QUESTION}"
    assert "internal" not in _text(send)
    [tool_step] = [step for step in detail["steps"] if step["kind"] == "tool_call"]
    assert (tool_step["status"], tool_step["data"]["status_code"]) == ("negocio", 409)
    thread = await chat.thread()
    assert thread["wizard_active"] is True and thread["muted"] is False

    # A new hour, confirmed again: booked.
    text, _ = _buttons(await _answer(chat, "11"))
    assert text.endswith("Hora: 11:00")
    detail, [send] = await chat.send(button_reply_envelope("wizard_confirm", "Confirmar"))
    assert detail["status"] == "completed", detail
    assert _text(send) == RESERVED_TEXT
    first, second = tools.calls
    assert first["json"]["hora"] == "10:30"
    assert second["json"] == {**first["json"], "hora": "11:00"}
    assert second["json"]["especialidad"] == "pediatria" and second["json"]["fecha"] == "2026-03-15"
    assert (await chat.thread())["wizard_active"] is False
    assert len(fake.requests) == 1


async def test_reservation_tool_disabled_mid_wizard_escalates(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    fake = fakes[PROVIDER]
    await _deploy_wizard(app_client, bound_tenant, tools_url)
    chat = Conversation(app_client, bound_tenant, channel)
    await _start_wizard(chat, fake)
    await _answer(chat, "Dermatología")

    disabled = await app_client.patch(
        "/v1/agent-tools/reservar", json={"enabled": False}, headers=bound_tenant.headers()
    )
    assert disabled.status_code == 200, disabled.text
    assert disabled.json()["enabled"] is False

    detail, _ = await chat.say_text("Centro", replies=0)

    assert detail["status"] == "escalated", detail
    assert "reservar" in detail["errorMessage"]
    assert len(chat.sends()) == 2  # the two questions; nothing for this turn
    assert tools.calls == []
    assert len(fake.requests) == 1
    thread = await chat.thread()
    assert thread["muted"] is True and thread["muted_reason"] == "handoff"


async def test_wizard_turned_off_mid_wizard_routes_again(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools: ToolServer,
    tools_url: str,
) -> None:
    fake = fakes[PROVIDER]
    binding = await _deploy_wizard(app_client, bound_tenant, tools_url)
    chat = Conversation(app_client, bound_tenant, channel)
    await _start_wizard(chat, fake)

    patched = await app_client.patch(
        f"/v1/agent-bindings/{binding['id']}", json={"params": {}}, headers=bound_tenant.headers()
    )
    assert patched.status_code == 200, patched.text
    fake.script(TextReply("consultar_precio"), TextReply("La consulta sale $10.000."))
    detail, [send] = await chat.say_text("¿cuánto sale la consulta?")

    assert detail["status"] == "completed", detail
    assert [step["name"] for step in _model_steps(detail)] == ["router", "loop"]
    assert detail["intent"] == "consultar_precio"
    assert _text(send) == "La consulta sale $10.000."
    assert fake.requests[-1].body["system"].endswith(f"{INTENT_SECTION}\nconsultar_precio")
    assert tools.calls == []


# --------------------------------------------------------------------------- binding validation


async def _post(client: httpx.AsyncClient, tenant: TenantFixture, path: str, body: dict[str, Any]) -> Any:
    response = await client.post(path, json=body, headers=tenant.headers())
    assert response.status_code == 201, response.text
    return response.json()


async def test_wizard_binding_needs_a_pedir_turno_intent(
    app_client: httpx.AsyncClient, tenant: TenantFixture, tools_url: str
) -> None:
    """CONTRACTS 7a: wizardEnabled without a pedir_turno intent in the version is a 422 on the binding."""
    await _post(
        app_client,
        tenant,
        "/v1/agent-tools",
        {
            "slug": "reservar",
            "name": "reservar",
            "description": "reservar",
            "declaration": reserva_declaration(),
        },
    )
    agent = await _post(
        app_client, tenant, "/v1/agents", {"name": "a", "provider": PROVIDER, "model": "claude-haiku-4-5"}
    )
    without_intent = {"intents": [intent for intent in ROUTING["intents"] if intent["name"] != "pedir_turno"]}
    params = {"wizardEnabled": True, "wizardReserveToolSlug": "reservar"}
    for routing in (without_intent, None):
        version_body: dict[str, Any] = {"system_prompt": "Sos el asistente.", "tools": ["reservar"]}
        if routing is not None:
            version_body["routing"] = routing
        version = await _post(app_client, tenant, f"/v1/agents/{agent['id']}/versions", version_body)
        response = await app_client.post(
            "/v1/agent-bindings",
            json={
                "name": "b",
                "agent_version_id": version["id"],
                "scope": "tenant",
                "base_url": tools_url,
                "params": params,
            },
            headers=tenant.headers(),
        )
        assert response.status_code == 422, (routing, response.status_code, response.text)
