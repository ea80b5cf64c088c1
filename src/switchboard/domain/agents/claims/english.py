"""English verb forms: past/participle spellings of each action verb, base forms, regex alternations."""

from __future__ import annotations

from switchboard.domain.agents.claims.lexicon import Verb, alt

_EN_BOOKING = (
    r"appointments?|bookings?|reservations?|slots?|spots?|tables?|rooms?|sessions?|class|order|visit|"
    r"consultation|membership|subscription|it|them|that|this"
)
_EN_OBJ = r"your|it|the|that|this|them|you|her|his"
_EN_LIST = r"list|waitlist|wait list|waiting list|class|course|group|program|programme|newsletter|roster"
_EN_SLOT = r"spot|slot|table|room|place|appointment|booking|reservation|seat|time"

_V = Verb

# English: past/participle form -> verb.
EN_TABLE: dict[str, Verb] = {}


def _add_en(forms: str, verb: Verb) -> None:
    for f in forms.split():
        EN_TABLE[f] = verb


_add_en("booked reserved scheduled", _V("book", "booked"))
_add_en("secured held", _V("secure", "booked", rf"(?:(?:{_EN_OBJ}|a|an)\s+)?(?:\w+\s+)?(?:{_EN_SLOT})\b"))
_add_en("cancelled canceled cancelled unsubscribed voided", _V("cancel", "cancelled"))
_add_en("removed deleted", _V("remove", "cancelled", rf"(?:\w+\s+){{0,2}}(?:{_EN_BOOKING})\b"))
_add_en("rescheduled modified postponed", _V("reschedule", "changed"))
_add_en("moved changed updated", _V("change", "changed", rf"(?:{_EN_OBJ})\b"))
_add_en("pushed", _V("push", "changed", r"(?:\w+\s+){0,3}(?:back|forward|to)\b"))
_add_en("paid charged refunded credited", _V("pay", "paid"))
_add_en("received", _V("receive", None, nouns=("paid",)))
_add_en("approved", _V("approve", None, nouns=("paid", "registered", "confirmed")))
_add_en("processed made completed issued submitted", _V("process", None))
_add_en("sent emailed texted forwarded mailed resent shipped dispatched messaged", _V("send", "sent"))
_add_en("shared", _V("share", "sent", r"(?:\w+\s+){0,3}(?:link|location|details|address|info|information)\b"))
_add_en("registered enrolled", _V("register", "registered"))
_add_en("signed", _V("sign", "registered", r"(?:\w+\s+){0,2}up\b"))
_add_en(
    "added",
    _V(
        "add",
        "registered",
        rf"(?:\w+\s+){{0,2}}to\s+(?:the\s+|our\s+|your\s+)?(?:\w+\s+){{0,3}}(?:{_EN_LIST})\b",
    ),
)
_add_en("created", _V("create", None, r"(?:\w+\s+){0,2}(?:account|profile)\b", nouns=("registered",)))
_add_en("confirmed", _V("confirm", "confirmed"))
# Base forms for "I was able to ..." / "we managed to ...".
EN_BASE = {
    "book": "booked",
    "reserve": "reserved",
    "schedule": "scheduled",
    "secure": "secured",
    "cancel": "cancelled",
    "remove": "removed",
    "reschedule": "rescheduled",
    "move": "moved",
    "change": "changed",
    "update": "updated",
    "modify": "modified",
    "postpone": "postponed",
    "charge": "charged",
    "refund": "refunded",
    "process": "processed",
    "send": "sent",
    "email": "emailed",
    "text": "texted",
    "forward": "forwarded",
    "register": "registered",
    "enroll": "enrolled",
    "sign": "signed",
    "add": "added",
    "confirm": "confirmed",
}
# "set" only as a participle ("everything is set", "you're set for Monday").
EN_PASSIVE_ONLY = {"set": _V("set", "confirmed")}

EN_PAST = alt(list(EN_TABLE))
EN_PART = alt([*EN_TABLE, *EN_PASSIVE_ONLY])
