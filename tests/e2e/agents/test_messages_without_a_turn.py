"""What a customer does that is not a message to answer starts no agent turn.

An interactive reply the channel delivered with errors[] (nothing was chosen), a reaction, an edit and a
deletion of an earlier message reach a bound agent's number through the signed channel webhook. None of
them may become something the agent answers: the thread's messages after a later text hold only the
texts and the agent's replies.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx

from tests.e2e.agents.support import deploy_agent, eventually, finished_runs, say, text_envelope
from tests.fakes.scripting import FakeProvider, TextReply
from tests.fixtures.channel import load
from tests.support.tenants import TenantFixture


def single(name: str, index: int = 0) -> bytes:
    """One message of a fixture's messages[], alone in its payload (as the channel posts them)."""
    payload = load(name)
    value = payload["entry"][0]["changes"][0]["value"]
    value["messages"] = [copy.deepcopy(value["messages"][index])]
    return json.dumps(payload).encode()


def change_of(kind: str, original_wamid: str, wamid: str) -> bytes:
    """An edit or revoke (pywa's fixture shapes) of a message the customer sent earlier."""
    name, index = {"edit": ("message_edited", 1), "revoke": ("message_revoked", 1)}[kind]
    payload = json.loads(single(name, index))
    message = payload["entry"][0]["changes"][0]["value"]["messages"][0]
    message["id"] = wamid
    message[kind]["original_message_id"] = original_wamid
    return json.dumps(payload).encode()


async def test_error_replies_reactions_edits_and_revokes_start_no_turn(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    tools_url: str,
) -> None:
    fakes["anthropic"].script(TextReply("¡Hola!"), TextReply("Listo."))
    await deploy_agent(app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url)
    await say(app_client, text_envelope("hola", wamid="wamid.noturn01"))
    await finished_runs(app_client, bound_tenant, count=1)

    for body in (
        single("interactive_error"),
        single("reaction"),
        change_of("edit", "wamid.noturn01", "wamid.noturn02"),
        change_of("revoke", "wamid.noturn01", "wamid.noturn03"),
    ):
        await say(app_client, body)
    await say(app_client, text_envelope("gracias", wamid="wamid.noturn04"))

    runs = await finished_runs(app_client, bound_tenant, count=2)
    assert len(runs) == 2, runs

    async def thread_messages() -> list[dict[str, Any]] | None:
        threads = (await app_client.get("/v1/agent-threads", headers=bound_tenant.headers())).json()["data"]
        messages = threads[0]["messages"]
        return list(messages) if len(messages) >= 4 else None

    messages = await eventually(thread_messages)
    assert [(m["role"], m["text"]) for m in messages] == [
        ("user", "hola"),
        ("assistant", "¡Hola!"),
        ("user", "gracias"),
        ("assistant", "Listo."),
    ], "only the texts reached the agent"
    assert len(fakes["anthropic"].requests) == 2
