"""The send payload as the OpenAPI document shows it: the schema of POST /v1/messages, its examples and
its answer (api/openapi.py puts them on the send operations).
"""

from __future__ import annotations

from typing import Any

from switchboard.domain.message_status import SENT, SENT_SANDBOX
from switchboard.domain.send_payload import MESSAGE_TYPES

# The document lists the same types the validator accepts.
SEND_TYPES = list(MESSAGE_TYPES)

SEND_SCHEMA: dict[str, Any] = {
    "title": "SendMessage",
    "type": "object",
    "description": "One outbound message; `type` selects the object that carries its content. "
    "At least one of `to` and `recipient` is required (`to` wins when both are sent).",
    "required": ["phone_number_id", "type"],
    "properties": {
        "phone_number_id": {
            "type": "string",
            "description": "the channel's numeric id of the business number",
        },
        "to": {
            "type": "string",
            "description": "E.164 without +, 8 to 15 digits",
            "pattern": "^[0-9]{8,15}$",
        },
        "recipient": {"type": "string", "description": "BSUID: US.<chars> or US.ENT.<chars>"},
        "type": {"type": "string", "enum": SEND_TYPES},
        **{name: {"type": ["object", "array"] if name == "contacts" else "object"} for name in SEND_TYPES},
        "context": {"type": "object", "description": "reply to: {message_id}"},
        "biz_opaque_callback_data": {
            "type": "string",
            "maxLength": 512,
            "description": "echoed back in the message of this message's status events",
        },
        "recipient_identity_key_hash": {
            "type": "string",
            "maxLength": 128,
            "description": "the upstream refuses the send (137000) if the user's identity key changed",
        },
        "messaging_product": {"type": "string", "enum": ["whatsapp"]},
        "recipient_type": {"type": "string", "enum": ["individual"]},
    },
    # A field the service would not send is refused by name (docs/messaging.md, "What a send may carry").
    "additionalProperties": False,
}

SEND_EXAMPLES: dict[str, Any] = {
    "text": {
        "summary": "Text",
        "value": {
            "phone_number_id": "106540352242922",
            "to": "5491155551234",
            "type": "text",
            "text": {"body": "Hello from Switchboard"},
        },
    },
    "template": {
        "summary": "Template with a body variable",
        "value": {
            "phone_number_id": "106540352242922",
            "to": "5491155551234",
            "type": "template",
            "template": {
                "name": "order_update",
                "language": {"code": "es_AR"},
                "components": [{"type": "body", "parameters": [{"type": "text", "text": "#1234"}]}],
            },
        },
    },
    "image": {
        "summary": "Image by link",
        "value": {
            "phone_number_id": "106540352242922",
            "to": "5491155551234",
            "type": "image",
            "image": {"link": "https://example.com/photo.jpg", "caption": "Your receipt"},
        },
    },
    "interactive_buttons": {
        "summary": "Interactive reply buttons",
        "value": {
            "phone_number_id": "106540352242922",
            "to": "5491155551234",
            "type": "interactive",
            "interactive": {
                "type": "button",
                "body": {"text": "Confirm your appointment?"},
                "action": {
                    "buttons": [
                        {"type": "reply", "reply": {"id": "yes", "title": "Yes"}},
                        {"type": "reply", "reply": {"id": "no", "title": "No"}},
                    ]
                },
            },
        },
    },
    "bsuid": {
        "summary": "Text to a business-scoped user id",
        "value": {
            "phone_number_id": "106540352242922",
            "recipient": "US.13491208655302741918",
            "type": "text",
            "text": {"body": "Hi"},
        },
    },
}

SENT_EXAMPLES: dict[str, Any] = {
    "live": {
        "summary": "Live key",
        "value": {
            "id": "msg_01J9Z8Q4K7V2",
            "phone_number_id": "106540352242922",
            "direction": "outbound",
            "message_type": "text",
            "wa_message_id": "wamid.HBgNNTQ5MTE1NTU1MTIzNBUCABEYEjQ",
            "status": SENT,
            "to_phone": "5491155551234",
            "created_at": "2026-01-05T14:03:07.512Z",
        },
    },
    "sandbox": {
        "summary": "Sandbox key (gsk_test_)",
        "value": {
            "id": "sandbox-msg_01J9Z8Q4K7V2",
            "phone_number_id": "106540352242922",
            "direction": "outbound",
            "message_type": "text",
            "wa_message_id": "wamid.SANDBOX.3f1c2a",
            "status": SENT_SANDBOX,
            "to_phone": "5491155551234",
            "recipient": None,
            "created_at": "2026-01-05T14:03:07.512Z",
            "_sandbox": True,
            "_note": "Sandbox key: nothing was stored or sent.",
        },
    },
}

SEND_RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id", "phone_number_id", "direction", "message_type", "status"],
    "properties": {
        "id": {"type": "string"},
        "phone_number_id": {"type": "string"},
        "direction": {"type": "string", "enum": ["outbound"]},
        "message_type": {"type": "string"},
        "wa_message_id": {"type": ["string", "null"]},
        "status": {"type": "string"},
        "to_phone": {"type": ["string", "null"]},
        "created_at": {"type": "string"},
    },
    "additionalProperties": True,
}

SEND_PATHS = {"/v1/messages", "/v1/messages/media"}
