"""Pure reading of the channel's inbound webhooks into typed, JSON-serializable items."""

from __future__ import annotations

from switchboard.domain.inbound.envelope import (
    ENVELOPE_OBJECT,
    InvalidWebhookEnvelope,
    decode_body,
    parse_envelope,
    payload_id,
)
from switchboard.domain.inbound.items import (
    HISTORY_ERROR_TITLE,
    HISTORY_ERROR_TYPE,
    ITEM_TYPES,
    SOURCE_HUMAN_COEXISTENCE,
    ChannelError,
    EchoMessage,
    HistoryError,
    HistoryMessage,
    IdentityChange,
    InboundItem,
    InboundMessage,
    PhoneNumberChange,
    SharedContactPhone,
    StatusUpdate,
    UsernameUpdate,
    item_from_dict,
    item_to_dict,
)
from switchboard.domain.inbound.templates import (
    CATEGORY_CHANGE,
    QUALITY_CHANGE,
    STATUS_CHANGE,
    TemplateUpdate,
)

__all__ = [
    "CATEGORY_CHANGE",
    "ENVELOPE_OBJECT",
    "HISTORY_ERROR_TITLE",
    "HISTORY_ERROR_TYPE",
    "ITEM_TYPES",
    "SOURCE_HUMAN_COEXISTENCE",
    "ChannelError",
    "EchoMessage",
    "HistoryError",
    "HistoryMessage",
    "IdentityChange",
    "InboundItem",
    "InboundMessage",
    "InvalidWebhookEnvelope",
    "PhoneNumberChange",
    "QUALITY_CHANGE",
    "STATUS_CHANGE",
    "SharedContactPhone",
    "StatusUpdate",
    "TemplateUpdate",
    "UsernameUpdate",
    "decode_body",
    "item_from_dict",
    "item_to_dict",
    "parse_envelope",
    "payload_id",
]
