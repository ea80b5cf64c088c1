"""Every activity of the service, bound to its dependencies.

Add one line per activity class here; worker.py registers the result.
"""

from __future__ import annotations

from typing import Any

from activities.deps import ActivityDeps
from activities.maintenance import MaintenanceActivities


def build_activities(deps: ActivityDeps) -> list[Any]:
    """All activity callables."""
    maintenance = MaintenanceActivities(deps.engine)
    return [maintenance.prune_rate_limit_counters]
