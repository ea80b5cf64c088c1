"""``POST /{version}/{phone_number_id}/messages``: sends and mark-read."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from switchboard.simulator.clock import now_s
from switchboard.simulator.envelopes import ONE_DAY_S
from switchboard.simulator.graph_errors import (
    GraphError,
    template_disabled,
    template_not_found,
    template_paused,
)
from switchboard.simulator.ids import wamid as new_wamid
from switchboard.simulator.phones import digits_of, wa_id_for
from switchboard.simulator.routes.common import Poster, State, Token, json_body
from switchboard.simulator.state import MessageRecord, SimState
from switchboard.simulator.statuses import plan_for, run_status_sequence
from switchboard.simulator.triggers import MISSING_TEMPLATE_PREFIX, REENGAGEMENT, Trigger, trigger_for
from switchboard.simulator.validation import MarkRead, SendRequest, parse_messages_body

router = APIRouter()


@router.post("/{version}/{phone_number_id}/messages")
async def post_messages(
    phone_number_id: str, request: Request, state: State, poster: Poster, _token: Token
) -> dict[str, Any]:
    """Accept a send (answering with a wamid) or a mark-read, as the Cloud API does."""
    body = await json_body(request)
    record = MessageRecord(direction="outbound", phone_number_id=phone_number_id, received_at=now_s())
    if isinstance(body, dict):
        record.body, record.to, record.recipient = body, body.get("to"), body.get("recipient")
        record.type = body.get("type")
    state.messages.append(record)
    try:
        parsed = parse_messages_body(body)
        if isinstance(parsed, MarkRead):
            record.kind, record.type = "mark_read", None
            return {"success": True}
        return _accept(state, poster, record, parsed)
    except GraphError as exc:
        record.outcome, record.http_status, record.error_code = "rejected", exc.http_status, exc.code
        raise


def _accept(state: SimState, poster: Poster, record: MessageRecord, send: SendRequest) -> dict[str, Any]:
    record.type = send.type
    category, billable, failure = "service", False, None
    if send.type == "template":
        category = _check_template(state, send.content)
        billable = True
    if send.to is not None:
        record.wa_id = wa_id_for(send.to)
        failure = _apply_trigger(state, digits_of(send.to))
        if failure is None and _outside_window(state, record, send.type):
            failure = REENGAGEMENT
    record.wamid = new_wamid(record.wa_id or send.recipient or "")
    contact = (
        {"input": send.to, "wa_id": record.wa_id}
        if send.to
        else {"input": send.recipient, "user_id": send.recipient}
    )
    message: dict[str, Any] = {"id": record.wamid}
    if send.type == "template":
        message["message_status"] = "accepted"
    if state.config.send_status_webhooks:
        callback = record.body.get("biz_opaque_callback_data")
        plan = plan_for(
            state,
            message_type=send.type,
            failure=failure,
            category=category,
            billable=billable,
            callback_data=callback if isinstance(callback, str) else None,
        )
        state.spawn(run_status_sequence(state, poster, record, plan))
    return {"messaging_product": "whatsapp", "contacts": [contact], "messages": [message]}


def _apply_trigger(state: SimState, digits: str) -> Trigger | None:
    """Raise a synchronous trigger's error, or return an asynchronous one's failure."""
    trigger = trigger_for(digits)
    if trigger is None:
        return None
    if trigger.kind == "fail_async":
        return trigger
    if trigger.kind == "flaky":
        count = state.flaky_counts.get(digits, 0) + 1
        if count > state.config.flaky_failures:
            # One success ends the cycle, so the next send meets the same failures again.
            state.flaky_counts[digits] = 0
            return None
        state.flaky_counts[digits] = count
    raise trigger.graph_error()


def _outside_window(state: SimState, record: MessageRecord, message_type: str) -> bool:
    if not state.config.enforce_customer_window or message_type in ("template", "reaction"):
        return False
    last = state.last_inbound_at.get((record.phone_number_id, record.wa_id or ""))
    return last is None or now_s() - last > ONE_DAY_S


def _check_template(state: SimState, template: Any) -> str:
    """Refuse unknown-by-trigger or unapproved templates; return the pricing category."""
    name = str(template.get("name"))
    language = str(template.get("language", {}).get("code"))
    if name.startswith(MISSING_TEMPLATE_PREFIX):
        raise template_not_found(name, language)
    known = [t for t in state.templates.values() if t.name == name]
    if not known:
        return "utility"
    match = next((t for t in known if t.language == language), None)
    if match is None:
        raise template_not_found(name, language)
    if match.status == "PAUSED":
        raise template_paused(name)
    if match.status == "DISABLED":
        raise template_disabled(name)
    if match.status != "APPROVED":
        raise template_not_found(name, language)
    return match.category.lower()
