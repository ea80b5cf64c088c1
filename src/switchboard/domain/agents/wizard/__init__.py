"""The deterministic booking wizard: one question per required field, no model involved.

With ``wizardEnabled``, the intent ``pedir_turno`` is served by this wizard instead of the model.
The runtime keeps a :class:`WizardState` (persisted as JSON between turns, so it survives worker
restarts) and calls three pure functions:

* :func:`start_wizard` builds the first step from the reservation tool's ``input_schema``
  (JSON Schema draft-07), optionally pre-filled with ``known`` answers.
* :func:`advance_wizard` feeds one customer message (its text and/or interactive reply id)
  and returns the next step.
* :func:`retry_after_business_error` is called when the reservation tool answered a ``negocio``
  (business) error: the hint is shown and a field is asked again.

Every step has an ``action``:

``ask``
    ``question`` asks the pending field; after a wrong answer ``error`` holds the reason, which
    also opens ``question.text``.
``confirm``
    every field is answered; ``question`` lists the answers and offers the buttons
    ``wizard_confirm`` ("Confirmar") / ``wizard_cancel`` ("Cancelar").
``reserve``
    the customer confirmed; ``arguments`` is the tool input, validated against the whole schema.
    ``state`` still holds the answers, for :func:`retry_after_business_error`.
``cancelled``
    the customer left (``cancelar``, ``cancel`` or ``salir`` alone as a message, at any step, or
    the ``wizard_cancel`` reply, or "no" at the confirmation); ``state`` is ``None``.

:func:`to_send_payload` turns a question into the send body fragment (text, reply buttons or list).

Modules: ``models`` (the public models, texts and limits), ``fields`` (reading ``input_schema`` into the
fields to ask), ``questions`` (question and confirmation texts and options), ``answers`` (coercing and
validating one answer), ``flow`` (the steps), ``payload`` (:func:`to_send_payload`), ``text`` (helpers).

Decisions:

* Asked fields are the schema's ``required`` ones, in the declaration order of ``properties``;
  required names missing from ``properties`` follow in ``required`` order and are asked as free
  text. Optional fields are never asked, but a valid ``known`` value for a declared property is kept
  and sent. ``known`` values failing validation are ignored (the field is asked).
* Question text: the property's ``description`` as written, else its ``title``, else the humanized
  field name, the last two as "¿Cuál es tu <título>?" (a title already ending in "?" or ":" is kept
  as is). Date and time fields get the expected format appended ("(DD/MM/AAAA)", "(HH:MM)").
  The confirmation summary labels answers with ``title``, else the humanized field name.
* Choices: ``enum`` (titles from ``enumNames`` / ``x-enumNames`` when they have the same length),
  or a ``oneOf``/``anyOf`` made only of ``const`` entries (titles from their ``title``). Up to 3
  values are reply buttons, 4 to 10 a list, more than 10 a text question listing the choices
  ("Opciones: a, b, c"). Option ids are the value as a string (JSON for non-strings), or
  ``opcion_<n>`` when that is longer than 200 characters or repeated. Titles are cut to 20
  (buttons) or 24 (list rows) characters with "…" and kept unique with a " (n)" suffix.
  Booleans are buttons "Sí" (id ``true``) / "No" (id ``false``).
* Answers: a reply id matching an option wins; otherwise the text is trimmed and parsed. Choices
  match value or title ignoring case and accents, then a 1-based number ("2"). Integers and numbers
  accept "3", "-2", "3,5" / "3.5" (numbers only; written without a fraction they stay integers).
  Booleans accept sí/si/s/yes/y/true and no/n/false. ``format: date`` accepts "2026-12-01",
  "01/12/2026", "1-12-2026", "1.12.26" (day first; a two-digit year means 20YY) and is stored as
  ISO ``YYYY-MM-DD``; a date without a year ("1/12") is rejected, since the wizard has no clock.
  ``format: time`` accepts "10:30", "10", "10hs", "10.30", "10h30", "3pm" and is stored as
  ``HH:MM`` (``HH:MM:SS`` only when non-zero seconds are given). ``format: email`` is checked with a simple pattern. Other strings are kept as typed.
* The coerced value is then validated against the property's subschema with the draft-07
  validator (``$ref`` resolved against the whole schema). Formats are checked by the parsers above,
  never by jsonschema's optional format checkers, so results do not depend on installed extras.
  A failure asks the same field again with a short Spanish reason (a property's ``x-errorMessage``
  or ``errorMessage`` string replaces the generated one) and increments ``attempts``, which resets
  when a field is accepted. What to do after many attempts is the caller's decision.
* On confirmation the answers are validated as a whole against ``input_schema``; a failure clears
  the first failing required field (in asking order) and asks it again. Failing optional ``known``
  values are dropped. If the failure cannot be tied to a field, all answers are cleared and the
  wizard starts over.
* A stale ``wizard_confirm`` reply while a field is being asked is not taken as its answer; the
  field is simply asked again.
* A business error clears the *last required field in asking order* (schemas put the slot, such as
  the time, last) and asks it again with the hint opening the question. Keeping it this simple is
  deliberate: the wizard cannot know which field the business rule refers to.
* The schema is read again on every call and answers for fields it no longer declares are dropped,
  so a tool edited mid-conversation does not break a persisted state.
* Pure: no clock, no randomness, no I/O; the same inputs always give the same step.
"""

from switchboard.domain.agents.wizard.fields import FieldKind
from switchboard.domain.agents.wizard.flow import advance_wizard, retry_after_business_error, start_wizard
from switchboard.domain.agents.wizard.models import (
    BODY_MAX,
    BOOLEAN_REASON,
    BUTTON_TITLE_MAX,
    CANCEL_ID,
    CANCEL_TITLE,
    CONFIRM_ID,
    CONFIRM_REASON,
    CONFIRM_TITLE,
    DATE_FORMAT_REASON,
    DEFAULT_HINT,
    EMAIL_REASON,
    EMPTY_REASON,
    INVALID_REASON,
    LIST_BUTTON_LABEL,
    LIST_BUTTON_MAX,
    LIST_SECTION_TITLE,
    MAX_BUTTONS,
    MAX_LIST_ROWS,
    OPTION_ID_MAX,
    RESTART_REASON,
    ROW_TITLE_MAX,
    SECTION_TITLE_MAX,
    TIME_FORMAT_REASON,
    WizardOption,
    WizardQuestion,
    WizardState,
    WizardStep,
)
from switchboard.domain.agents.wizard.payload import to_send_payload

__all__ = [
    "BODY_MAX",
    "BOOLEAN_REASON",
    "BUTTON_TITLE_MAX",
    "CANCEL_ID",
    "CANCEL_TITLE",
    "CONFIRM_ID",
    "CONFIRM_REASON",
    "CONFIRM_TITLE",
    "DATE_FORMAT_REASON",
    "DEFAULT_HINT",
    "EMAIL_REASON",
    "EMPTY_REASON",
    "FieldKind",
    "INVALID_REASON",
    "LIST_BUTTON_LABEL",
    "LIST_BUTTON_MAX",
    "LIST_SECTION_TITLE",
    "MAX_BUTTONS",
    "MAX_LIST_ROWS",
    "OPTION_ID_MAX",
    "RESTART_REASON",
    "ROW_TITLE_MAX",
    "SECTION_TITLE_MAX",
    "TIME_FORMAT_REASON",
    "WizardOption",
    "WizardQuestion",
    "WizardState",
    "WizardStep",
    "advance_wizard",
    "retry_after_business_error",
    "start_wizard",
    "to_send_payload",
]
