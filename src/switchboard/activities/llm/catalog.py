"""The provider catalogue that ``GET /v1/agent-providers`` shows, as plain JSON-ready dicts."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from switchboard.activities.llm.rate_cards import RateCardBook


def provider_catalog(
    book: RateCardBook, *, at: datetime, configured: Collection[str] | None = None
) -> list[dict[str, Any]]:
    """Each provider with its models, the rate card in effect at ``at`` and any scheduled rows.

    ``configured`` names the providers that have an API key, when the caller knows it.
    """
    catalog: list[dict[str, Any]] = []
    for provider in book.providers:
        models = []
        for model in book.models_for(provider):
            current = book.card_for(provider, model, at)
            scheduled = [
                row.as_dict()
                for row in book.rows_for(provider, model)
                if row.effective_from > at and row is not current
            ]
            models.append({"model": model, "rate_card": current.as_dict(), "scheduled": scheduled})
        entry: dict[str, Any] = {"name": provider, "models": models}
        if configured is not None:
            entry["configured"] = provider in configured
        catalog.append(entry)
    return catalog
