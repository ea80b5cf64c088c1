"""Validation of outbound sends (POST /v1/messages) and their WhatsApp Cloud API bodies."""

from __future__ import annotations

from switchboard.domain.send_payload.cloud_body import cloud_api_body, with_media_id
from switchboard.domain.send_payload.models import (
    INTERACTIVE_TYPES,
    MEDIA_TYPES,
    MESSAGE_TYPES,
    ContactCard,
    InteractiveObject,
    LocationObject,
    MediaObject,
    ReactionObject,
    ReplyContext,
    SendRequest,
    TemplateComponent,
    TemplateObject,
    TemplateParameter,
    TextObject,
)
from switchboard.domain.send_payload.template import SENDABLE_STATUSES, ensure_template_sendable
from switchboard.domain.send_payload.validate import parse_send_request
from switchboard.domain.send_payload.variables import (
    check_variable_count,
    render_template_text,
    send_component_params,
    template_variables,
)
from switchboard.domain.send_payload.window import check_conversation_window, requires_open_window

__all__ = [
    "INTERACTIVE_TYPES",
    "MEDIA_TYPES",
    "MESSAGE_TYPES",
    "SENDABLE_STATUSES",
    "ContactCard",
    "InteractiveObject",
    "LocationObject",
    "MediaObject",
    "ReactionObject",
    "ReplyContext",
    "SendRequest",
    "TemplateComponent",
    "TemplateObject",
    "TemplateParameter",
    "TextObject",
    "check_conversation_window",
    "check_variable_count",
    "cloud_api_body",
    "ensure_template_sendable",
    "parse_send_request",
    "render_template_text",
    "requires_open_window",
    "send_component_params",
    "template_variables",
    "with_media_id",
]
