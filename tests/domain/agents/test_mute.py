"""The thread mute state machine: every row of the spec's table, our settled rows, timers and time zones."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from switchboard.domain.agents.mute import (
    ACTIVE,
    MuteEvent,
    MuteState,
    Transition,
    apply_trigger,
    unmute_due_at,
    unread_urgency,
    urgency_details,
)
from switchboard.models.urgency_model import load_urgency_model

T0 = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
NOW = T0 + timedelta(hours=1)
RUN = "run_1"
REASONS = ["handoff", "human_detected", "cost_cap_thread", "cost_cap_tenant_day", "cost_cap_tenant_month"]


def muted(reason: str, at: datetime = T0) -> MuteState:
    return MuteState(muted_at=at, muted_reason=reason)


def muted_event(reason: str, run_id: str | None = RUN) -> MuteEvent:
    return MuteEvent("thread.muted", {"muted_reason": reason, "run_id": run_id})


# (label, state, trigger, expected state, expected events)
ROWS: list[tuple[str, MuteState, str, MuteState, tuple[MuteEvent, ...]]] = [
    # The spec's table, from active.
    ("active + urgency", ACTIVE, "urgency", muted("handoff", NOW), (muted_event("handoff"),)),
    (
        "active + human message",
        ACTIVE,
        "human_message",
        muted("human_detected", NOW),
        (muted_event("human_detected"),),
    ),
    (
        "active + thread cap",
        ACTIVE,
        "cost_cap_thread",
        muted("cost_cap_thread", NOW),
        (muted_event("cost_cap_thread"),),
    ),
    (
        "active + day cap",
        ACTIVE,
        "cost_cap_tenant_day",
        muted("cost_cap_tenant_day", NOW),
        (muted_event("cost_cap_tenant_day"),),
    ),
    (
        "active + month cap",
        ACTIVE,
        "cost_cap_tenant_month",
        muted("cost_cap_tenant_month", NOW),
        (muted_event("cost_cap_tenant_month"),),
    ),
    ("active + escalation", ACTIVE, "escalation", muted("handoff", NOW), (muted_event("handoff"),)),
    ("active + reactivate is a no-op", ACTIVE, "reactivate", ACTIVE, ()),
    # Urgency and escalation on a muted thread.
    ("handoff + urgency unchanged", muted("handoff"), "urgency", muted("handoff"), ()),
    ("handoff + escalation unchanged", muted("handoff"), "escalation", muted("handoff"), ()),
    *[
        (
            f"{r} + urgency becomes handoff",
            muted(r),
            "urgency",
            muted("handoff", NOW),
            (muted_event("handoff"),),
        )
        for r in REASONS
        if r != "handoff"
    ],
    *[
        (
            f"{r} + escalation becomes handoff",
            muted(r),
            "escalation",
            muted("handoff", NOW),
            (muted_event("handoff"),),
        )
        for r in REASONS
        if r != "handoff"
    ],
    # Human messages while muted.
    (
        "human_detected + human message restarts 24 h",
        muted("human_detected"),
        "human_message",
        muted("human_detected", NOW),
        (),
    ),
    *[
        (f"{r} + human message unchanged", muted(r), "human_message", muted(r), ())
        for r in REASONS
        if r != "human_detected"
    ],
    # Cost caps while muted never replace the reason.
    *[
        (f"{r} + {cap} unchanged", muted(r), cap, muted(r), ())
        for r in REASONS
        for cap in ("cost_cap_thread", "cost_cap_tenant_day", "cost_cap_tenant_month")
    ],
]


@pytest.mark.parametrize(("label", "state", "trigger", "expected", "events"), ROWS)
def test_transition(
    label: str, state: MuteState, trigger: str, expected: MuteState, events: tuple[MuteEvent, ...]
) -> None:
    assert apply_trigger(state, trigger, now=NOW, run_id=RUN) == Transition(expected, events), label


@pytest.mark.parametrize("reason", REASONS)
def test_reactivate_any_muted_reason(reason: str) -> None:
    result = apply_trigger(muted(reason), "reactivate", now=NOW, user_id="usr_9", reason="atendido")
    assert result.state == ACTIVE
    assert result.state.active
    assert result.events == (
        MuteEvent(
            "thread.reactivated",
            {"previous_muted_reason": reason, "reactivated_by_user_id": "usr_9", "reason": "atendido"},
        ),
    )


def test_human_message_never_moves_muted_at_backwards() -> None:
    state = muted("human_detected", NOW)
    assert apply_trigger(state, "human_message", now=T0).state == state


def test_muted_event_without_run() -> None:
    assert apply_trigger(ACTIVE, "human_message", now=NOW).events == (muted_event("human_detected", None),)


DAY = timedelta(hours=24)

# (label, state, timer_due_at, now, unmutes)
TIMER_ROWS: list[tuple[str, MuteState, datetime | None, datetime, bool]] = [
    ("human_detected after 24 h", muted("human_detected"), T0 + DAY, T0 + DAY, True),
    ("human_detected late timer", muted("human_detected"), T0 + DAY, T0 + DAY + timedelta(hours=5), True),
    ("human_detected early", muted("human_detected"), T0 + DAY, T0 + DAY - timedelta(seconds=1), False),
    ("day cap after 24 h", muted("cost_cap_tenant_day"), T0 + DAY, T0 + DAY, True),
    ("day cap early", muted("cost_cap_tenant_day"), T0 + DAY, T0 + timedelta(hours=23), False),
    (
        "month cap on the 1st",
        muted("cost_cap_tenant_month"),
        datetime(2025, 4, 1, tzinfo=UTC),
        datetime(2025, 4, 1, tzinfo=UTC),
        True,
    ),
    (
        "month cap before the 1st",
        muted("cost_cap_tenant_month"),
        datetime(2025, 4, 1, tzinfo=UTC),
        datetime(2025, 3, 31, 23, 59, tzinfo=UTC),
        False,
    ),
    ("handoff never unmutes", muted("handoff"), T0 + DAY, T0 + timedelta(days=400), False),
    ("thread cap never unmutes", muted("cost_cap_thread"), T0 + DAY, T0 + timedelta(days=400), False),
    ("active stays active", ACTIVE, T0 + DAY, T0 + DAY, False),
    ("timer without due time", muted("human_detected"), None, T0 + DAY * 2, False),
    ("stale timer from an earlier mute", muted("human_detected", T0 + DAY), T0 + DAY, T0 + DAY * 2, False),
    (
        "stale timer before a 24 h restart",
        muted("human_detected", T0 + timedelta(hours=5)),
        T0 + DAY,
        T0 + DAY,
        False,
    ),
    ("day timer replayed on a month mute", muted("cost_cap_tenant_month"), T0 + DAY, T0 + DAY * 40, False),
    (
        "same instant in another offset",
        muted("human_detected"),
        (T0 + DAY).astimezone(timezone(timedelta(hours=-3))),
        T0 + DAY,
        True,
    ),
]


@pytest.mark.parametrize(("label", "state", "due", "now", "unmutes"), TIMER_ROWS)
def test_timer(label: str, state: MuteState, due: datetime | None, now: datetime, unmutes: bool) -> None:
    result = apply_trigger(state, "timer", now=now, timer_due_at=due)
    if unmutes:
        assert result == Transition(
            ACTIVE, (MuteEvent("thread.unmuted", {"previous_muted_reason": state.muted_reason}),)
        )
    else:
        assert result == Transition(state), label


def test_reactivation_racing_a_timer() -> None:
    state = muted("human_detected")
    due = unmute_due_at(state)
    reactivated = apply_trigger(state, "reactivate", now=T0 + timedelta(hours=2), user_id="u")
    assert reactivated.state == ACTIVE
    late_timer = apply_trigger(reactivated.state, "timer", now=T0 + DAY, timer_due_at=due)
    assert late_timer == Transition(ACTIVE)


def test_old_timer_after_reactivation_and_a_new_mute() -> None:
    first = muted("cost_cap_tenant_day")
    old_due = unmute_due_at(first)
    state = apply_trigger(first, "reactivate", now=T0 + timedelta(hours=1)).state
    state = apply_trigger(state, "cost_cap_tenant_day", now=T0 + timedelta(hours=3)).state
    assert apply_trigger(state, "timer", now=T0 + DAY, timer_due_at=old_due) == Transition(state)
    new_due = unmute_due_at(state)
    assert new_due == T0 + timedelta(hours=27)
    assert apply_trigger(state, "timer", now=new_due, timer_due_at=new_due).state == ACTIVE


def test_month_timer_uses_the_tenant_zone() -> None:
    state = muted("cost_cap_tenant_month", datetime(2025, 12, 15, tzinfo=UTC))
    due = unmute_due_at(state, tz="America/Argentina/Buenos_Aires")
    assert due == datetime(2026, 1, 1, 3, 0, tzinfo=UTC)
    # Armed for the UTC first of the month: stale for a Buenos Aires tenant.
    utc_due = datetime(2026, 1, 1, tzinfo=UTC)
    assert (
        apply_trigger(
            state, "timer", now=due, timer_due_at=utc_due, tz="America/Argentina/Buenos_Aires"
        ).state
        == state
    )
    result = apply_trigger(state, "timer", now=due, timer_due_at=due, tz="America/Argentina/Buenos_Aires")
    assert result.state == ACTIVE


BA, MADRID = "America/Argentina/Buenos_Aires", "Europe/Madrid"

# (label, state, tz, expected due)
DUE_ROWS: list[tuple[str, MuteState, str, datetime | None]] = [
    ("active", ACTIVE, "UTC", None),
    ("handoff", muted("handoff"), "UTC", None),
    ("thread cap", muted("cost_cap_thread"), "UTC", None),
    ("human_detected", muted("human_detected"), "UTC", T0 + DAY),
    ("human_detected ignores the zone", muted("human_detected"), MADRID, T0 + DAY),
    ("day cap", muted("cost_cap_tenant_day"), BA, T0 + DAY),
    (
        "day cap across the spring DST change is 24 real hours",
        muted("cost_cap_tenant_day", datetime(2025, 3, 29, 12, tzinfo=UTC)),
        MADRID,
        datetime(2025, 3, 30, 12, tzinfo=UTC),
    ),
    ("naive muted_at is UTC", muted("human_detected", datetime(2025, 3, 10, 12)), "UTC", T0 + DAY),
    ("month UTC", muted("cost_cap_tenant_month"), "UTC", datetime(2025, 4, 1, tzinfo=UTC)),
    (
        "month UTC December rolls the year",
        muted("cost_cap_tenant_month", datetime(2025, 12, 31, 23, 59, tzinfo=UTC)),
        "UTC",
        datetime(2026, 1, 1, tzinfo=UTC),
    ),
    (
        "Buenos Aires December to January (UTC-3)",
        muted("cost_cap_tenant_month", datetime(2025, 12, 20, 15, tzinfo=UTC)),
        BA,
        datetime(2026, 1, 1, 3, tzinfo=UTC),
    ),
    (
        "Buenos Aires: UTC already January, local still December",
        muted("cost_cap_tenant_month", datetime(2026, 1, 1, 1, tzinfo=UTC)),
        BA,
        datetime(2026, 1, 1, 3, tzinfo=UTC),
    ),
    (
        "Buenos Aires: just after local midnight of the 1st",
        muted("cost_cap_tenant_month", datetime(2026, 1, 1, 3, 0, 1, tzinfo=UTC)),
        BA,
        datetime(2026, 2, 1, 3, tzinfo=UTC),
    ),
    (
        "Madrid December to January (CET, UTC+1)",
        muted("cost_cap_tenant_month", datetime(2025, 12, 5, tzinfo=UTC)),
        MADRID,
        datetime(2025, 12, 31, 23, tzinfo=UTC),
    ),
    (
        "Madrid: UTC still December, local already January",
        muted("cost_cap_tenant_month", datetime(2025, 12, 31, 23, 30, tzinfo=UTC)),
        MADRID,
        datetime(2026, 1, 31, 23, tzinfo=UTC),
    ),
    (
        "Madrid March to April crosses DST (CEST, UTC+2)",
        muted("cost_cap_tenant_month", datetime(2025, 3, 10, tzinfo=UTC)),
        MADRID,
        datetime(2025, 3, 31, 22, tzinfo=UTC),
    ),
    (
        "Madrid October to November leaves DST (CET)",
        muted("cost_cap_tenant_month", datetime(2025, 10, 10, tzinfo=UTC)),
        MADRID,
        datetime(2025, 10, 31, 23, tzinfo=UTC),
    ),
]


@pytest.mark.parametrize(("label", "state", "tz", "expected"), DUE_ROWS)
def test_unmute_due_at(label: str, state: MuteState, tz: str, expected: datetime | None) -> None:
    due = unmute_due_at(state, tz=tz)
    assert due == expected, label
    if due is not None:
        assert due.tzinfo is UTC


def test_invalid_states_and_inputs() -> None:
    with pytest.raises(ValueError):
        MuteState(muted_at=T0, muted_reason=None)
    with pytest.raises(ValueError):
        MuteState(muted_at=None, muted_reason="handoff")
    with pytest.raises(ValueError):
        MuteState(muted_at=T0, muted_reason="sleepy")
    with pytest.raises(ValueError):
        apply_trigger(ACTIVE, "nap", now=NOW)
    with pytest.raises(ValueError):
        unmute_due_at(muted("cost_cap_tenant_month"), tz="Mars/Olympus")


# --------------------------------------------------------------------------- urgency no run reads

URGENT = "se desmayó mi hijo y no reacciona"
# The model the package ships (the layered detector scores with it; its loading is the models layer's).
MODEL = load_urgency_model()


@pytest.mark.parametrize("reason", [r for r in REASONS if r != "handoff"])
def test_unread_urgency_on_a_thread_muted_for_another_reason(reason: str) -> None:
    match = unread_urgency(muted(reason), ["gracias", URGENT], MODEL)
    assert match is not None and (match.category, match.decided_by) == ("child_symptom", "rule")
    details = urgency_details(match, ["msg_1", "msg_2"])
    transition = apply_trigger(muted(reason), "urgency", now=NOW, details=details)
    assert transition.state == muted("handoff", NOW)
    assert transition.events == (
        MuteEvent(
            "thread.muted",
            {
                "muted_reason": "handoff",
                "run_id": None,
                "urgency": {
                    "category": match.category,
                    "matched": match.matched,
                    "decided_by": "rule",
                    "score": match.score,
                    "language": "es",
                    "message_ids": ["msg_1", "msg_2"],
                },
            },
        ),
    )


@pytest.mark.parametrize(
    ("label", "state", "texts"),
    [
        # A run reads an active thread's messages and checks them itself.
        ("active", ACTIVE, [URGENT]),
        # Handed off already: nothing to change, no second event.
        ("handoff", muted("handoff"), [URGENT]),
        ("routine talk", muted("human_detected"), ["hola", "¿tienen turno el martes?"]),
        ("administrative urgency", muted("cost_cap_thread"), ["es urgente que me manden la factura"]),
        ("nothing", muted("human_detected"), []),
    ],
)
def test_unread_urgency_changes_nothing(label: str, state: MuteState, texts: list[str]) -> None:
    assert unread_urgency(state, texts, MODEL) is None, label


@pytest.mark.parametrize(
    ("label", "texts", "expected"),
    [
        # Read together, as a run reads a burst: the child and the fever are in different messages.
        (
            "across messages",
            ["mi hijo", "tiene 39 de fiebre"],
            "child_symptom",
        ),
        # The pet in one message does not hide the father in the next (the rules read each message alone
        # for that; the classifier already finds it in the burst read together).
        (
            "one message alone",
            ["mi gato se está muriendo", "se muere mi papá, vengan"],
            "imminent_death",
        ),
    ],
)
def test_unread_urgency_reads_a_burst_together_and_each_message_alone(
    label: str, texts: list[str], expected: str
) -> None:
    verdict = unread_urgency(muted("human_detected"), texts, MODEL)
    assert verdict is not None and verdict.category == expected, label


def test_details_only_on_a_muted_event() -> None:
    details = {"urgency": {"category": "cardiac", "matched": "x", "message_ids": []}}
    assert apply_trigger(muted("handoff"), "urgency", now=NOW, details=details).events == ()
    [event] = apply_trigger(ACTIVE, "urgency", now=NOW, run_id=RUN, details=details).events
    assert event.properties == {"muted_reason": "handoff", "run_id": RUN, **details}
