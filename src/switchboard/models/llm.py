"""Provider-neutral shapes of one language-model call.

One ``LlmRequest`` goes to a provider adapter and one ``LlmResponse`` comes
back, whatever the provider. Both are plain pydantic models of JSON types so
they cross the Temporal boundary as activity input and result.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

StopReason = Literal["end_turn", "tool_use", "max_tokens", "refusal", "other"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LlmTool(_Frozen):
    """A tool the model may call: its name, what it is for, and a JSON Schema of its arguments."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class LlmToolCall(_Frozen):
    """One tool call the model asked for; ``arguments`` is always a JSON object."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    # The model's argument text when it was not a JSON object, so the loop can
    # answer the call with an error instead of running the tool on nothing.
    invalid_arguments: str | None = None


class UserMessage(_Frozen):
    """Text the customer (or the runtime on their behalf) said."""

    role: Literal["user"] = "user"
    text: str


class AssistantMessage(_Frozen):
    """A previous model turn: its text and the tool calls it asked for."""

    role: Literal["assistant"] = "assistant"
    text: str | None = None
    tool_calls: list[LlmToolCall] = Field(default_factory=list)
    # Opaque provider content replayed verbatim to the provider that produced it
    # (Gemini thought signatures, Anthropic thinking blocks); other providers ignore it.
    provider_native: dict[str, Any] | None = None


class ToolResultMessage(_Frozen):
    """The result of one tool call, answered to the model under the call's id."""

    role: Literal["tool"] = "tool"
    tool_call_id: str
    tool_name: str
    content: str
    is_error: bool = False


LlmMessage = Annotated[UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")]


class LlmRequest(_Frozen):
    """One normalised model call: system prompt, transcript, tools, model and output budget."""

    model: str
    system: str | None = None
    messages: list[LlmMessage]
    tools: list[LlmTool] = Field(default_factory=list)
    max_tokens: int = Field(default=1024, gt=0)


class LlmUsage(_Frozen):
    """Tokens of one call in four disjoint dimensions, plus the provider's own usage object.

    ``input_tokens`` counts uncached input only, so the four dimensions add up to
    what was billed whatever the provider's inclusion convention.
    """

    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cache_read_tokens: int = Field(default=0, ge=0)
    cache_write_tokens: int = Field(default=0, ge=0)
    raw: dict[str, Any] = Field(default_factory=dict)

    @property
    def prompt_tokens(self) -> int:
        """All input the model read: uncached, read from cache and written to cache."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens


class LlmResponse(_Frozen):
    """One normalised model answer: text, tool calls, why it stopped, and usage."""

    provider: str
    model: str
    text: str | None = None
    tool_calls: list[LlmToolCall] = Field(default_factory=list)
    stop_reason: StopReason
    provider_stop_reason: str | None = None
    usage: LlmUsage
    provider_native: dict[str, Any] | None = None

    def as_assistant_message(self) -> AssistantMessage:
        """The transcript entry that records this answer for the next call."""
        return AssistantMessage(
            text=self.text, tool_calls=self.tool_calls, provider_native=self.provider_native
        )
