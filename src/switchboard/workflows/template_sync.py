"""SyncTemplates: every hour, re-read each WABA's templates from the upstream (safety net).

Template status webhooks apply approvals as they happen; this schedule catches
what they missed (a lost delivery, a template created outside the service, an
UNARCHIVED event that does not say the status). Each run syncs at most
``per_run`` WABAs (50 by default) one after another (gentle on the upstream's app-level
rate limit), then continues as new after the last one, so the history stays
bounded however many WABAs there are. A WABA whose read keeps failing is
logged and skipped; the next run tries it again. Reads never overwrite a newer
webhook change, so the run is safe to repeat or overlap.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError

from switchboard.workflows.policies import HOUSEKEEPING, TEMPLATE_SYNC

with workflow.unsafe.imports_passed_through():
    from switchboard.activities.template_sync import TemplateSyncActivities
    from switchboard.models.template_sync import (
        SyncWabaInput,
        TemplateSyncInput,
        TemplateSyncTotals,
        WabaPageInput,
    )


@workflow.defn(name="SyncTemplates")
class SyncTemplatesWorkflow:
    """Reads every provisioned WABA's templates through the same code as POST .../templates/sync."""

    @workflow.run
    async def run(self, request: TemplateSyncInput | None = None) -> TemplateSyncTotals:
        request = request or TemplateSyncInput()
        totals = request.totals.model_copy()
        page = await workflow.execute_activity_method(
            TemplateSyncActivities.list_template_wabas,
            WabaPageInput(after=request.after, limit=request.per_run),
            **HOUSEKEEPING,
        )
        for waba_id in page.waba_ids:
            try:
                synced = await workflow.execute_activity_method(
                    TemplateSyncActivities.sync_waba_templates,
                    SyncWabaInput(waba_id=waba_id),
                    **TEMPLATE_SYNC,
                )
            except ActivityError as error:
                workflow.logger.warning(
                    "template sync of a WABA failed; the next run retries it",
                    extra={"waba_id": waba_id, "error": str(error.cause or error)},
                )
                totals.failed += 1
                continue
            totals.wabas += 1
            totals.templates += synced.synced
            totals.changed += synced.changed
        if page.next_after is not None:
            workflow.continue_as_new(
                TemplateSyncInput(after=page.next_after, per_run=request.per_run, totals=totals)
            )
        return totals
