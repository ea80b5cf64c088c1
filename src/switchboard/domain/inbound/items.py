"""Typed items one channel webhook envelope normalizes into.

Each item is a frozen dataclass with a ``kind`` discriminator. They cross the
Temporal boundary as plain dicts (``item_to_dict`` / ``item_from_dict``) because
a list of a union of dataclasses does not round-trip through a JSON converter.
Message-level BSUID fields are kept verbatim (present only when the upstream
sent them); the ``contact_*`` fields come from the envelope's ``contacts[]``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from switchboard.domain.inbound.base import ItemBase
from switchboard.domain.inbound.templates import TemplateUpdate
from switchboard.domain.message_status import HISTORICAL, RECEIVED, SENT

SOURCE_HUMAN_COEXISTENCE = "HUMAN_COEXISTENCE"
HISTORY_ERROR_TYPE = "errors"
HISTORY_ERROR_TITLE = "history_import_error"


@dataclass(frozen=True, kw_only=True)
class _MessageBody:
    """The parts every stored message row shares, whatever its direction."""

    wa_message_id: str
    timestamp: str
    message_type: str
    type_object: dict[str, Any] | list[Any] | None = None
    content: str | None = None
    has_media: bool = False
    media_id: str | None = None
    media_mime_type: str | None = None
    reply_to_wa_message_id: str | None = None
    reply_to_from: str | None = None
    forwarded: bool = False
    frequently_forwarded: bool = False
    # The catalog product a message asks about (context.referred_product: catalog_id, product_retailer_id).
    referred_product: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True)
class InboundMessage(ItemBase, _MessageBody):
    """A user message to a business number (field ``messages``)."""

    kind: ClassVar[str] = "message"
    direction: ClassVar[str] = "inbound"
    status: ClassVar[str] = RECEIVED
    from_phone: str | None = None
    from_wa_id: str | None = None
    from_user_id: str | None = None
    from_parent_user_id: str | None = None
    contact_user_id: str | None = None
    contact_parent_user_id: str | None = None
    username: str | None = None
    profile_name: str | None = None
    reply_id: str | None = None
    referral: dict[str, Any] | None = None
    # The channel's errors[] as sent (code, title, message, error_data.details): an unsupported message's.
    errors: list[dict[str, Any]] | None = None
    error_code: int | None = None
    error_title: str | None = None
    error_message: str | None = None
    # A post in a WhatsApp group (``group_id`` on the message): filed in the group's own conversation.
    group_id: str | None = None

    @property
    def bsuid(self) -> str | None:
        """The sender's BSUID from the message, else from ``contacts[]``."""
        return self.from_user_id or self.contact_user_id

    @property
    def parent_bsuid(self) -> str | None:
        """The sender's parent BSUID from the message, else from ``contacts[]``."""
        return self.from_parent_user_id or self.contact_parent_user_id

    def dedup_key(self) -> str:
        """Messages are unique by wamid."""
        return f"message:{self.wa_message_id}"


@dataclass(frozen=True, kw_only=True)
class MessageEdit(ItemBase):
    """A user (or, from the business app, the business) edited a message it had sent (type ``edit``).

    ``target_direction`` names the stored row it changes: ``inbound`` for a user's edit,
    ``outbound`` for an edit echoed from the business app. The new content is read like
    any message object (``edit.message``).
    """

    kind: ClassVar[str] = "message_edit"
    wa_message_id: str
    original_wa_message_id: str
    target_direction: str = "inbound"
    timestamp: str
    message_type: str
    type_object: dict[str, Any] | list[Any] | None = None
    content: str | None = None
    has_media: bool = False
    media_id: str | None = None
    media_mime_type: str | None = None

    def dedup_key(self) -> str:
        """An edit has its own wamid."""
        return f"message_edit:{self.wa_message_id}"


@dataclass(frozen=True, kw_only=True)
class MessageRevoke(ItemBase):
    """A message deleted for everyone by its sender (type ``revoke``)."""

    kind: ClassVar[str] = "message_revoke"
    wa_message_id: str
    original_wa_message_id: str
    target_direction: str = "inbound"
    timestamp: str

    def dedup_key(self) -> str:
        """A revoke has its own wamid."""
        return f"message_revoke:{self.wa_message_id}"


@dataclass(frozen=True, kw_only=True)
class HistoryMedia(ItemBase):
    """The media asset of a history row, sent after the sync in ``history`` ``value.messages[]``.

    History rows of media messages arrive without a media id; the upstream sends the
    ids later (for media of the last 14 days), one message object per row, same wamid.
    """

    kind: ClassVar[str] = "history_media"
    wa_message_id: str
    message_type: str
    type_object: dict[str, Any] | None = None
    media_id: str | None = None
    media_mime_type: str | None = None

    def dedup_key(self) -> str:
        """One asset per history row."""
        return f"history_media:{self.wa_message_id}"


@dataclass(frozen=True, kw_only=True)
class StatusUpdate(ItemBase):
    """A delivery status of an outbound message (``statuses[]``)."""

    kind: ClassVar[str] = "status"
    wa_message_id: str
    status: str
    timestamp: str
    recipient_id: str | None = None
    recipient_phone: str | None = None
    recipient_user_id: str | None = None
    recipient_parent_user_id: str | None = None
    contact_user_id: str | None = None
    contact_parent_user_id: str | None = None
    username: str | None = None
    error_code: int | None = None
    error_title: str | None = None
    error_message: str | None = None
    error_details: str | None = None
    conversation: dict[str, Any] | None = None
    pricing: dict[str, Any] | None = None
    biz_opaque_callback_data: str | None = None

    def dedup_key(self) -> str:
        """The upstream's own advice: deduplicate on wamid plus status."""
        return f"status:{self.wa_message_id}:{self.status}"


@dataclass(frozen=True, kw_only=True)
class SharedContactPhone(ItemBase):
    """A phone the user shared in answer to request_contact_info (backfill only where empty)."""

    kind: ClassVar[str] = "shared_contact_phone"
    wa_message_id: str
    user_id: str | None = None
    parent_user_id: str | None = None
    from_phone: str | None = None
    phone: str
    shared_wa_id: str | None = None
    shared_phone_raw: str | None = None

    def dedup_key(self) -> str:
        """One shared phone per contacts message."""
        return f"shared_contact_phone:{self.wa_message_id}"


@dataclass(frozen=True, kw_only=True)
class IdentityChange(ItemBase):
    """The upstream rotated a user's BSUID (``user_id_update`` or system ``user_changed_user_id``)."""

    kind: ClassVar[str] = "identity_change"
    wa_id: str | None = None
    phone: str | None = None
    previous_user_id: str | None = None
    current_user_id: str
    previous_parent_user_id: str | None = None
    current_parent_user_id: str | None = None
    source: str

    def dedup_key(self) -> str:
        """Both upstream signals of one rotation collapse to the same key."""
        return f"identity_change:{self.previous_user_id or self.wa_id}:{self.current_user_id}"


@dataclass(frozen=True, kw_only=True)
class PhoneNumberChange(ItemBase):
    """The user moved to a new phone number (system ``user_changed_number``)."""

    kind: ClassVar[str] = "phone_number_change"
    wa_message_id: str
    previous_phone: str | None = None
    current_phone: str
    user_id: str | None = None

    def dedup_key(self) -> str:
        """One change per system message."""
        return f"phone_number_change:{self.wa_message_id}"


@dataclass(frozen=True, kw_only=True)
class EchoMessage(ItemBase, _MessageBody):
    """A message the business sent from the WhatsApp Business app (``smb_message_echoes``)."""

    kind: ClassVar[str] = "echo"
    direction: ClassVar[str] = "outbound"
    # An echo is a message the business app already sent; later upstream statuses may still raise it.
    status: ClassVar[str] = SENT
    source: ClassVar[str] = SOURCE_HUMAN_COEXISTENCE
    coexistence_echo: ClassVar[bool] = True
    from_phone: str | None = None
    to_phone: str | None = None
    to_wa_id: str | None = None
    to_user_id: str | None = None
    to_parent_user_id: str | None = None

    def dedup_key(self) -> str:
        """Echoes are unique by wamid."""
        return f"echo:{self.wa_message_id}"


@dataclass(frozen=True, kw_only=True)
class _HistoryRow:
    thread_id: str | None = None
    direction: str = "inbound"
    contact_phone: str | None = None
    contact_user_id: str | None = None
    phase: int | None = None
    chunk_order: int | None = None
    progress: int | None = None


@dataclass(frozen=True, kw_only=True)
class HistoryMessage(ItemBase, _MessageBody, _HistoryRow):
    """One message of the coexistence history sync (``history``)."""

    kind: ClassVar[str] = "history_message"
    status: ClassVar[str] = HISTORICAL
    from_phone: str | None = None
    to_phone: str | None = None
    history_status: str | None = None

    @property
    def coexistence_echo(self) -> bool:
        """Outbound history rows were sent from the business app."""
        return self.direction == "outbound"

    @property
    def source(self) -> str | None:
        """HUMAN_COEXISTENCE for outbound rows; inbound rows have no sender source."""
        return SOURCE_HUMAN_COEXISTENCE if self.direction == "outbound" else None

    def dedup_key(self) -> str:
        """History rows are unique by wamid."""
        return f"history:{self.wa_message_id}"


@dataclass(frozen=True, kw_only=True)
class HistoryError(ItemBase, _HistoryRow):
    """A history row that cannot be reconstructed; stored as message_type errors, status historical."""

    kind: ClassVar[str] = "history_error"
    message_type: ClassVar[str] = HISTORY_ERROR_TYPE
    status: ClassVar[str] = HISTORICAL
    error_title: ClassVar[str] = HISTORY_ERROR_TITLE
    wa_message_id: str | None = None
    timestamp: str | None = None
    error_code: int | None = None
    error_message: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    def dedup_key(self) -> str:
        """By wamid when the row has one, else by its position in the sync."""
        if self.wa_message_id:
            return f"history:{self.wa_message_id}"
        return f"history_error:{self.thread_id}:{self.chunk_order}:{self.timestamp}"


@dataclass(frozen=True, kw_only=True)
class ChannelError(ItemBase):
    """An ``errors[]`` entry at change level (e.g. 2593109: the business declined history sharing)."""

    kind: ClassVar[str] = "channel_error"
    change_field: str
    code: int | None = None
    title: str | None = None
    message: str | None = None
    details: str | None = None

    def dedup_key(self) -> str:
        """Errors carry no id; the field, code and time identify them."""
        return f"channel_error:{self.change_field}:{self.code}:{self.occurred_at.isoformat()}"


@dataclass(frozen=True, kw_only=True)
class Skipped(ItemBase):
    """Something the channel sent that the service does not apply, and why: logged at INFO, not stored."""

    kind: ClassVar[str] = "skipped"
    change_field: str
    what: str
    reason: str

    def dedup_key(self) -> str:
        """Never claimed (nothing is applied); unique enough for a log line."""
        return f"skipped:{self.change_field}:{self.what}:{self.occurred_at.isoformat()}"


@dataclass(frozen=True, kw_only=True)
class UsernameUpdate(ItemBase):
    """The upstream decided on a business username (``business_username_updates``)."""

    kind: ClassVar[str] = "username_update"
    username: str | None = None
    status: str

    def dedup_key(self) -> str:
        """One decision per number, username and status."""
        return f"username_update:{self.display_phone_number}:{self.username}:{self.status}"


InboundItem = (
    InboundMessage
    | MessageEdit
    | MessageRevoke
    | HistoryMedia
    | StatusUpdate
    | SharedContactPhone
    | IdentityChange
    | PhoneNumberChange
    | EchoMessage
    | HistoryMessage
    | HistoryError
    | ChannelError
    | Skipped
    | UsernameUpdate
    | TemplateUpdate
)

ITEM_TYPES: dict[str, type[ItemBase]] = {
    cls.kind: cls
    for cls in (
        InboundMessage,
        MessageEdit,
        MessageRevoke,
        HistoryMedia,
        StatusUpdate,
        SharedContactPhone,
        IdentityChange,
        PhoneNumberChange,
        EchoMessage,
        HistoryMessage,
        HistoryError,
        ChannelError,
        Skipped,
        UsernameUpdate,
        TemplateUpdate,
    )
}


def item_to_dict(item: ItemBase) -> dict[str, Any]:
    """Serialize an item to a JSON-ready dict carrying its ``kind``."""
    data: dict[str, Any] = {"kind": item.kind}
    for f in dataclasses.fields(item):
        value = getattr(item, f.name)
        data[f.name] = value.isoformat() if isinstance(value, datetime) else value
    return data


def item_from_dict(data: dict[str, Any]) -> InboundItem:
    """Rebuild an item serialized by ``item_to_dict``."""
    cls = ITEM_TYPES.get(data.get("kind", ""))
    if cls is None:
        raise ValueError(f"unknown inbound item kind {data.get('kind')!r}")
    names = {f.name for f in dataclasses.fields(cls)}
    kwargs = {k: v for k, v in data.items() if k in names}
    kwargs["occurred_at"] = datetime.fromisoformat(kwargs["occurred_at"])
    return cls(**kwargs)  # type: ignore[return-value]
