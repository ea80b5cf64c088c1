"""The wizard's public models (what the caller persists and receives) and its fixed texts and limits."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

CONFIRM_ID = "wizard_confirm"
CANCEL_ID = "wizard_cancel"
CONFIRM_TITLE = "Confirmar"
CANCEL_TITLE = "Cancelar"
LIST_BUTTON_LABEL = "Elegir"
LIST_SECTION_TITLE = "Opciones"

MAX_BUTTONS = 3
MAX_LIST_ROWS = 10
BODY_MAX = 1024
BUTTON_TITLE_MAX = 20
ROW_TITLE_MAX = 24
SECTION_TITLE_MAX = 24
LIST_BUTTON_MAX = 20
OPTION_ID_MAX = 200

DATE_FORMAT_REASON = "Formato de fecha: DD/MM/AAAA"
TIME_FORMAT_REASON = "Formato de hora: HH:MM (por ejemplo 10:30)"
EMAIL_REASON = "Escribí un email válido, por ejemplo nombre@dominio.com"
BOOLEAN_REASON = "Respondé Sí o No"
EMPTY_REASON = "Necesito que respondas con un mensaje de texto"
CONFIRM_REASON = "Respondé Confirmar o Cancelar"
INVALID_REASON = "La respuesta no es válida"
RESTART_REASON = "Hay datos que no son válidos; empecemos de nuevo"
DEFAULT_HINT = "No se pudo completar la reserva"


class WizardState(BaseModel):
    """What the caller persists (as JSON) between turns."""

    tool_slug: str
    answers: dict[str, Any] = Field(default_factory=dict)
    pending_field: str | None = None
    awaiting_confirmation: bool = False
    attempts: int = 0


class WizardOption(BaseModel):
    """One reply button or list row: ``id`` comes back as the reply id, ``title`` is shown."""

    id: str
    title: str


class WizardQuestion(BaseModel):
    """A question for the customer; ``options`` only for ``buttons`` and ``list``."""

    text: str
    kind: Literal["text", "buttons", "list"]
    options: list[WizardOption] = Field(default_factory=list)


class WizardStep(BaseModel):
    """The wizard's answer to one call; see the package docstring for each action."""

    action: Literal["ask", "confirm", "reserve", "cancelled"]
    state: WizardState | None = None
    question: WizardQuestion | None = None
    arguments: dict[str, Any] | None = None
    error: str | None = None
