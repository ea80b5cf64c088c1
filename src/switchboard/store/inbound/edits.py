"""Edits, deletions and late media of stored messages: each changes the row it names, never adds one.

An edit or a revoke names the wamid of the message it changes. That row is locked
while the change is made, so two edits applied at once both land in its history.
A change for a message not stored yet is deferred like a status (the workflow
tries it again for about 30 s): the original may still be in flight in another
payload. Neither an edit nor a revoke counts as unread, reopens the conversation
or starts an agent turn; each raises its event with the conversation.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.domain.events import MESSAGE_EDITED, MESSAGE_REVOKED, iso_utc
from switchboard.domain.inbound import HistoryMedia, MessageEdit, MessageRevoke
from switchboard.domain.inbound.edits import apply_edit, apply_revoke, is_revoked
from switchboard.domain.message_status import HISTORICAL
from switchboard.models.messaging import Message
from switchboard.store.inbound.business import Business
from switchboard.store.inbound.events import emit_about_stored, message_facts
from switchboard.store.inbound.messages import stored_message
from switchboard.store.inbound.outcome import APPLIED, DEFERRED, UNCHANGED, ItemOutcome

Change = MessageEdit | MessageRevoke


async def _target(session: AsyncSession, item: Change, biz: Business, *, lock: bool) -> Message | None:
    return await stored_message(
        session,
        phone_number_id=biz.phone_number_id,
        wa_message_id=item.original_wa_message_id,
        direction=item.target_direction,
        lock=lock,
    )


async def change_target_exists(session: AsyncSession, item: Change | HistoryMedia, biz: Business) -> bool:
    """Whether the message an edit, revoke or history asset names is stored (if not, it is deferred)."""
    if isinstance(item, HistoryMedia):
        return await _history_row(session, item, biz, lock=False) is not None
    return await _target(session, item, biz, lock=False) is not None


async def apply_message_change(session: AsyncSession, item: Change, biz: Business) -> ItemOutcome:
    """Apply an edit or a revoke to the stored message and raise channel.message.edited / revoked."""
    message = await _target(session, item, biz, lock=True)
    if message is None:
        return ItemOutcome(DEFERRED)
    payload = dict(message.payload) if isinstance(message.payload, dict) else {}
    if is_revoked(payload):
        # Deleted for everyone: a late edit has nothing left to change.
        return ItemOutcome(UNCHANGED)
    if isinstance(item, MessageEdit):
        revision = apply_edit(
            payload,
            message_type=message.message_type,
            content=message.content,
            has_media=message.has_media,
            edit=item,
        )
    else:
        revision = apply_revoke(payload, message_type=message.message_type, revoke=item)
    message.payload = revision.payload
    message.message_type, message.content, message.has_media = (
        revision.message_type,
        revision.content,
        revision.has_media,
    )
    await session.flush()
    change = {"id": item.wa_message_id, "timestamp": item.timestamp, "occurred_at": iso_utc(item.occurred_at)}
    facts = message_facts(
        message,
        **({"edit": {**change, "current": revision.current}} if isinstance(item, MessageEdit) else {}),
        **({"revoke": change} if isinstance(item, MessageRevoke) else {}),
    )
    event = MESSAGE_EDITED if isinstance(item, MessageEdit) else MESSAGE_REVOKED
    event_id = await emit_about_stored(session, event, message, facts, occurred_at=item.occurred_at)
    return ItemOutcome(APPLIED, [event_id])


async def _history_row(
    session: AsyncSession, item: HistoryMedia, biz: Business, *, lock: bool
) -> Message | None:
    for direction in ("inbound", "outbound"):
        row = await stored_message(
            session,
            phone_number_id=biz.phone_number_id,
            wa_message_id=item.wa_message_id,
            direction=direction,
            lock=lock,
        )
        if row is not None and row.status == HISTORICAL:
            return row
    return None


async def apply_history_media(session: AsyncSession, item: HistoryMedia, biz: Business) -> ItemOutcome:
    """Give a history row of a media message the media id the upstream sent for it after the sync."""
    row = await _history_row(session, item, biz, lock=True)
    if row is None:
        return ItemOutcome(DEFERRED)
    payload = dict(row.payload) if isinstance(row.payload, dict) else {}
    kept = payload.get(item.message_type)
    payload[item.message_type] = {**(kept if isinstance(kept, dict) else {}), **(item.type_object or {})}
    payload["media_id"] = item.media_id
    if item.media_mime_type:
        payload["media_mime_type"] = item.media_mime_type
    row.payload = payload
    row.has_media = True
    await session.flush()
    return ItemOutcome(APPLIED)
