"""Owner notifications (webhook.disabled_auto, webhook.degraded, webhook.failing, webhook.reactivated) by email.

With ``SMTP_URL`` set the notification is mailed to the tenant's
``notification_email``; without it (or without a recipient) it stays stored
and is logged. Each row is claimed before sending, so one transition is mailed
once even when the delivery workflow and the outbox sweeper race.

``SMTP_URL`` forms: ``smtp://[user:password@]host[:port]`` (plain, port 25;
add ``?starttls=true`` to upgrade), ``smtps://...`` (implicit TLS, port 465);
``?from=alerts@example.com`` sets the sender (default
``switchboard@localhost``).
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
from dataclasses import dataclass
from email.message import EmailMessage
from urllib.parse import parse_qs, unquote, urlsplit

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from switchboard.activities.deps import ActivityDeps
from switchboard.domain.failure_types import SMTP_FAILED, SMTP_MISCONFIGURED
from switchboard.models.base import utcnow
from switchboard.settings import Settings
from switchboard.store.database import unit_of_work
from switchboard.store.webhooks import notifications

log = logging.getLogger("switchboard.notifications")

SMTP_TIMEOUT_SECONDS = 10.0
MAILED = "mailed"
STORED = "stored"
NO_RECIPIENT = "no_recipient"


@dataclass(frozen=True)
class SmtpTarget:
    host: str
    port: int
    implicit_tls: bool
    starttls: bool
    username: str | None
    password: str | None
    sender: str


def parse_smtp_url(url: str) -> SmtpTarget:
    """Read ``SMTP_URL``; raises ValueError for another scheme or a missing host."""
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ValueError("SMTP_URL must look like smtp://[user:password@]host[:port] or smtps://...")
    query = parse_qs(parts.query)
    implicit_tls = parts.scheme == "smtps"
    return SmtpTarget(
        host=parts.hostname,
        port=parts.port or (465 if implicit_tls else 25),
        implicit_tls=implicit_tls,
        starttls=query.get("starttls", ["false"])[0].lower() in ("1", "true", "yes"),
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        sender=query.get("from", ["switchboard@localhost"])[0],
    )


def send_mail(target: SmtpTarget, *, recipient: str, subject: str, body: str) -> None:
    """Send one plain-text mail (blocking: run it in a thread)."""
    message = EmailMessage()
    message["From"] = target.sender
    message["To"] = recipient
    message["Subject"] = subject
    message.set_content(body)
    smtp_class = smtplib.SMTP_SSL if target.implicit_tls else smtplib.SMTP
    with smtp_class(target.host, target.port, timeout=SMTP_TIMEOUT_SECONDS) as smtp:
        if target.starttls:
            smtp.starttls()
        if target.username:
            smtp.login(target.username, target.password or "")
        smtp.send_message(message)


async def deliver_notification(
    sessions: async_sessionmaker[AsyncSession], settings: Settings, notification_id: str
) -> str | None:
    """Mail (or store and log) one notification; None when another sender has it or it is done.

    A failed SMTP exchange releases the claim and raises, so the caller's
    retries (or the outbox sweeper) try again.
    """
    async with unit_of_work(sessions) as session:
        note = await notifications.claim(session, notification_id, now=utcnow())
    if note is None:
        return None
    fields = {
        "notification_id": note.id,
        "tenant_id": note.tenant_id,
        "kind": note.kind,
        "webhook_id": note.webhook_id,
    }
    if not note.recipient:
        delivery = NO_RECIPIENT
        log.warning("owner notification not mailed: the tenant has no notification_email", extra=fields)
    elif not settings.smtp_url:
        delivery = STORED
        log.info("owner notification stored (SMTP_URL unset): %s", note.subject, extra=fields)
    else:
        try:
            target = parse_smtp_url(settings.smtp_url)
            await asyncio.to_thread(
                send_mail, target, recipient=note.recipient, subject=note.subject, body=note.body
            )
        except (OSError, smtplib.SMTPException, ValueError):
            async with unit_of_work(sessions) as session:
                await notifications.settle(session, note.id, delivery=notifications.PENDING, sent_at=None)
            raise
        delivery = MAILED
        log.info("owner notification mailed", extra=fields)
    async with unit_of_work(sessions) as session:
        await notifications.settle(
            session, note.id, delivery=delivery, sent_at=utcnow() if delivery == MAILED else None
        )
    return delivery


class NotificationActivities:
    """Sends owner notifications from workflows."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps

    @activity.defn(name="notifications.send_owner_notification")
    async def send_owner_notification(self, notification_id: str) -> str | None:
        """Mail one stored notification (retried by Temporal when the SMTP server fails)."""
        try:
            return await deliver_notification(self._deps.sessions, self._deps.settings, notification_id)
        except ValueError as exc:
            raise ApplicationError(str(exc), type=SMTP_MISCONFIGURED, non_retryable=True) from exc
        except (OSError, smtplib.SMTPException) as exc:
            # An SMTP outage is expected: one line, and no traceback from the SDK (BENIGN).
            log.warning(
                "owner notification not mailed; retrying",
                extra={
                    "notification_id": notification_id,
                    "error": str(exc),
                    "attempt": activity.info().attempt,
                },
            )
            raise ApplicationError(
                f"SMTP failed: {exc}", type=SMTP_FAILED, category=ApplicationErrorCategory.BENIGN
            ) from exc
