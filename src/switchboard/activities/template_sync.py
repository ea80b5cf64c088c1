"""Reading a WABA's templates from the upstream: the one sync ``/sync`` and the periodic sync share.

Template status webhooks normally keep approvals current; a lost or never-sent
webhook would leave a template PENDING (and its sends refused) for good, so the
``SyncTemplates`` schedule re-reads every WABA's templates as a safety net.
Both paths page through ``GET /{waba_id}/message_templates`` with
``pull_templates`` and store the read with ``store.templates.record_read``,
which never lets a read overwrite a newer webhook change.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from sqlmodel import select
from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from switchboard.activities.channel import channel_client, raise_retryable
from switchboard.activities.channel_client import ChannelError
from switchboard.activities.deps import ActivityDeps
from switchboard.domain.failure_types import TEMPLATE_SYNC_REFUSED
from switchboard.domain.templates import TemplateRecordFields, parse_upstream_template
from switchboard.models.base import utcnow
from switchboard.models.messaging import Template
from switchboard.models.template_sync import SyncWabaInput, SyncWabaResult, WabaPage, WabaPageInput
from switchboard.models.tenancy import Waba
from switchboard.store import templates
from switchboard.store.database import unit_of_work

log = logging.getLogger("switchboard.templates")

# Pages read per sync at most (the upstream allows 6,000 templates per verified WABA).
MAX_SYNC_PAGES = 50
PAGE_SIZE = 100

GetPage = Callable[[dict[str, Any]], Awaitable[Mapping[str, Any]]]


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _next_cursor(page: Mapping[str, Any]) -> str | None:
    paging = _mapping(page.get("paging"))
    cursors = _mapping(paging.get("cursors"))
    # The upstream leaves ``next`` out on the last page (its ``after`` cursor is still there).
    after = cursors.get("after") if paging.get("next") else None
    return str(after) if after else None


async def pull_templates(get_page: GetPage) -> list[TemplateRecordFields]:
    """Every template of a WABA, page by page (at most ``MAX_SYNC_PAGES``); ``get_page`` raises on errors."""
    entries: list[Mapping[str, Any]] = []
    params: dict[str, Any] = {"limit": PAGE_SIZE}
    for _ in range(MAX_SYNC_PAGES):
        page = await get_page(params)
        entries.extend(entry for entry in page.get("data") or [] if isinstance(entry, Mapping))
        after = _next_cursor(page)
        if after is None:
            break
        params = {"limit": PAGE_SIZE, "after": after}
    return [parse_upstream_template(entry) for entry in entries]


class TemplateSyncActivities:
    """The periodic template sync's reads and writes."""

    def __init__(self, deps: ActivityDeps) -> None:
        self._deps = deps
        self._channel = channel_client(deps)

    @activity.defn(name="list_template_wabas")
    async def list_template_wabas(self, request: WabaPageInput) -> WabaPage:
        """A page of provisioned WABA ids in id order, and where the next page starts."""
        stmt = select(Waba.waba_id).order_by(Waba.waba_id).limit(request.limit + 1)
        if request.after is not None:
            stmt = stmt.where(Waba.waba_id > request.after)
        async with self._deps.sessions() as session:
            ids = list((await session.execute(stmt)).scalars())
        more = len(ids) > request.limit
        ids = ids[: request.limit]
        return WabaPage(waba_ids=ids, next_after=ids[-1] if more else None)

    async def _page(self, waba: Waba, params: dict[str, Any]) -> Mapping[str, Any]:
        try:
            body = await self._channel.call(waba, "GET", f"{waba.waba_id}/message_templates", params=params)
        except ChannelError as exc:
            if exc.failure.retryable:
                raise_retryable(exc.failure)
            # A revoked token or a WABA the app lost: retrying will not help; the next run tries again.
            raise ApplicationError(
                exc.failure.error_message,
                type=TEMPLATE_SYNC_REFUSED,
                non_retryable=True,
                # The workflow logs the refusal as one line; no traceback from the SDK.
                category=ApplicationErrorCategory.BENIGN,
            ) from exc
        activity.heartbeat(params.get("after"))
        if not isinstance(body, Mapping):
            raise ApplicationError(
                "a template page that is not an object", type=TEMPLATE_SYNC_REFUSED, non_retryable=True
            )
        return body

    @activity.defn(name="sync_waba_templates")
    async def sync_waba_templates(self, request: SyncWabaInput) -> SyncWabaResult:
        """Read one WABA's templates from the upstream and store them (idempotent)."""
        waba_id = request.waba_id
        async with self._deps.sessions() as session:
            waba = (await session.execute(select(Waba).where(Waba.waba_id == waba_id))).scalars().first()
            if waba is None:
                return SyncWabaResult(waba_id=waba_id)
            tenant_id = waba.tenant_id
            before = dict(
                (
                    await session.execute(
                        select(Template.id, Template.status).where(Template.waba_id == waba_id)
                    )
                )
                .tuples()
                .all()
            )
        read_at = utcnow()

        async def get_page(params: dict[str, Any]) -> Mapping[str, Any]:
            return await self._page(waba, params)

        entries = await pull_templates(get_page)
        async with unit_of_work(self._deps.sessions) as session:
            rows = await templates.record_read(
                session, tenant_id=tenant_id, waba_id=waba_id, entries=entries, read_at=read_at
            )
            changed = sum(1 for row in rows if before.get(row.id) != row.status)
        if changed:
            log.info(
                "template sync changed statuses",
                extra={"waba_id": waba_id, "tenant_id": tenant_id, "changed": changed, "synced": len(rows)},
            )
        return SyncWabaResult(waba_id=waba_id, synced=len(rows), changed=changed)


def template_sync_activities(deps: ActivityDeps) -> list[Any]:
    """The template sync activities bound to ``deps`` (for activities/all_activities.py)."""
    sync = TemplateSyncActivities(deps)
    return [sync.list_template_wabas, sync.sync_waba_templates]
