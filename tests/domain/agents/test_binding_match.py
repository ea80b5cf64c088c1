"""Binding precedence: scope match, enabled flag, phone_number > customer > tenant, newest wins a tie."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from switchboard.domain.agents.binding_match import BindingCandidate, binding_matches, choose_binding

T0 = datetime(2025, 1, 1, tzinfo=UTC)
PHONE, OTHER_PHONE = "1000", "2000"
CUSTOMER, OTHER_CUSTOMER = "cus_a", "cus_b"


def cand(
    id: str,
    scope: str,
    *,
    enabled: bool = True,
    phone: str | None = None,
    customer: str | None = None,
    age_days: int = 0,
) -> BindingCandidate:
    return BindingCandidate(
        id=id,
        scope=scope,
        enabled=enabled,
        phone_number_id=phone,
        customer_id=customer,
        created_at=T0 + timedelta(days=age_days),
    )


TENANT = cand("b_tenant", "tenant")
CUST = cand("b_cust", "customer", customer=CUSTOMER)
PHONE_B = cand("b_phone", "phone_number", phone=PHONE)

MATCH_ROWS = [
    # (candidate, customer_id of the phone, matches)
    (TENANT, CUSTOMER, True),
    (TENANT, None, True),
    (CUST, CUSTOMER, True),
    (CUST, OTHER_CUSTOMER, False),
    (CUST, None, False),
    (cand("c_none", "customer", customer=None), None, False),
    (PHONE_B, None, True),
    (cand("p_other", "phone_number", phone=OTHER_PHONE), CUSTOMER, False),
    (cand("p_none", "phone_number", phone=None), CUSTOMER, False),
    (cand("off", "tenant", enabled=False), CUSTOMER, False),
    (cand("off_p", "phone_number", phone=PHONE, enabled=False), CUSTOMER, False),
    (cand("weird", "waba"), CUSTOMER, False),
]


@pytest.mark.parametrize(("candidate", "customer_id", "expected"), MATCH_ROWS)
def test_binding_matches(candidate: BindingCandidate, customer_id: str | None, expected: bool) -> None:
    assert binding_matches(candidate, phone_number_id=PHONE, customer_id=customer_id) is expected


CHOICE_ROWS = [
    ("no candidates", [], CUSTOMER, None),
    ("only tenant", [TENANT], CUSTOMER, "b_tenant"),
    ("customer beats tenant", [TENANT, CUST], CUSTOMER, "b_cust"),
    ("phone beats customer and tenant", [TENANT, CUST, PHONE_B], CUSTOMER, "b_phone"),
    ("order of rows is irrelevant", [PHONE_B, TENANT, CUST], CUSTOMER, "b_phone"),
    ("phone without customer skips customer scope", [TENANT, CUST], None, "b_tenant"),
    (
        "other customer's binding ignored",
        [TENANT, cand("x", "customer", customer=OTHER_CUSTOMER)],
        CUSTOMER,
        "b_tenant",
    ),
    (
        "disabled phone binding falls back",
        [TENANT, cand("p", "phone_number", phone=PHONE, enabled=False)],
        CUSTOMER,
        "b_tenant",
    ),
    ("all disabled", [cand("a", "tenant", enabled=False)], CUSTOMER, None),
    ("other phone's binding ignored", [cand("p", "phone_number", phone=OTHER_PHONE)], CUSTOMER, None),
    (
        "newest wins inside a scope",
        [
            cand("old", "tenant", age_days=0),
            cand("new", "tenant", age_days=3),
            cand("mid", "tenant", age_days=1),
        ],
        CUSTOMER,
        "new",
    ),
    (
        "newer tenant binding does not beat an older customer one",
        [cand("t", "tenant", age_days=9), cand("c", "customer", customer=CUSTOMER, age_days=0)],
        CUSTOMER,
        "c",
    ),
    (
        "equal created_at: greatest id",
        [
            cand("b_2", "phone_number", phone=PHONE),
            cand("b_10", "phone_number", phone=PHONE),
            cand("b_1", "phone_number", phone=PHONE),
        ],
        CUSTOMER,
        "b_2",
    ),
]


@pytest.mark.parametrize(("label", "candidates", "customer_id", "expected"), CHOICE_ROWS)
def test_choose_binding(
    label: str, candidates: list[BindingCandidate], customer_id: str | None, expected: str | None
) -> None:
    chosen = choose_binding(candidates, phone_number_id=PHONE, customer_id=customer_id)
    assert (chosen.id if chosen else None) == expected, label


def test_naive_and_aware_created_at_compare_as_utc() -> None:
    naive_newer = BindingCandidate("naive", "tenant", True, None, None, datetime(2025, 1, 2))
    aware_older = BindingCandidate("aware", "tenant", True, None, None, datetime(2025, 1, 1, tzinfo=UTC))
    chosen = choose_binding([aware_older, naive_newer], phone_number_id=PHONE, customer_id=None)
    assert chosen is naive_newer
