"""The names failures travel under: Temporal error types between activities and workflows, and the
spec codes a send's own failures are recorded with.

An activity raises ``ApplicationError(type=...)`` with one of the first group; the retry policies in
``workflows/policies.py`` list the non-retryable ones and the workflows match on them, so a rename
here reaches every side at once. The strings are recorded in workflow histories: never change one.
"""

from __future__ import annotations

from typing import Final

# ApplicationError types (recorded in histories as the failure's type).
UPSTREAM_RETRYABLE: Final = "UpstreamRetryable"
UPSTREAM_PROTOCOL: Final = "UpstreamProtocol"
SMTP_FAILED: Final = "SmtpFailed"
SMTP_MISCONFIGURED: Final = "SmtpMisconfigured"
TEMPLATE_SYNC_REFUSED: Final = "TemplateSyncRefused"

# Spec codes of failures that are ours, not the upstream's numbered errors (domain/upstream_errors.py).
UPSTREAM_UNAVAILABLE_CODE: Final = "UPSTREAM_UNAVAILABLE"
UPSTREAM_PROTOCOL_ERROR_CODE: Final = "UPSTREAM_PROTOCOL_ERROR"
# A send's answer when the upstream refused it without a code of its own (an HTML error page, say).
UPSTREAM_REJECTED_CODE: Final = "UPSTREAM_REJECTED"
# A send whose run ended without recording an outcome (an operator stopped it, or it failed inside the
# service); the queued-send sweeper records it failed_transient under this code.
SEND_NOT_FINISHED_CODE: Final = "SEND_NOT_FINISHED"
