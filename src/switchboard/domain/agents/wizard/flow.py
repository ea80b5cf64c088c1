"""The wizard's steps: start, advance one answer, confirm and reserve, retry after a business error."""

from __future__ import annotations

from typing import Any

from jsonschema.exceptions import ValidationError

from switchboard.domain.agents.wizard.answers import InvalidAnswer, prefill, read_answer, validation_reason
from switchboard.domain.agents.wizard.fields import Schema
from switchboard.domain.agents.wizard.models import (
    CANCEL_ID,
    CONFIRM_ID,
    CONFIRM_REASON,
    DEFAULT_HINT,
    RESTART_REASON,
    WizardState,
    WizardStep,
)
from switchboard.domain.agents.wizard.questions import confirm_question, field_question
from switchboard.domain.agents.wizard.text import normalize

_CANCEL_WORDS = frozenset({"cancelar", "cancel", "salir"})
_CONFIRM_WORDS = frozenset(
    {
        "si",
        "s",
        "yes",
        "y",
        "confirmar",
        "confirmo",
        "confirmado",
        "ok",
        "okay",
        "dale",
        "listo",
        "de acuerdo",
    }
)
_REFUSE_WORDS = frozenset({"no", "n"})


def _state(
    tool_slug: str,
    answers: dict[str, Any],
    *,
    pending: str | None = None,
    confirming: bool = False,
    attempts: int = 0,
) -> WizardState:
    return WizardState(
        tool_slug=tool_slug,
        answers=dict(answers),
        pending_field=pending,
        awaiting_confirmation=confirming,
        attempts=attempts,
    )


def _ask(
    schema: Schema, tool_slug: str, answers: dict[str, Any], name: str, error: str | None, attempts: int
) -> WizardStep:
    field = schema.fields[name]
    return WizardStep(
        action="ask",
        state=_state(tool_slug, answers, pending=name, attempts=attempts),
        question=field_question(field, error),
        error=error,
    )


def _next(
    schema: Schema, tool_slug: str, answers: dict[str, Any], error: str | None = None, attempts: int = 0
) -> WizardStep:
    """Ask the first unanswered required field, or confirm when all are answered."""
    answers = schema.ordered(answers)
    for name in schema.required:
        if name not in answers:
            return _ask(schema, tool_slug, answers, name, error, attempts)
    return WizardStep(
        action="confirm",
        state=_state(tool_slug, answers, confirming=True, attempts=attempts),
        question=confirm_question(schema, answers, error),
        error=error,
    )


def _cancelled() -> WizardStep:
    return WizardStep(action="cancelled", state=None)


def _error_field(schema: Schema, answers: dict[str, Any], error: ValidationError) -> str | None:
    if error.path:
        head = error.path[0]
        return head if isinstance(head, str) else None
    if error.validator == "required" and isinstance(error.validator_value, list):
        missing = [n for n in error.validator_value if isinstance(n, str) and n not in answers]
        return missing[0] if missing else None
    return None


def _reserve(schema: Schema, state: WizardState) -> WizardStep:
    """Validate the whole input once more; reserve, or ask the first failing field again."""
    answers = schema.ordered(state.answers)
    rank = {name: index for index, name in enumerate(schema.order)}
    while True:
        errors = list(schema.validator.iter_errors(answers))
        if not errors:
            return WizardStep(
                action="reserve",
                state=_state(state.tool_slug, answers),
                arguments=dict(answers),
            )
        located: list[tuple[str, ValidationError]] = []
        for error in errors:
            name = _error_field(schema, answers, error)
            if name is None or name not in schema.fields:
                return _next(schema, state.tool_slug, {}, RESTART_REASON)
            located.append((name, error))
        # Failing optional answers (only ever pre-filled) are dropped without a word.
        optional = {name for name, _ in located if name not in schema.required}
        answers = {k: v for k, v in answers.items() if k not in optional}
        located = [(name, error) for name, error in located if name not in optional]
        if located:
            name, error = min(located, key=lambda pair: rank[pair[0]])
            answers = {k: v for k, v in answers.items() if k != name}
            # A missing required answer (a state edited by hand) is simply asked, with no reason.
            reason = None if error.validator == "required" else validation_reason(schema.fields[name], error)
            return _next(schema, state.tool_slug, answers, reason)


def start_wizard(
    tool_slug: str, input_schema: dict[str, Any], *, known: dict[str, Any] | None = None
) -> WizardStep:
    """First step: the first required field not in ``known`` (or the confirmation if none)."""
    schema = Schema(input_schema)
    return _next(schema, tool_slug, prefill(schema, known))


def advance_wizard(
    state: WizardState, input_schema: dict[str, Any], *, text: str | None, reply_id: str | None
) -> WizardStep:
    """Feed one customer message (text and/or interactive reply id) and return the next step."""
    schema = Schema(input_schema)
    answers = schema.ordered(state.answers)
    word = normalize(text) if text is not None else ""
    if reply_id == CANCEL_ID or word in _CANCEL_WORDS:
        return _cancelled()
    if state.awaiting_confirmation:
        if reply_id == CONFIRM_ID or word in _CONFIRM_WORDS:
            return _reserve(schema, state.model_copy(update={"answers": answers}))
        if word in _REFUSE_WORDS:
            return _cancelled()
        return _next(schema, state.tool_slug, answers, CONFIRM_REASON, state.attempts + 1)
    name = state.pending_field
    if name is None or name not in schema.fields or name in answers:
        return _next(schema, state.tool_slug, answers)
    if reply_id == CONFIRM_ID:
        # A stale "Confirmar" tapped while a field is being asked (after a business error): not an answer.
        return _ask(schema, state.tool_slug, answers, name, None, state.attempts)
    field = schema.fields[name]
    try:
        value = read_answer(schema, field, text, reply_id)
    except InvalidAnswer as invalid:
        return _ask(schema, state.tool_slug, answers, name, str(invalid), state.attempts + 1)
    return _next(schema, state.tool_slug, {**answers, name: value})


def retry_after_business_error(state: WizardState, input_schema: dict[str, Any], *, hint: str) -> WizardStep:
    """Show the tool's business hint and ask again the last required field (e.g. the time)."""
    schema = Schema(input_schema)
    answers = schema.ordered(state.answers)
    if schema.required:
        last = schema.required[-1]
        answers = {k: v for k, v in answers.items() if k != last}
    message = " ".join(hint.split()) or DEFAULT_HINT
    return _next(schema, state.tool_slug, answers, message)
