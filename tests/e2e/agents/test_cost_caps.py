"""The cost circuit breaker end to end: a thread trips near its cap, not at an estimate of it.

Every call is billed by the fake provider's usage figures (claude-haiku-4-5: 1 USD in, 5 USD out per
million tokens), and the breaker's estimate for each call is recorded on its step beside them.
"""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from typing import Any

import httpx

from tests.conftest import ADMIN_KEY
from tests.e2e.agents.support import deploy_agent, eventually, finished_runs, run_detail, say, text_envelope
from tests.fakes.scripting import FakeProvider, TextReply
from tests.support.fake_channel import FakeChannel
from tests.support.tenants import TenantFixture

ADMIN = {"X-Admin-Key": ADMIN_KEY}
OTHER_PHONE = "16505559876"
OTHER_BSUID = "US.66666666666666666666"
# About 3,000 characters of prose: the breaker estimates ~1,000 prompt tokens uncalibrated.
SYSTEM_PROMPT = (
    "Sos el asistente de la Clínica San Martín. Atendés por WhatsApp a pacientes que quieren pedir, "
    "cambiar o cancelar turnos. Respondé siempre en español, con frases cortas y amables. Nunca des "
    "diagnósticos ni recomendaciones de medicamentos. "
) * 12
# Each call: 850 prompt tokens (0.00085 USD) and 150 output tokens (0.00075 USD), 0.0016 USD in all.
USAGE = {"input_tokens": 850, "output_tokens": 150}
CALL_USD = Decimal("0.0016")


async def _cap(client: httpx.AsyncClient, tenant: TenantFixture, **caps: str) -> None:
    patched = await client.patch(f"/v1/admin/tenants/{tenant.id}", json=caps, headers=ADMIN)
    assert patched.status_code == 200, patched.text


async def _threads(client: httpx.AsyncClient, tenant: TenantFixture) -> list[dict[str, Any]]:
    return list((await client.get("/v1/agent-threads", headers=tenant.headers())).json()["data"])


async def _turn(client: httpx.AsyncClient, tenant: TenantFixture, text: str, *, count: int) -> dict[str, Any]:
    """Say ``text`` and wait for the ``count``-th run to end; that run."""
    await say(client, text_envelope(text))
    return (await finished_runs(client, tenant, count=count))[0]


def _other_customer(text: str) -> bytes:
    """A text from a second customer (their own phone and BSUID: a conversation and thread of its own)."""
    envelope = json.loads(text_envelope(text, from_phone=OTHER_PHONE))
    contact = envelope["entry"][0]["changes"][0]["value"]["contacts"][0]
    contact["user_id"] = OTHER_BSUID
    contact.pop("parent_user_id", None)
    return json.dumps(envelope).encode()


def _hold_next_call(fake: FakeProvider) -> asyncio.Event:
    """The fake's next call is received (and recorded) but answered only once the event is set."""
    gate = asyncio.Event()
    receive = fake.receive

    async def held(request: Any) -> Any:
        answer = await receive(request)
        fake.receive = receive  # type: ignore[method-assign]
        await gate.wait()
        return answer

    fake.receive = held  # type: ignore[method-assign]
    return gate


async def test_a_thread_trips_near_its_cap_on_the_providers_figures(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    cap = Decimal("0.01")
    await _cap(app_client, bound_tenant, cost_cap_thread_usd=str(cap))
    fake = fakes["anthropic"]
    fake.script(*[TextReply(f"Respuesta {n}.", usage=USAGE) for n in range(1, 10)])
    await deploy_agent(
        app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url, system_prompt=SYSTEM_PROMPT
    )

    # 6 calls fit: 6 x 0.0016 = 0.0096 (0.96 of the cap); a 7th would end at 0.0112, past cap + 2 %.
    for n in range(1, 7):
        run = await _turn(app_client, bound_tenant, f"consulta {n}", count=n)
        assert run["status"] == "completed", run
    blocked = await _turn(app_client, bound_tenant, "consulta 7", count=7)

    assert blocked["status"] == "escalated", blocked
    assert "cost cap reached (thread)" in blocked["errorMessage"], blocked
    assert len(fake.requests) == 6, "the blocked call is never made"
    [thread] = await _threads(app_client, bound_tenant)
    assert thread["muted_reason"] == "cost_cap_thread"
    spent = Decimal(thread["costUsd"])
    assert spent == 6 * CALL_USD and Decimal("0.95") * cap <= spent <= cap, spent

    # The estimate each call reserved, beside the usage the provider reported for it: after the first
    # call (no output seen yet: max_tokens) the thread's own figures calibrate it to within 5 %.
    completed = [
        run
        for run in (await finished_runs(app_client, bound_tenant, count=7))
        if run["status"] == "completed"
    ]
    for run in completed:
        [step] = [
            s
            for s in (await run_detail(app_client, bound_tenant, run["id"]))["steps"]
            if s["kind"] == "model_call"
        ]
        estimate, usage = step["data"]["estimate"], step["data"]["usage"]
        assert Decimal(step["costUsd"]) == CALL_USD
        if run is completed[-1]:
            assert estimate["output_tokens"] == 1_024, estimate  # the thread's first call
            continue
        assert abs(estimate["prompt_tokens"] - usage["input_tokens"]) <= 0.05 * usage["input_tokens"], (
            estimate
        )
        assert estimate["output_tokens"] == usage["output_tokens"] == 150
        assert abs(Decimal(estimate["usd"]) - CALL_USD) <= Decimal("0.05") * CALL_USD, estimate


async def test_another_threads_call_in_flight_does_not_mute_a_thread_below_the_day_cap(
    app_client: httpx.AsyncClient,
    bound_tenant: TenantFixture,
    fakes: dict[str, FakeProvider],
    channel: FakeChannel,
    tools_url: str,
) -> None:
    await _cap(app_client, bound_tenant, cost_cap_day_usd="0.01")
    fake = fakes["anthropic"]
    fake.script(*[TextReply(f"Respuesta {n}.", usage=USAGE) for n in range(1, 4)])
    await deploy_agent(
        app_client, bound_tenant, provider="anthropic", tool_base_url=tools_url, system_prompt=SYSTEM_PROMPT
    )
    first = await _turn(app_client, bound_tenant, "hola", count=1)
    assert first["status"] == "completed", first

    # Thread A's second call is in flight, holding its estimate against the tenant's day...
    gate = _hold_next_call(fake)
    await say(app_client, text_envelope("¿y el martes?"))

    async def in_flight() -> bool:
        return len(fake.requests) == 2

    await eventually(in_flight)
    # ...while thread B's first call comes: 0.0016 spent + A's ~0.0016 + B's ~0.0062 (no output seen
    # yet: max_tokens) fits the 0.01 day cap plus 2 %, so B is answered and nobody mutes.
    try:
        await say(app_client, _other_customer("hola, soy otra persona"))
        run_b = (await finished_runs(app_client, bound_tenant, count=2))[0]
        assert run_b["status"] == "completed", run_b
    finally:
        gate.set()
    runs = await finished_runs(app_client, bound_tenant, count=3)
    assert [run["status"] for run in runs] == ["completed"] * 3, runs
    threads = await _threads(app_client, bound_tenant)
    assert len(threads) == 2 and all(thread["muted_reason"] is None for thread in threads), threads
    assert sum(Decimal(thread["costUsd"]) for thread in threads) == 3 * CALL_USD
