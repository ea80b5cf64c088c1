"""The status webhooks that follow an accepted send: sent, delivered, read (or failed)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from switchboard.simulator.clock import now_s
from switchboard.simulator.delivery import WebhookPoster
from switchboard.simulator.envelopes import ONE_DAY_S, contact_entry, conversation, pricing, status_envelope
from switchboard.simulator.graph_errors import async_error
from switchboard.simulator.ids import conversation_id
from switchboard.simulator.state import MessageRecord, SimState
from switchboard.simulator.triggers import Trigger


@dataclass(frozen=True)
class StatusPlan:
    """What to emit for one accepted send."""

    steps: tuple[str, ...]
    failure: Trigger | None
    category: str
    billable: bool
    biz_opaque_callback_data: str | None = None


def plan_for(
    state: SimState,
    *,
    message_type: str,
    failure: Trigger | None,
    category: str,
    billable: bool,
    callback_data: str | None,
) -> StatusPlan:
    """Decide the status sequence: a failure alone, ``sent`` only for reactions, else the full walk."""
    if failure is not None:
        steps: tuple[str, ...] = ("failed",)
    elif message_type == "reaction":
        steps = ("sent",)
    elif state.config.read_receipts:
        steps = ("sent", "delivered", "read")
    else:
        steps = ("sent", "delivered")
    return StatusPlan(steps, failure, category, billable, callback_data)


def _delay_ms(state: SimState, step: str) -> int:
    config = state.config
    return {"delivered": config.delivered_delay_ms, "read": config.read_delay_ms}.get(
        step, config.sent_delay_ms
    )


def _status_item(
    state: SimState, record: MessageRecord, plan: StatusPlan, step: str, convo: str
) -> dict[str, Any]:
    now = now_s()
    item: dict[str, Any] = {"id": record.wamid, "status": step, "timestamp": str(now)}
    profile = None
    if record.wa_id:
        item["recipient_id"] = record.wa_id
        profile = state.customer_by_wa_id(record.wa_id)
    elif record.recipient:
        profile = state.customer_by_user_id(record.recipient)
        if profile is not None and profile.wa_id:
            item["recipient_id"] = profile.wa_id
    user_id = record.recipient or (profile.user_id if profile else None)
    # Failed statuses of phone-addressed sends carry no BSUID fields.
    if user_id and not (step == "failed" and record.to):
        item["recipient_user_id"] = user_id
        if profile is not None and profile.parent_user_id:
            item["recipient_parent_user_id"] = profile.parent_user_id
    if plan.biz_opaque_callback_data is not None:
        item["biz_opaque_callback_data"] = plan.biz_opaque_callback_data
    if step in ("sent", "delivered"):
        expires = now + ONE_DAY_S if step == "sent" else None
        item["conversation"] = conversation(convo, category=plan.category, expires_at=expires)
        item["pricing"] = pricing(category=plan.category, billable=plan.billable)
    if step == "failed" and plan.failure is not None:
        failure = plan.failure
        item["errors"] = [async_error(failure.code, failure.title, failure.details)]
    return item


def _contacts(state: SimState, record: MessageRecord, step: str) -> list[dict[str, Any]] | None:
    if step == "failed":
        return None
    profile = state.customer_by_wa_id(record.wa_id) if record.wa_id else None
    if profile is None and record.recipient:
        profile = state.customer_by_user_id(record.recipient)
    if profile is None or not profile.user_id:
        return None
    username = profile.username if step in ("delivered", "read") else None
    return [
        contact_entry(
            wa_id=profile.wa_id,
            name=profile.name,
            username=username,
            user_id=profile.user_id,
            parent_user_id=profile.parent_user_id,
        )
    ]


async def run_status_sequence(
    state: SimState, poster: WebhookPoster, record: MessageRecord, plan: StatusPlan
) -> None:
    """Post each planned status in order, waiting the configured delay before each."""
    convo = conversation_id()
    phone = state.phone(record.phone_number_id)
    for step in plan.steps:
        await asyncio.sleep(_delay_ms(state, step) / 1000)
        envelope = status_envelope(
            phone_number_id=record.phone_number_id,
            phone=phone,
            status=_status_item(state, record, plan, step, convo),
            contacts=_contacts(state, record, step),
        )
        record.statuses.append(step)
        await poster.post(envelope, kind="status", wamid=record.wamid, status=step)
