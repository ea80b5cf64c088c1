"""The embedded inbox's read side: conversations, their messages, and mark-as-resolved.

Conversations on phone numbers with ``hidden_from_inbox`` are left out of the
list and answer 404 by id, like another tenant's. The human reply
(POST .../messages) lives with the send path.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from switchboard.api.deps import Caller, Session
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.domain.errors import ValidationFailed
from switchboard.domain.message_status import CONVERSATION_ACTIVE, CONVERSATION_ARCHIVED
from switchboard.models.base import utcnow
from switchboard.models.inbox_api import InboxConversation, InboxMessage
from switchboard.store import conversations
from switchboard.store.pagination import paginate

router = APIRouter(prefix="/v1/inbox-embed", tags=["inbox embed"], route_class=JsonRoute)

_STATUSES = (CONVERSATION_ACTIVE, CONVERSATION_ARCHIVED)


@router.get("/conversations")
async def list_conversations(
    who: Caller,
    session: Session,
    paging: Paging,
    status: Annotated[str | None, Query(description="active or archived")] = None,
    phone_number_id: Annotated[
        str | None, Query(description="channel numeric id of the business number")
    ] = None,
) -> dict[str, Any]:
    """List conversations, most recent first, with contactUsername, contactBsuid and the 24 h window."""
    if status is not None and status not in _STATUSES:
        raise ValidationFailed(
            "status must be active or archived",
            code="VALIDATION_FAILED",
            details={"field": "status", "value": status, "allowed": list(_STATUSES)},
        )
    stmt = conversations.inbox_conversations(who.tenant_id, status=status, phone_number_id=phone_number_id)
    rows, total = await paginate(session, stmt, page=paging.page, per_page=paging.per_page)
    last = await conversations.messages_by_id(session, [r.last_message_id for r in rows if r.last_message_id])
    now = utcnow()
    data = [InboxConversation.of(r, last=last.get(r.last_message_id or ""), now=now) for r in rows]
    return envelope(data, paging=paging, total=total)


@router.get("/conversations/{id}")
async def get_conversation(id: str, who: Caller, session: Session) -> InboxConversation:
    """One conversation of the inbox."""
    conversation = await conversations.visible_conversation(session, who.tenant_id, id)
    last = await conversations.messages_by_id(session, [conversation.last_message_id or ""])
    return InboxConversation.of(conversation, last=last.get(conversation.last_message_id or ""), now=utcnow())


@router.get("/conversations/{id}/messages")
async def list_conversation_messages(
    id: str, who: Caller, session: Session, paging: Paging
) -> dict[str, Any]:
    """A conversation's messages, newest first."""
    conversation = await conversations.visible_conversation(session, who.tenant_id, id)
    stmt = conversations.conversation_messages(conversation.id)
    rows, total = await paginate(session, stmt, page=paging.page, per_page=paging.per_page)
    return envelope([InboxMessage.of(r) for r in rows], paging=paging, total=total)


@router.post("/conversations/{id}/archive")
async def archive_conversation(id: str, who: Caller, session: Session) -> InboxConversation:
    """Mark as resolved: the conversation becomes archived until the contact writes again."""
    conversation = await conversations.visible_conversation(session, who.tenant_id, id, lock=True)
    now = utcnow()
    await conversations.archive_conversation(session, conversation, at=now)
    last = await conversations.messages_by_id(session, [conversation.last_message_id or ""])
    return InboxConversation.of(conversation, last=last.get(conversation.last_message_id or ""), now=now)
