"""The reply activity: an agent's answer enters the one send path as an AUTO_AGENT_PLATFORM message.

The message id was fixed when the run was loaded, so a retried activity finds
the message it already stored and never creates a second send; the run
workflow then starts the message's SendMessage workflow as an abandoned child
(same workflow id as any send, so it can only ever run once).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlmodel import col
from temporalio import activity

from switchboard.activities.agents.payloads import ReplyInput, ReplyResult
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.outbound import SendContext, create_send
from switchboard.domain.errors import ServiceError
from switchboard.domain.send_payload import parse_send_request
from switchboard.models.agent_runtime import AgentRun, AgentThread
from switchboard.models.base import utcnow
from switchboard.models.messaging import Conversation
from switchboard.models.tenancy import PhoneNumber
from switchboard.store import messages
from switchboard.store.database import unit_of_work

SOURCE_AGENT = "AUTO_AGENT_PLATFORM"


def addressed(content: dict[str, Any], *, phone_number_id: str, conversation: Conversation) -> dict[str, Any]:
    """The POST /v1/messages body of a reply: to the contact's number, else to their BSUID."""
    body: dict[str, Any] = {"phone_number_id": phone_number_id, **content}
    if conversation.contact_phone:
        body["to"] = conversation.contact_phone
    elif conversation.contact_bsuid:
        body["recipient"] = conversation.contact_bsuid
    return body


class AgentReplyActivities:
    """Sending what an agent says."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps

    @activity.defn(name="create_agent_reply")
    async def create_agent_reply(self, reply: ReplyInput) -> ReplyResult:
        """Validate and store the reply as a queued send; the send workflow's input, or why it was refused."""
        async with self._deps.sessions() as session:
            run = await session.get(AgentRun, reply.run_id)
            thread = await session.get(AgentThread, reply.thread_id)
            if run is None or thread is None or not run.reply_message_id:
                raise LookupError(f"run {reply.run_id} is not loaded")
            conversation = await session.get(Conversation, thread.conversation_id)
            stmt = select(PhoneNumber).where(col(PhoneNumber.phone_number_id) == thread.phone_number_id)
            phone = (await session.execute(stmt)).scalars().first()
        if conversation is None or phone is None:
            return ReplyResult(error="the conversation or its phone number no longer exists")
        if not conversation.contact_phone and not conversation.contact_bsuid:
            return ReplyResult(error="the contact has neither a phone number nor a BSUID to reply to")
        raw = addressed(reply.content, phone_number_id=phone.phone_number_id, conversation=conversation)
        try:
            send = parse_send_request(raw)
            request = await create_send(
                self._deps.sessions,
                self._deps.settings,
                tenant_id=reply.tenant_id,
                send=send,
                phone=phone,
                ctx=SendContext(
                    source=SOURCE_AGENT, conversation_id=conversation.id, message_id=run.reply_message_id
                ),
                temporal=self._deps.temporal,
            )
        except ServiceError as error:
            return ReplyResult(error=f"the reply was refused: {error.code or error.status_code}: {error}")
        async with unit_of_work(self._deps.sessions) as session:
            await messages.mark_workflow_started(session, request.message_id, at=utcnow())
        return ReplyResult(message_id=request.message_id, send_input=request.model_dump(mode="json"))
