"""Typed inputs and results of the webhook workflows and activities (ids only, never rows)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from switchboard.domain.webhook_policy import WebhookPolicy


class ScheduleTerms(BaseModel):
    """The part of the policy the delivery workflow needs to time its retries."""

    retry_schedule_seconds: list[float]
    jitter_ratio: float
    overload_floor_seconds: float
    retry_after_max_seconds: float

    @classmethod
    def of(cls, policy: WebhookPolicy) -> ScheduleTerms:
        return cls(
            retry_schedule_seconds=list(policy.retry_schedule_seconds),
            jitter_ratio=policy.jitter_ratio,
            overload_floor_seconds=policy.overload_floor_seconds,
            retry_after_max_seconds=policy.retry_after_max_seconds,
        )

    def policy(self) -> WebhookPolicy:
        """A policy carrying these terms (the rest keeps its defaults; the workflow needs only these)."""
        return WebhookPolicy(
            retry_schedule_seconds=tuple(self.retry_schedule_seconds),
            jitter_ratio=self.jitter_ratio,
            overload_floor_seconds=self.overload_floor_seconds,
            retry_after_max_seconds=self.retry_after_max_seconds,
        )


class DeliveryRef(BaseModel):
    """One event to one webhook; ``delivery_id`` is the envelope's delivery_id."""

    delivery_id: str
    webhook_id: str
    event_id: str
    event_kind: str


class DispatchPlan(BaseModel):
    """The deliveries an event needs and the retry terms they run under."""

    event_found: bool
    deliveries: list[DeliveryRef]
    schedule: ScheduleTerms


class AttemptInput(BaseModel):
    delivery_id: str
    attempt: int
    # Workflow time of the attempt: the health and auto-disable clock runs on
    # it, so a time-skipping test server moves it like production time.
    at: datetime


class AttemptResult(BaseModel):
    """One attempt's outcome as recorded (``stopped``: the webhook is gone or disabled, nothing sent)."""

    stopped: bool = False
    success: bool = False
    status_code: int | None = None
    latency_ms: int | None = None
    error: str | None = None
    timed_out: bool = False
    retry_after_seconds: float | None = None
    notification_ids: list[str] = []
    # A success settles the delivery in the attempt's own transaction (no finish activity needed).
    settled: bool = False


class DeliveryInput(BaseModel):
    """What the DeliverWebhook workflow runs on.

    ``first_attempt``: set only in runs started while an API process made a delivery's first attempt
    before starting its run (an attempt already posted and recorded, which the run took as its attempt
    1). Nothing sets it now; it stays until those runs have closed (docs/versioning.md), and is None in
    every run started since, which makes every attempt itself.
    """

    delivery: DeliveryRef
    schedule: ScheduleTerms
    first_attempt: AttemptResult | None = None


class DeliveryOutcome(StrEnum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    GONE = "gone"
    CANCELED = "canceled"


class FinishInput(BaseModel):
    delivery_id: str
    outcome: DeliveryOutcome
    at: datetime


class FinishResult(BaseModel):
    auto_disabled: bool = False
    notification_ids: list[str] = []


class DeliveryReport(BaseModel):
    """What a DeliverWebhook run ends with."""

    delivery_id: str
    outcome: DeliveryOutcome
    attempts: int
    auto_disabled: bool = False


class SweepResult(BaseModel):
    events: int
    notifications: int


class ResendRef(BaseModel):
    """A delivery to resend and the attempt count it had when chosen (the resend is attempt count + 1)."""

    delivery_id: str
    attempts: int


class RecoveryProgress(BaseModel):
    """How far a recovery is (the ``progress`` query and the workflow's result)."""

    total: int
    done: int = 0
    succeeded: int = 0
    failed: int = 0
    completed: bool = False

    @property
    def pending(self) -> int:
        return max(self.total - self.done, 0)


class RecoveryInput(BaseModel):
    """What RecoverDeliveries runs on: a webhook's failed deliveries of [since, until), or the given ones.

    ``after`` and ``progress`` carry a run's place into the next one (continue-as-new).
    """

    recovery_id: str
    tenant_id: str
    webhook_id: str
    since: datetime | None = None
    until: datetime | None = None
    deliveries: list[ResendRef] | None = None
    after: str | None = None
    progress: RecoveryProgress


def recovery_memo(recovery: RecoveryInput, progress: RecoveryProgress) -> dict[str, Any]:
    """What a recovery's workflow carries in its memo, so the API reads it without a worker: its
    tenant (another tenant's is a 404), its terms, and its progress (updated as it goes)."""
    return {
        "tenant_id": recovery.tenant_id,
        "webhook_id": recovery.webhook_id,
        "since": recovery.since.isoformat() if recovery.since else None,
        "until": recovery.until.isoformat() if recovery.until else None,
        "delivery_ids": [ref.delivery_id for ref in recovery.deliveries or []],
        "progress": progress.model_dump(),
    }


class RecoveryPageInput(BaseModel):
    webhook_id: str
    since: datetime
    until: datetime
    after: str | None
    limit: int


class ResendInput(BaseModel):
    target: ResendRef
    # Workflow time of the attempt (as AttemptInput.at).
    at: datetime


class ResendResult(BaseModel):
    """One resend's outcome, and the owner notifications it raised (mailed by the workflow)."""

    outcome: DeliveryOutcome
    notification_ids: list[str] = []
