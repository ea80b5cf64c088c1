"""URL rules: host pinning to ``{{binding.base_url}}``, no input in the query string, the path guard."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import urlsplit

from switchboard.domain.tools.errors import ToolDeclarationError, ToolSecurityError
from switchboard.domain.tools.placeholders import PLACEHOLDER_RE, check_placements, find_placeholders

_BASE_URL_PREFIX_RE = re.compile(r"^\{\{\s*binding\.base_url\s*\}\}")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_WHITESPACE_RE = re.compile(r"\s")
PATH_SEGMENT_FORBIDDEN = ("/", "\\", "?", "#", "%", ":", "..")


@dataclass(frozen=True)
class UrlTemplate:
    """``request.url`` split after its ``{{binding.base_url}}`` prefix: path part and optional query part."""

    path: str
    query: str | None


def _mentions_input(text: str) -> bool:
    return any(re.match(r"input\.", m.group(1)) for m in PLACEHOLDER_RE.finditer(text))


def parse_url_template(url: object, *, field: str, input_names: Collection[str] | None) -> UrlTemplate:
    """Check ``request.url`` against the host-pinning and query-string rules and split it."""
    if not isinstance(url, str) or not url:
        raise ToolDeclarationError(f"{field} must be a non-empty string", field=field)
    find_placeholders(url, field=field)
    prefix = _BASE_URL_PREFIX_RE.match(url)
    if prefix is None:
        authority = _authority_part(url)
        if _mentions_input(authority):
            raise ToolSecurityError(
                f"{{{{input.*}}}} may not choose the protocol or host of {field}", field=field
            )
        raise ToolDeclarationError(f"{field} must start with {{{{binding.base_url}}}}", field=field)
    rest = url[prefix.end() :]
    if rest and rest[0] not in "/?":
        if _mentions_input(re.split(r"[/?]", rest, maxsplit=1)[0]):
            raise ToolSecurityError(f"{{{{input.*}}}} may not extend the host of {field}", field=field)
        raise ToolDeclarationError(
            f"{field} must continue with / or ? after {{{{binding.base_url}}}}", field=field
        )
    if _WHITESPACE_RE.search(PLACEHOLDER_RE.sub("", rest)):
        raise ToolDeclarationError(f"{field} may not contain whitespace", field=field)
    if "#" in rest:
        raise ToolDeclarationError(f"{field} may not contain a #fragment (it is never sent)", field=field)
    path, sep, query = rest.partition("?")
    if query and _mentions_input(query):
        raise ToolSecurityError(
            f"{{{{input.*}}}} may not appear in the query string of {field}; put it in request.query",
            field=field,
        )
    for part in (path, query):
        check_placements(part, field=field, input_names=input_names, allow_secret=False, allow_base_url=False)
    return UrlTemplate(path=path, query=query if sep else None)


def join_base_url(base_url: str, rest: str) -> str:
    """``base_url`` followed by a rendered remainder that starts with ``/`` or ``?`` (one slash between)."""
    if not rest:
        return base_url
    return (base_url.rstrip("/") if rest.startswith("/") else base_url) + rest


def strip_base_url_prefix(template: str) -> str | None:
    """What follows a leading ``{{binding.base_url}}``, or None when the template does not start with it."""
    prefix = _BASE_URL_PREFIX_RE.match(template)
    return template[prefix.end() :] if prefix else None


def _authority_part(url: str) -> str:
    """Scheme and host of an absolute or unanchored URL template: everything before the first path slash."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url.split("/", 1)[0]
    return scheme + sep + rest.split("/", 1)[0]


def check_token_url_template(url: object, *, field: str) -> None:
    """``token_url``: http(s) with a fixed or binding-supplied host; no input, context or secrets."""
    if not isinstance(url, str) or not url:
        raise ToolDeclarationError(f"{field} must be a non-empty string", field=field)
    if _mentions_input(url):
        raise ToolSecurityError(f"{{{{input.*}}}} is not allowed in {field}", field=field)
    check_placements(url, field=field, input_names=None, allow_context=False, allow_secret=False)
    if _WHITESPACE_RE.search(PLACEHOLDER_RE.sub("", url)) or "#" in url:
        raise ToolDeclarationError(f"{field} may not contain whitespace or a #fragment", field=field)
    rest = strip_base_url_prefix(url)
    if rest and rest[0] not in "/?":
        raise ToolDeclarationError(
            f"{field} must continue with / or ? after {{{{binding.base_url}}}}", field=field
        )
    if url.startswith("{{"):
        if not re.match(r"^\{\{\s*binding\.(base_url|params\.[^{}]+?)\s*\}\}", url):
            raise ToolDeclarationError(
                f"{field} must start with a literal URL or a {{{{binding.base_url}}}} "
                "or {{{{binding.params.<key>}}}} placeholder",
                field=field,
            )
        return
    check_absolute_url(PLACEHOLDER_RE.sub("x", url), field=field)


def check_binding_base_url(base_url: str) -> None:
    """The binding's base URL at run time: present, then an http(s) URL without query or fragment."""
    if not base_url:
        raise ToolDeclarationError(
            "{{binding.base_url}} has no value: the binding has no base_url (set params.base_url)",
            field="binding.base_url",
        )
    check_absolute_url(base_url, field="binding.base_url", allow_path=False)


def check_absolute_url(url: str, *, field: str, allow_path: bool = True) -> None:
    """An http(s) URL with a host and no userinfo, fragment (or, for base URLs, query)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ToolDeclarationError(f"{field} is not a valid URL: {exc}", field=field) from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ToolDeclarationError(f"{field} must be an http or https URL with a host", field=field)
    if parts.username is not None or parts.password is not None:
        raise ToolDeclarationError(f"{field} may not carry credentials; use request.auth", field=field)
    if parts.fragment or (not allow_path and parts.query):
        raise ToolDeclarationError(f"{field} may not carry a query string or #fragment", field=field)
    if _CONTROL_RE.search(url) or _WHITESPACE_RE.search(url) or port == 0:
        raise ToolDeclarationError(f"{field} has whitespace, control characters or port 0", field=field)


def guard_path_segment(value: str, *, field: str) -> str:
    """Reject a value that could leave its path segment (``/``, ``..``, ``%``...); returns it unchanged."""
    bad = [token for token in PATH_SEGMENT_FORBIDDEN if token in value]
    if _CONTROL_RE.search(value):
        bad.append("control character")
    if value in ("", "."):
        bad.append("empty or '.' segment")
    if bad:
        raise ToolSecurityError(
            f"the value of {field} cannot go into a URL path segment (contains {', '.join(bad)})",
            field=field,
            rejected=bad,
        )
    return value
