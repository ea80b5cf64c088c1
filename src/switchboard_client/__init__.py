"""A small typed client for Switchboard's tenant API, and a verifier for its webhooks.

Standalone: it depends on httpx only and imports nothing of the service.
"""

from switchboard_client.client import SwitchboardClient
from switchboard_client.errors import SwitchboardError
from switchboard_client.types import (
    AgentEvent,
    CreatedWebhook,
    Message,
    Page,
    Webhook,
    WebhookTestDispatch,
)
from switchboard_client.webhooks import WebhookVerificationError, sign, sign_standard, verify

__all__ = [
    "AgentEvent",
    "CreatedWebhook",
    "Message",
    "Page",
    "SwitchboardClient",
    "SwitchboardError",
    "Webhook",
    "WebhookTestDispatch",
    "WebhookVerificationError",
    "sign",
    "sign_standard",
    "verify",
]
