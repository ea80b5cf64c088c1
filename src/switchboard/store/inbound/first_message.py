"""A new conversation and its first message in one statement, on PostgreSQL.

A first message from a contact creates its conversation, files the contact's
unfiled sends under it (``conversations.FILE_UNFILED``) and stores the
message: three statements through the ORM, each a round trip. Their values
are all known beforehand (ids are drawn as the rows are built, and the
conversation already points at the message), so on PostgreSQL the
conversation's INSERT and the filing go as data-modifying CTEs of the
message's INSERT. The foreign key from the
conversation to its contact is checked at the statement's end, when the
contact (inserted by an earlier statement) is there.

Both rows then join the session as if loaded, so a later change to either
(an agent turn moving the conversation, say) is written by the ORM's flush as
usual. SQLite has no data-modifying CTEs and keeps the three statements
(there a statement is a call into the library, not a round trip).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import Table, bindparam, insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import make_transient_to_detached

from switchboard.models.messaging import Conversation, Message
from switchboard.store.conversations import FILE_UNFILED, filing_params
from switchboard.store.tables import table_of


def writes_together(session: AsyncSession) -> bool:
    """Whether a new conversation is written with its first message (on PostgreSQL)."""
    return session.get_bind().dialect.name == "postgresql"


def _values(table: Table, prefix: str) -> dict[str, Any]:
    # Bound names prefixed: an INSERT's own columns may not be bound under their names.
    return {column.name: bindparam(f"{prefix}{column.name}", type_=column.type) for column in table.columns}


@cache
def _statement() -> Any:
    """The message's INSERT, with the conversation's INSERT and the filing as CTEs; built once."""
    conversations, messages = table_of(Conversation), table_of(Message)
    new_conversation = (
        insert(conversations).values(_values(conversations, "conversation_")).cte("conversation")
    )
    filed = FILE_UNFILED.cte("filed")
    return insert(messages).values(_values(messages, "message_")).add_cte(new_conversation, filed)


def _params(obj: Conversation | Message, prefix: str) -> dict[str, Any]:
    return {f"{prefix}{column.name}": getattr(obj, column.key) for column in table_of(type(obj)).columns}


async def write_first_message(session: AsyncSession, conversation: Conversation, message: Message) -> None:
    """INSERT a new conversation and its first message and file the contact's unfiled sends, in one round trip.

    ``conversation`` comes unsaved from ``open_conversation(written_by_caller=True)``; neither object may
    be in the session yet. Both are in it afterwards, as persistent rows.
    """
    params = (
        _params(conversation, "conversation_") | _params(message, "message_") | filing_params(conversation)
    )
    await session.execute(_statement(), params)
    for row in (conversation, message):
        make_transient_to_detached(row)
        session.add(row)
