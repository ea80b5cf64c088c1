"""Every curl example in README.md and docs/ names an operation the API's (or the simulator's) OpenAPI has.

Cheap and offline: the examples are read, not run. Running them against `make dev` is a manual step
(see the report of the change that added this test); this catches a renamed or removed route, or a
method the route does not take, as soon as it happens.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from switchboard.api.app import create_app
from switchboard.settings import Settings
from switchboard.simulator.app import SimulatorConfig, create_simulator_app

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
API_BASES = ("$API", "$SB", "http://127.0.0.1:8000")
SIM_BASES = ("$SIM", "http://127.0.0.1:8100")
OPTIONS_WITH_VALUE = {
    "-H",
    "-d",
    "-F",
    "-o",
    "-X",
    "-w",
    "-u",
    "--data",
    "--data-raw",
    "--data-binary",
    "--json",
}
ENDS = {"|", "||", "&&", ";", ")", "&"}


def curl_examples() -> list[tuple[str, str, str]]:
    """(where, method, url) of every curl command in the shell blocks of the docs."""
    found = []
    for doc in DOCS:
        text = doc.read_text()
        for block in FENCE.finditer(text):
            if block.group(1) not in ("sh", "bash", "shell"):
                continue
            first_line = text[: block.start()].count("\n") + 2
            body = block.group(2).replace("\\\n", " ")
            for offset, line in enumerate(body.splitlines()):
                for command in re.findall(r"\bcurl\s.*", line):
                    where = f"{doc.relative_to(ROOT)}:{first_line + offset}"
                    found.append((where, *_method_and_url(command)))
    return found


def _method_and_url(command: str) -> tuple[str, str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars="|&;()")
    lexer.whitespace_split = True
    tokens: list[str] = []
    try:
        tokens.extend(lexer)
    except ValueError:
        pass  # a JSON body that goes on past this line; method and URL come before it
    tokens = tokens[1:]
    method, url, sends_body, skip = None, None, False, False
    for token in tokens:
        if token in ENDS:
            break
        if skip:
            skip = False
            continue
        if token in OPTIONS_WITH_VALUE:
            sends_body |= token in {"-d", "-F", "--data", "--data-raw", "--data-binary", "--json"}
            if token == "-X":
                method = "next"
            skip = token != "-X"
            continue
        if method == "next":
            method = token
        elif not token.startswith("-") and url is None:
            url = token
    assert url is not None, command
    return (method if method not in (None, "next") else ("POST" if sends_body else "GET")), url


def _routes(openapi: dict) -> list[tuple[re.Pattern[str], set[str]]]:
    return [
        (re.compile("^" + re.sub(r"\{[^/}]+\}", "[^/]+", path) + "$"), {m.upper() for m in operations})
        for path, operations in openapi["paths"].items()
    ]


@pytest.fixture(scope="module")
def documents() -> dict[str, list[tuple[re.Pattern[str], set[str]]]]:
    api = create_app(Settings(SWITCHBOARD_ENV="test", database_url="sqlite+aiosqlite:///unused.db"))
    simulator = create_simulator_app(SimulatorConfig(app_secret="unused"))
    return {"api": _routes(api.openapi()), "simulator": _routes(simulator.openapi())}


def _target(url: str) -> tuple[str, str] | None:
    for name, bases in (("api", API_BASES), ("simulator", SIM_BASES)):
        for base in bases:
            if url.startswith(base):
                path = url[len(base) :].split("?", 1)[0]
                # Shell variables stand for one path segment each (an id the reader has).
                return name, re.sub(r"\$\{?\w+\}?", "id", path)
    return None


EXAMPLES = curl_examples()


def test_the_docs_have_curl_examples():
    assert len(EXAMPLES) > 50
    assert any(url.startswith(SIM_BASES) for _, _, url in EXAMPLES)


@pytest.mark.parametrize(("where", "method", "url"), EXAMPLES, ids=[f"{w} {m}" for w, m, _ in EXAMPLES])
def test_curl_example_names_a_documented_operation(documents, where, method, url):
    target = _target(url)
    assert target is not None, f"{where}: {url} is neither the API nor the simulator `make dev` runs"
    name, path = target
    methods = [allowed for pattern, allowed in documents[name] if pattern.match(path)]
    assert methods, f"{where}: no {name} path matches {path}"
    assert any(method in allowed for allowed in methods), f"{where}: {path} does not take {method}"
