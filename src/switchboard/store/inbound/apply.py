"""Apply one normalized inbound item inside the caller's transaction.

Every item is applied at most once: its business number plus ``dedup_key()``
goes into the ``inbound_items`` ledger in the same transaction as its changes,
so a redelivered payload, a retried activity or a concurrent duplicate finds
the key and changes nothing (the message tables' unique constraints back this
up). A status, edit or revoke for a message not stored yet claims no key, so a
later retry of it still applies. Template changes belong to a WABA, not a number: they are
keyed by WABA (``store.inbound.templates``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.domain.inbound import (
    ChannelError,
    EchoMessage,
    HistoryError,
    HistoryMedia,
    HistoryMessage,
    IdentityChange,
    InboundItem,
    InboundMessage,
    MessageEdit,
    MessageRevoke,
    PhoneNumberChange,
    SharedContactPhone,
    Skipped,
    StatusUpdate,
    TemplateUpdate,
    UsernameUpdate,
)
from switchboard.store.inbound.business import Business, business_for_item
from switchboard.store.inbound.edits import apply_history_media, apply_message_change, change_target_exists
from switchboard.store.inbound.identity import (
    apply_identity_change,
    apply_phone_change,
    apply_shared_phone,
    apply_username_update,
)
from switchboard.store.inbound.messages import apply_message_item
from switchboard.store.inbound.number_claim import claims_with_number, number_and_claim
from switchboard.store.inbound.outcome import DEFERRED, DUPLICATE, IGNORED, ItemOutcome
from switchboard.store.inbound.raw import claim_item
from switchboard.store.inbound.statuses import apply_status, status_target_exists
from switchboard.store.inbound.templates import apply_template_update

log = logging.getLogger("switchboard.inbound")

Handler = Callable[[AsyncSession, Any, Business], Awaitable[ItemOutcome]]

_HANDLERS: dict[type, Handler] = {
    InboundMessage: apply_message_item,
    StatusUpdate: apply_status,
    SharedContactPhone: apply_shared_phone,
    IdentityChange: apply_identity_change,
    PhoneNumberChange: apply_phone_change,
    EchoMessage: apply_message_item,
    HistoryMessage: apply_message_item,
    HistoryError: apply_message_item,
    MessageEdit: apply_message_change,
    MessageRevoke: apply_message_change,
    HistoryMedia: apply_history_media,
    UsernameUpdate: apply_username_update,
}


def ledger_key(item: InboundItem, biz: Business) -> str:
    """The item's key in the applied-items ledger (scoped to its business number)."""
    return _ledger_key(biz.phone_number_id, item)


def _ledger_key(phone_number_id: str, item: InboundItem) -> str:
    return f"{phone_number_id}|{item.dedup_key()}"


async def apply_item(
    session: AsyncSession,
    item: InboundItem,
    *,
    payload_id: str | None,
    now: datetime,
    first_try: bool = False,
) -> ItemOutcome:
    """Apply an item once; the caller commits, then dispatches the returned event ids.

    On a ``first_try`` a user message is stored without looking for its wamid first. A redelivery
    is caught by the ledger before that; the same wamid stored by another kind of item (a history
    import) is so rare that the unique key's IntegrityError, and the caller's second try (not a
    first one), costs less than a read on every message.
    """
    context = {"phone_number_id": item.phone_number_id, "kind": item.kind, "payload_id": payload_id}
    if isinstance(item, ChannelError):
        log.warning(
            "channel reported an error",
            extra={**context, "code": item.code, "title": item.title, "field": item.change_field},
        )
        return ItemOutcome(IGNORED)
    if isinstance(item, Skipped):
        log.info(
            "channel item skipped",
            extra={**context, "field": item.change_field, "what": item.what, "reason": item.reason},
        )
        return ItemOutcome(IGNORED)
    if isinstance(item, TemplateUpdate):
        # WABA-level: no business number, keyed and ordered by template.
        return await apply_template_update(session, item, payload_id=payload_id, now=now)
    # Whether this call claimed the item's key; None until it has tried.
    claimed: bool | None = None
    if claims_with_number(item, session):
        # A user message: its number's read and its claim in one statement (store/inbound/number_claim.py).
        key = _ledger_key(item.phone_number_id or "", item)
        biz, claimed = await number_and_claim(session, item, key=key, payload_id=payload_id, at=now)
    else:
        biz = await business_for_item(session, item)
    if biz is None:
        log.info("inbound item for a number not provisioned here; ignored", extra=context)
        return ItemOutcome(IGNORED)
    handler = _HANDLERS.get(type(item))
    if handler is None:
        log.info("inbound item kind not handled; ignored", extra=context)
        return ItemOutcome(IGNORED)
    if isinstance(item, StatusUpdate) and not await status_target_exists(session, item, biz):
        return ItemOutcome(DEFERRED)
    if isinstance(item, MessageEdit | MessageRevoke | HistoryMedia) and not await change_target_exists(
        session, item, biz
    ):
        return ItemOutcome(DEFERRED)
    if claimed is None:
        claimed = await claim_item(session, key=ledger_key(item, biz), payload_id=payload_id, at=now)
    if not claimed:
        return ItemOutcome(DUPLICATE)
    if first_try and isinstance(item, InboundMessage):
        outcome = await apply_message_item(session, item, biz, look_first=False)
    else:
        outcome = await handler(session, item, biz)
    if outcome.result == DEFERRED:
        # The target vanished between the check and the lock; undo the claim with the rest.
        raise LookupError(f"status target {item.dedup_key()} disappeared")
    return outcome
