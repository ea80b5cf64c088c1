"""The embedded inbox's human reply: POST /v1/inbox-embed/conversations/{id}/messages.

A reply goes through the same send path as POST /v1/messages, addressed to the
conversation's contact from the conversation's number. Its source tells the
agents runtime that a human is talking: HUMAN_PORTAL when the inbox runs with
``requireAgentLogin`` and names the logged-in agent, HUMAN_EMBED_ANONYMOUS
otherwise.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Header
from fastapi.responses import JSONResponse

from switchboard.api import sending
from switchboard.api.deps import Caller, State
from switchboard.api.routing import JsonRoute
from switchboard.domain.errors import Conflict, MissingRequiredField, ValidationFailed
from switchboard.store import conversations

router = APIRouter(prefix="/v1/inbox-embed", tags=["inbox embed"], route_class=JsonRoute)

HUMAN_PORTAL = "HUMAN_PORTAL"
HUMAN_EMBED_ANONYMOUS = "HUMAN_EMBED_ANONYMOUS"
_ADDRESSING = ("phone_number_id", "to", "recipient")


def reply_source(*, require_agent_login: bool, agent_id: str | None) -> str:
    """The message source of an inbox reply (spec: Guardrails, human intervention sources)."""
    if require_agent_login:
        if not agent_id:
            raise MissingRequiredField("agent_id", "agent_id is required when requireAgentLogin is true")
        return HUMAN_PORTAL
    return HUMAN_EMBED_ANONYMOUS


@router.post("/conversations/{id}/messages", status_code=201, response_model=None)
async def reply(
    id: str,
    state: State,
    who: Caller,
    body: Annotated[dict[str, Any], Body()],
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key", max_length=255)] = None,
) -> JSONResponse:
    """Send a human reply in a conversation (any message type; `text` alone may be a string)."""
    present = [key for key in _ADDRESSING if key in body]
    if present:
        raise ValidationFailed(
            f"{present[0]} is taken from the conversation and may not be given",
            code="VALIDATION_FAILED",
            details={"field": present[0]},
        )
    source = reply_source(
        require_agent_login=bool(body.get("requireAgentLogin")), agent_id=body.get("agent_id")
    )
    async with state.sessions() as session:
        conversation = await conversations.visible_conversation(session, who.tenant_id, id)
    if conversation.group_id is not None:
        # Sends address one person; a reply here would have to go to the whole group.
        raise Conflict(
            "this conversation is a WhatsApp group's: replies to a group are not sent from the inbox",
            code="GROUP_CONVERSATION",
            details={"group_id": conversation.group_id},
        )
    payload = {k: v for k, v in body.items() if k not in ("requireAgentLogin", "agent_id")}
    if isinstance(payload.get("text"), str):
        payload["text"] = {"body": payload["text"]}
    payload.setdefault("type", "text")
    payload["phone_number_id"] = conversation.phone_number_id
    if conversation.contact_phone:
        payload["to"] = conversation.contact_phone
    else:
        payload["recipient"] = conversation.contact_bsuid
    ctx = sending.SendContext(
        source=source,
        idempotency_key=idempotency_key,
        conversation_id=conversation.id,
        sent_by=body.get("agent_id") if source == HUMAN_PORTAL else None,
        request_path=f"/v1/inbox-embed/conversations/{id}/messages",
    )
    return await sending.submit(state, who, payload, ctx)
