"""The simulator's in-memory state (one instance per app, kept on ``app.state``)."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from switchboard.simulator.config import SimPhoneNumber, SimulatorConfig

log = logging.getLogger("switchboard.simulator")

_LOG_LIMIT = 2000


@dataclass
class MessageRecord:
    """One message that went through the simulator, either way."""

    direction: str
    phone_number_id: str
    received_at: int
    kind: str = "message"
    wamid: str | None = None
    to: str | None = None
    recipient: str | None = None
    wa_id: str | None = None
    type: str | None = None
    body: dict[str, Any] = field(default_factory=dict)
    outcome: str = "accepted"
    http_status: int = 200
    error_code: int | None = None
    statuses: list[str] = field(default_factory=list)


@dataclass
class MediaItem:
    """An uploaded (or customer-sent) media object."""

    id: str
    phone_number_id: str
    mime_type: str
    data: bytes
    sha256: str
    created_at: int
    filename: str | None = None


@dataclass
class TemplateRecord:
    """A message template as the channel stores it."""

    id: str
    waba_id: str
    name: str
    language: str
    category: str
    parameter_format: str
    components: list[Any]
    status: str = "PENDING"
    extra: dict[str, Any] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        """The template as Graph lists it."""
        return {
            "name": self.name,
            "status": self.status,
            "category": self.category,
            "language": self.language,
            "parameter_format": self.parameter_format,
            "components": self.components,
            "id": self.id,
            **self.extra,
        }


@dataclass
class UsernameRecord:
    """A business username set on a phone number."""

    username: str
    status: str


@dataclass
class CustomerProfile:
    """What the simulator learned about a customer from ``/_sim/inbound``."""

    wa_id: str | None
    name: str | None = None
    user_id: str | None = None
    parent_user_id: str | None = None
    username: str | None = None


@dataclass
class DeliveryRecord:
    """One webhook the simulator posted (or gave up posting) to the service."""

    kind: str
    url: str
    delivered: bool
    attempts: int
    at: int
    status_code: int | None = None
    error: str | None = None
    wamid: str | None = None
    status: str | None = None


@dataclass
class SimState:
    """All mutable simulator state; reset by ``POST /_sim/reset``."""

    config: SimulatorConfig
    messages: deque[MessageRecord] = field(default_factory=lambda: deque(maxlen=_LOG_LIMIT))
    deliveries: deque[DeliveryRecord] = field(default_factory=lambda: deque(maxlen=_LOG_LIMIT))
    media: dict[str, MediaItem] = field(default_factory=dict)
    templates: dict[str, TemplateRecord] = field(default_factory=dict)
    usernames: dict[str, UsernameRecord] = field(default_factory=dict)
    customers: dict[str, CustomerProfile] = field(default_factory=dict)
    last_inbound_at: dict[tuple[str, str], int] = field(default_factory=dict)
    flaky_counts: dict[str, int] = field(default_factory=dict)
    phone_numbers: dict[str, SimPhoneNumber] = field(default_factory=dict)
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.phone_numbers.update(self.config.phone_numbers)

    def reset(self) -> None:
        """Forget everything learned since start-up (background tasks keep running)."""
        for store in (self.messages, self.deliveries, self.media, self.templates, self.usernames):
            store.clear()
        self.customers.clear()
        self.last_inbound_at.clear()
        self.flaky_counts.clear()
        self.phone_numbers.clear()
        self.phone_numbers.update(self.config.phone_numbers)

    def phone(self, phone_number_id: str) -> SimPhoneNumber:
        """The business number's display form and WABA, with the configured defaults."""
        known = self.phone_numbers.get(phone_number_id)
        if known is not None:
            return known
        return SimPhoneNumber(self.config.default_display_phone_number, self.config.default_waba_id)

    def find_message(self, wamid: str) -> MessageRecord | None:
        """The logged message with this wamid, if still in the log."""
        return next((record for record in self.messages if record.wamid == wamid), None)

    def customer_by_wa_id(self, wa_id: str) -> CustomerProfile | None:
        """A customer profile by phone, if one was played through ``/_sim/inbound``."""
        return self.customers.get(wa_id)

    def customer_by_user_id(self, user_id: str) -> CustomerProfile | None:
        """A customer profile by BSUID."""
        return next((c for c in self.customers.values() if c.user_id == user_id), None)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a background job that must not block a response; shutdown cancels it."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("simulator background job failed", exc_info=task.exception())

    async def shutdown(self) -> None:
        """Cancel background jobs and wait for them to stop."""
        pending = list(self.tasks)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
