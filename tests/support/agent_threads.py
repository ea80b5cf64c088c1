"""An agent thread written straight to the database, for tests that model a state no API call leaves."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.models.agent_runtime import AgentThread
from switchboard.models.messaging import Contact
from switchboard.store.conversations import open_conversation


async def new_thread(
    session: AsyncSession, *, tenant_id: str, customer_id: str, phone_number_id: str, **fields: Any
) -> AgentThread:
    """A new contact's conversation on the number and its agent thread with ``fields``, flushed (ids set)."""
    contact = Contact(
        tenant_id=tenant_id, customer_id=customer_id, phone=f"1650{uuid.uuid4().int % 10**7:07d}"
    )
    session.add(contact)
    await session.flush()
    conversation, _ = await open_conversation(
        session,
        tenant_id=tenant_id,
        customer_id=customer_id,
        phone_number_id=phone_number_id,
        contact=contact,
        new_contact=True,
    )
    thread = AgentThread(
        tenant_id=tenant_id,
        conversation_id=conversation.id,
        phone_number_id=phone_number_id,
        contact_id=contact.id,
        **fields,
    )
    session.add(thread)
    await session.flush()
    return thread
