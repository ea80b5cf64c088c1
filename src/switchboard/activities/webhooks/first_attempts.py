"""A delivery's first attempt made by the API process that committed it, before its DeliverWebhook run starts.

Why: started first, a run made its attempt 1 as a local activity in the API's delivery worker. That cost
two workflow activations in the SDK, the local activity's machinery, and in the Temporal server a history
of ten events (the local activity's marker, two patch markers with their search-attribute upserts). Posted
first, the outcome goes into the run's input (``DeliveryInput.first_attempt``), and a delivery the receiver
took at once is a run of one workflow task and five events: about a tenth less CPU an inbound message, and
no wait on the SDK's hops before the POST (docs/operations.md, Performance, the latest round).

Durability is the outbox's, as it was. The event and its deliveries are committed before any of this, and
the event is stamped dispatched only after its runs have started. A process that dies midway leaves the
event unstamped, and the outbox sweeper starts the runs; a run's attempt 1 returns the attempt already
recorded instead of posting again. An attempt posted but not yet recorded when the process died is posted
again by the run: delivery is at least once, as everywhere. The sweeper leaves events alone for longer than
an attempt can take (``activities/webhooks/config.py``), so it does not start a run while this one posts.

The channel's request does not wait for the POST: the attempts and starts run in tasks of their own, at
most ``size`` deliveries at once; past that a delivery is started as before and its run makes attempt 1.
The API's shutdown waits for the tasks (``drain``), each bounded by the request timeout and a start's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from switchboard.activities.webhooks.types import AttemptInput, AttemptResult, DeliveryRef
from switchboard.models.base import utcnow

log = logging.getLogger("switchboard.webhooks")

Attempt = Callable[[AttemptInput], Awaitable[AttemptResult]]


class FirstAttempts:
    """Runs first attempts and the starts after them in background tasks, ``size`` deliveries at most."""

    def __init__(self, attempt: Attempt, size: int) -> None:
        self._attempt = attempt
        self._free = size
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    @property
    def in_flight(self) -> int:
        """Background tasks not finished yet."""
        return len(self._tasks)

    def begin(self, count: int, work: Callable[[], Coroutine[Any, Any, None]]) -> bool:
        """Run ``work()`` in a task holding ``count`` of the slots; False (and nothing run) when they are not free."""
        if self._closed or count > self._free:
            return False
        self._free -= count
        task = asyncio.create_task(work(), name="webhooks-first-attempts")
        self._tasks.add(task)
        task.add_done_callback(lambda done: self._finished(done, count))
        return True

    def _finished(self, task: asyncio.Task[None], count: int) -> None:
        self._tasks.discard(task)
        self._free += count
        if not task.cancelled() and task.exception() is not None:
            # The event stays unstamped: the outbox sweeper starts what this did not.
            log.error("first attempts failed; left to the outbox sweeper", exc_info=task.exception())

    async def attempt_each(self, deliveries: list[DeliveryRef]) -> dict[str, AttemptResult]:
        """Attempt 1 of each delivery, at once; one that raised (the database) is left to its run."""
        at = utcnow()
        outcomes = await asyncio.gather(
            *(self._attempt(AttemptInput(delivery_id=d.delivery_id, attempt=1, at=at)) for d in deliveries),
            return_exceptions=True,
        )
        results: dict[str, AttemptResult] = {}
        for delivery, outcome in zip(deliveries, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                log.warning(
                    "first attempt not made here; its run makes it",
                    extra={"delivery_id": delivery.delivery_id},
                    exc_info=outcome,
                )
            else:
                results[delivery.delivery_id] = outcome
        return results

    async def drain(self) -> None:
        """Take no more work, and wait for the tasks in flight (each ends within its timeouts)."""
        self._closed = True
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
