"""Template webhooks: a WABA's templates changed approval status, quality score or category.

``message_template_status_update``, ``message_template_quality_update`` and
``template_category_update`` are WABA-level changes: no metadata and no phone
number, only the WABA (``entry[].id``), the template's upstream id (an integer
on the wire), its name and language, and the entry's ``time``. That time is the
only clock the upstream gives for these changes, so it is what orders two
changes of one template that arrive out of order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from switchboard.domain.inbound.base import ItemBase
from switchboard.domain.inbound.content import as_str

if TYPE_CHECKING:
    from switchboard.domain.inbound.items import InboundItem

STATUS_CHANGE = "message_template_status_update"
QUALITY_CHANGE = "message_template_quality_update"
CATEGORY_CHANGE = "template_category_update"
_ATTRIBUTES = {STATUS_CHANGE: "status", QUALITY_CHANGE: "quality", CATEGORY_CHANGE: "category"}
TEMPLATE_CHANGE_FIELDS = tuple(_ATTRIBUTES)


@dataclass(frozen=True, kw_only=True)
class TemplateUpdate(ItemBase):
    """One change of one template: a status event, a new quality score or a new category."""

    kind: ClassVar[str] = "template_update"
    change_field: str
    template_id: str | None = None
    name: str | None = None
    language: str | None = None
    # Status updates: the upstream's event (APPROVED, REJECTED, PAUSED, ...) and its reason.
    event: str | None = None
    reason: str | None = None
    # Status updates carry the template's category; category updates the new one.
    category: str | None = None
    previous_category: str | None = None
    new_quality_score: str | None = None
    previous_quality_score: str | None = None

    @property
    def attribute(self) -> str:
        """What the change is about: status, quality or category."""
        return _ATTRIBUTES[self.change_field]

    @property
    def new_value(self) -> str | None:
        """The value the change reports (the event, the new score or the new category)."""
        return {"status": self.event, "quality": self.new_quality_score, "category": self.category}[
            self.attribute
        ]

    def order_prefix(self) -> str:
        """The ledger-key prefix shared by every change of this attribute of this template."""
        return f"template_{self.attribute}:{self.template_id or f'{self.name}:{self.language}'}:"

    def order_key(self, epoch_seconds: int) -> str:
        """A ledger key for this attribute at ``epoch_seconds``; keys sort by time (zero-padded)."""
        return f"{self.order_prefix()}{epoch_seconds:012d}"

    def dedup_key(self) -> str:
        """Template, attribute, upstream time and value: a redelivery repeats all four."""
        return f"{self.order_key(int(self.occurred_at.timestamp()))}:{self.new_value}"


def _language(raw: Any) -> str | None:
    # Quality updates spell locales with a dash (en-US) where everything else uses en_US.
    text = as_str(raw)
    return text.replace("-", "_") if text else None


def _upper(raw: Any) -> str | None:
    text = as_str(raw)
    return text.strip().upper() if text and text.strip() else None


def parse_template_change(field: str) -> Callable[..., list[InboundItem]]:
    """The envelope parser of one template change field (``value`` is a single change)."""

    def parse(value: dict[str, Any], *, base: dict[str, Any]) -> list[InboundItem]:
        template_id = as_str(value.get("message_template_id"))
        name = as_str(value.get("message_template_name"))
        language = _language(value.get("message_template_language"))
        if template_id is None and (name is None or language is None):
            return []
        update = TemplateUpdate(
            **base,
            change_field=field,
            template_id=template_id,
            name=name,
            language=language,
            event=_upper(value.get("event")),
            reason=as_str(value.get("reason")),
            category=_upper(value.get("new_category") or value.get("message_template_category")),
            previous_category=_upper(value.get("previous_category")),
            new_quality_score=_upper(value.get("new_quality_score")),
            previous_quality_score=_upper(value.get("previous_quality_score")),
        )
        items: list[InboundItem] = [update] if update.new_value is not None else []
        return items

    return parse
