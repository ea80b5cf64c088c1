"""The model-call activity: one call through a provider adapter, priced and recorded with the run.

Before the call, an honest estimate of its cost (activities.agents.cost_estimate)
is reserved against the thread's, the tenant day's and the tenant month's caps
(store.agents.budget); a cap reached, or passed by more than its margin, blocks
the call (the run escalates and the thread mutes with the cap's reason). After
it, the reservation settles to the actual cost, or is released if the call failed.
The step is recorded (usage raw and normalised, the rate-card row in effect,
the exact cost) and its cost added to the run and the thread in one
transaction keyed by (run, seq): a retried activity whose call was already
recorded returns the recorded answer and pays nothing twice. SDK retries are
off; provider failures become ApplicationErrors whose ``non_retryable`` says
whether Temporal may try again, with every provider key blanked out of their
text and no cause chained (errors.as_application_error).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio import activity

from switchboard import metrics, tracing
from switchboard.activities.agents.cost_estimate import estimate_call
from switchboard.activities.agents.payloads import ModelCallInput, ModelCallResult
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.llm.errors import ProviderError, as_application_error
from switchboard.activities.llm.providers import ProviderRegistry
from switchboard.activities.llm.rate_cards import RateCardBook
from switchboard.domain.pricing import cost_usd
from switchboard.models.agent_runtime import AgentRun
from switchboard.models.base import utcnow
from switchboard.store.agents.budget import CapReached, recent_calls, reserve, settle
from switchboard.store.agents.runs import record_model_step, step_at, usd_to_e10
from switchboard.store.database import unit_of_work

log = logging.getLogger("switchboard.agents")

PREVIEW_CHARS = 500
# Heartbeats while a call is in flight, so a killed worker's call is retried after the
# heartbeat timeout (seconds) rather than the whole start-to-close timeout.
HEARTBEAT_EVERY_SECONDS = 2.0


@asynccontextmanager
async def _heartbeating() -> AsyncIterator[None]:
    async def beat() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(HEARTBEAT_EVERY_SECONDS)

    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


class ModelCallActivities:
    """Model calls of agent runs (the router's and the loop's)."""

    def __init__(self, deps: ActivityDeps, *, providers: ProviderRegistry, rate_cards: RateCardBook) -> None:
        self._deps = deps
        self._providers = providers
        self._rate_cards = rate_cards

    @activity.defn(name="call_agent_model")
    async def call_agent_model(self, call: ModelCallInput) -> ModelCallResult:
        """Call the agent's model once, price the usage and record the step."""
        async with self._deps.sessions() as session:
            recorded = await step_at(session, call.run_id, call.seq)
            recent = await recent_calls(session, thread_id=call.thread_id, purpose=call.purpose)
        if recorded is not None:
            return ModelCallResult.model_validate(recorded.data["result"])
        reservation_id = f"{call.run_id}:{call.seq}"
        card = self._rate_cards.card_for(call.provider, call.request.model, utcnow())
        estimate = estimate_call(call.request, card, recent)
        try:
            async with unit_of_work(self._deps.sessions) as session:
                await reserve(
                    session,
                    reservation_id=reservation_id,
                    tenant_id=call.tenant_id,
                    thread_id=call.thread_id,
                    amount_e10=usd_to_e10(estimate.usd),
                    now=utcnow(),
                )
        except CapReached as reached:
            return ModelCallResult(blocked=reached.scope)
        try:
            adapter = self._providers.adapter(call.provider)
            started = time.monotonic()
            traced = {"gen_ai.system": call.provider, "gen_ai.request.model": call.request.model}
            async with _heartbeating():
                with tracing.span("model call", traced):
                    response = await adapter.complete(call.request)
        except Exception as error:  # noqa: BLE001 - re-raised, only with the keys blanked out
            # A provider's answer or anything else (an SDK surprise, a bug): no spend either way, so the
            # reservation goes at once rather than at the stale sweep.
            async with unit_of_work(self._deps.sessions) as session:
                await settle(session, reservation_id=reservation_id, actual_e10=None)
            converted = as_application_error(error, secrets=self._providers.secrets)
            if isinstance(error, ProviderError):
                # Expected (an outage, a limit, a refusal): one line here, no traceback from the SDK.
                log.warning(
                    "model call failed",
                    extra={
                        "provider": error.provider,
                        "status_code": error.status_code,
                        "error": type(error).__name__,
                        "retryable": error.retryable,
                        "attempt": activity.info().attempt,
                    },
                )
            # from None: the chained SDK error may quote a key, and Temporal serialises causes too.
            raise converted from None
        latency_ms = int((time.monotonic() - started) * 1000)
        now = utcnow()
        card = self._rate_cards.card_for(call.provider, call.request.model, now)
        cost = cost_usd(response.usage, card)
        result = ModelCallResult(response=response, cost_usd=str(cost), latency_ms=latency_ms)
        usage = response.usage
        async with unit_of_work(self._deps.sessions) as session:
            run = await session.get(AgentRun, call.run_id, with_for_update=True)
            if run is None:
                raise LookupError(f"run {call.run_id} not found")
            recorded = await step_at(session, call.run_id, call.seq)
            if recorded is not None:
                # A duplicate attempt raced the one that recorded the call: release what this one holds.
                await settle(session, reservation_id=reservation_id, actual_e10=None)
                return ModelCallResult.model_validate(recorded.data["result"])
            await settle(session, reservation_id=reservation_id, actual_e10=usd_to_e10(cost))
            await record_model_step(
                session,
                run=run,
                seq=call.seq,
                name=call.purpose,
                cost_e10=usd_to_e10(cost),
                usage={
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    "cache_read_tokens": usage.cache_read_tokens,
                    "cache_write_tokens": usage.cache_write_tokens,
                },
                latency_ms=latency_ms,
                data={
                    "provider": call.provider,
                    "model": call.request.model,
                    "purpose": call.purpose,
                    "stop_reason": response.stop_reason,
                    "usage": usage.model_dump(mode="json", exclude={"raw"}),
                    "raw_usage": usage.raw,
                    "rate_card": card.ref,
                    "cost_usd": str(cost),
                    "estimate": estimate.as_data(),
                    "tool_calls": [tool_call.name for tool_call in response.tool_calls],
                    "text_preview": (response.text or "")[:PREVIEW_CHARS],
                    "result": result.model_dump(mode="json"),
                },
                at=now,
            )
        metrics.count_model_call(
            call.provider,
            call.request.model,
            cost_usd=float(cost),
            tokens={
                "input": usage.input_tokens,
                "output": usage.output_tokens,
                "cache_read": usage.cache_read_tokens,
                "cache_write": usage.cache_write_tokens,
            },
        )
        return result
