"""Request and response shapes of the AI-agents catalog (agents, tools, versions, bindings)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

from switchboard.domain.agents.history import cap_conversacion
from switchboard.domain.errors import ValidationFailed
from switchboard.domain.tools import declaration_warnings
from switchboard.models.agents import Agent, AgentBinding, AgentTool, AgentVersion, BindingScope
from switchboard.models.base import iso_millis

TOOL_SLUG_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"
# Secret names must be usable as {{binding.secret.<name>}}.
SECRET_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"

DEFAULT_CAP_EXECUCION = 6
DEFAULT_CAP_CONVERSACION = 20
MAX_TOOLS_PER_VERSION = 64
RESERVED_SLUGS = frozenset({"records"})

Slug = Annotated[str, Field(pattern=TOOL_SLUG_PATTERN)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Patch(_Strict):
    """A partial update: at least one field, and null only where a field may be cleared."""

    nullable: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="after")
    def _check_fields(self) -> _Patch:
        if not self.model_fields_set:
            raise ValueError("send at least one field to change")
        for name in self.model_fields_set - self.nullable:
            if getattr(self, name) is None:
                raise ValueError(f"{name} cannot be null")
        return self


class AgentCreate(_Strict):
    name: str = Field(min_length=1, max_length=200)
    provider: str = Field(min_length=1, max_length=64)
    model: str = Field(min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=4000)


class AgentUpdate(_Patch):
    nullable: ClassVar[frozenset[str]] = frozenset({"description"})

    name: str | None = Field(default=None, min_length=1, max_length=200)
    provider: str | None = Field(default=None, min_length=1, max_length=64)
    model: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=4000)


class AgentPublic(BaseModel):
    id: str
    name: str
    provider: str
    model: str
    description: str | None
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, a: Agent) -> AgentPublic:
        return cls(
            id=a.id,
            name=a.name,
            provider=a.provider,
            model=a.model,
            description=a.description,
            created_at=iso_millis(a.created_at),
            updated_at=iso_millis(a.updated_at),
        )


class ToolCreate(_Strict):
    slug: Slug
    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=4000)
    # Any JSON: domain.tools.validate_declaration answers every shape problem with a 422 naming the field.
    declaration: Any
    enabled: bool = True

    @field_validator("slug")
    @classmethod
    def _not_reserved(cls, slug: str) -> str:
        # /v1/agent-tools/records/{id} reads records by id, so a tool named "records" would be shadowed.
        if slug in RESERVED_SLUGS:
            raise ValueError(f"{slug} is reserved")
        return slug


class ToolUpdate(_Patch):
    name: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=4000)
    declaration: Any = None
    enabled: bool | None = None


class ToolWarning(BaseModel):
    """A rule of the spec that makes part of a valid declaration act otherwise than written."""

    code: str
    message: str
    field: str


class ToolPublic(BaseModel):
    id: str
    slug: str
    revision: int
    name: str
    description: str
    declaration: dict[str, Any]
    enabled: bool
    current: bool
    created_at: str
    superseded_at: str | None
    # Derived from the declaration on every read, so a stored declaration always shows its warnings.
    warnings: list[ToolWarning]

    @classmethod
    def of(cls, t: AgentTool) -> ToolPublic:
        return cls(
            id=t.id,
            slug=t.slug,
            revision=t.revision,
            name=t.name,
            description=t.description,
            declaration=t.declaration,
            enabled=t.enabled,
            current=t.is_current,
            created_at=iso_millis(t.created_at),
            superseded_at=iso_millis(t.superseded_at) if t.superseded_at else None,
            warnings=[
                ToolWarning(code=w.code, message=w.message, field=w.field)
                for w in declaration_warnings(t.declaration or {})
            ],
        )


class GuardrailsConfig(BaseModel):
    """Documented keys are type-checked; other keys are kept as sent and ignored by the engine."""

    model_config = ConfigDict(extra="allow")

    capExecucion: StrictInt | None = Field(default=None, ge=1, le=100)
    capConversacion: StrictInt | None = Field(default=None, ge=1, le=1000)


class RoutingIntent(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: StrictStr = Field(min_length=1, max_length=100)
    description: StrictStr = Field(default="", max_length=2000)
    examples: list[StrictStr] = Field(default_factory=list, max_length=100)


class Routing(BaseModel):
    """The router's intents; ``catch_all`` is implicit. Other keys are kept as sent."""

    model_config = ConfigDict(extra="allow")

    intents: list[RoutingIntent] | None = Field(default=None, max_length=100)


class VersionCreate(_Strict):
    system_prompt: str = Field(min_length=1, max_length=100_000)
    tools: list[Slug] = Field(default_factory=list, max_length=MAX_TOOLS_PER_VERSION)
    guardrails_config: GuardrailsConfig = Field(default_factory=GuardrailsConfig)
    routing: Routing | None = None


class VersionPublic(BaseModel):
    id: str
    agent_id: str
    version: int
    system_prompt: str
    tools: list[str]
    guardrails_config: dict[str, Any]
    routing: dict[str, Any]
    created_at: str

    @classmethod
    def of(cls, v: AgentVersion) -> VersionPublic:
        return cls(
            id=v.id,
            agent_id=v.agent_id,
            version=v.version,
            system_prompt=v.system_prompt,
            tools=v.tools,
            guardrails_config=v.guardrails_config,
            routing=v.routing,
            created_at=iso_millis(v.created_at),
        )


def _check_base_url(value: str | None) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("base_url must be an absolute http or https URL")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError("base_url may not carry a query string, a fragment or credentials")
    # Declarations append "/path" to {{binding.base_url}}; a trailing slash would double it.
    return value.rstrip("/")


class BindingParams(BaseModel):
    """The engine's documented keys, type-checked; unknown keys are kept (tools read them) and ignored."""

    model_config = ConfigDict(extra="allow")

    wizardEnabled: StrictBool | None = None
    wizardReserveToolSlug: StrictStr | None = Field(default=None, pattern=TOOL_SLUG_PATTERN)
    catchAllAction: Literal["escalate", "respond"] | None = None
    capConversacion: StrictInt | None = Field(default=None, ge=1, le=1000)
    inactiveResetDays: StrictInt | None = Field(default=None, ge=0, le=3650)
    # The spec's home of {{binding.base_url}}; stored in the binding's base_url column, not in params.
    base_url: StrictStr | None = Field(default=None, max_length=2000)

    _base_url = field_validator("base_url")(_check_base_url)


def as_sent(model: BaseModel) -> dict[str, Any]:
    """Every key the client sent, minus documented keys sent as null (null means "use the default")."""
    extra = model.model_extra or {}
    return {k: v for k, v in model.model_dump(exclude_unset=True).items() if v is not None or k in extra}


class EffectiveParams(BaseModel):
    """The values the engine uses once defaults are applied."""

    wizardEnabled: bool
    wizardReserveToolSlug: str | None
    catchAllAction: str
    capConversacion: int
    inactiveResetDays: int
    inactiveResetDaysSource: Literal["binding", "environment"]


def effective_params(
    params: dict[str, Any],
    guardrails_config: dict[str, Any],
    *,
    default_inactive_reset_days: int,
    platform_managed: bool = False,
) -> EffectiveParams:
    """Apply defaults: params over the version's guardrails over the spec's defaults (30 for
    platform-managed tenants); the environment for inactivity."""
    reset_days = params.get("inactiveResetDays")
    cap = cap_conversacion(params, guardrails_config, platform_managed=platform_managed)
    return EffectiveParams(
        wizardEnabled=bool(params.get("wizardEnabled", False)),
        wizardReserveToolSlug=params.get("wizardReserveToolSlug"),
        catchAllAction=params.get("catchAllAction", "escalate"),
        capConversacion=cap,
        inactiveResetDays=default_inactive_reset_days if reset_days is None else reset_days,
        inactiveResetDaysSource="environment" if reset_days is None else "binding",
    )


class BindingCreate(_Strict):
    name: str = Field(min_length=1, max_length=200)
    agent_version_id: str = Field(min_length=1, max_length=64)
    scope: BindingScope
    customer_id: str | None = Field(default=None, max_length=64)
    phone_number_id: str | None = Field(default=None, max_length=64)
    base_url: str | None = Field(default=None, max_length=2000)
    params: BindingParams = Field(default_factory=BindingParams)
    reglas: dict[str, Any] = Field(default_factory=dict)
    enabled: bool = True

    _base_url = field_validator("base_url")(_check_base_url)


class BindingUpdate(_Patch):
    nullable: ClassVar[frozenset[str]] = frozenset({"base_url"})

    name: str | None = Field(default=None, min_length=1, max_length=200)
    agent_version_id: str | None = Field(default=None, min_length=1, max_length=64)
    base_url: str | None = Field(default=None, max_length=2000)
    params: BindingParams | None = None
    reglas: dict[str, Any] | None = None
    enabled: bool | None = None

    _base_url = field_validator("base_url")(_check_base_url)


def chosen_base_url(body: BindingCreate | BindingUpdate) -> tuple[bool, str | None]:
    """Whether the request sets the base URL (top-level ``base_url`` or ``params.base_url``) and to what.

    Both name one setting: given both with different values is a 400 naming both fields. On create a
    null is "not given"; on PATCH a null clears it.
    """
    clears = isinstance(body, BindingUpdate)
    given: dict[str, str | None] = {}
    if "base_url" in body.model_fields_set and (clears or body.base_url is not None):
        given["base_url"] = body.base_url
    params = body.params
    if (
        params is not None
        and "base_url" in params.model_fields_set
        and (clears or params.base_url is not None)
    ):
        given["params.base_url"] = params.base_url
    if len(set(given.values())) > 1:
        raise ValidationFailed(
            "base_url and params.base_url are one setting and were given different values; send one of them",
            code="VALIDATION_FAILED",
            details={"field": "base_url", "fields": ["base_url", "params.base_url"]},
        )
    if not given:
        return False, None
    return True, next(iter(given.values()))


def stored_params(params: BindingParams) -> dict[str, Any]:
    """``as_sent`` without ``base_url``, which lives in its own column."""
    return {k: v for k, v in as_sent(params).items() if k != "base_url"}


def public_params(binding: AgentBinding) -> dict[str, Any]:
    """The params a client reads back: as stored, plus ``base_url`` when the binding has one."""
    params = dict(binding.params or {})
    if binding.base_url is not None:
        params["base_url"] = binding.base_url
    return params


class BindingPublic(BaseModel):
    id: str
    name: str
    agent_id: str
    agent_version_id: str
    scope: str
    customer_id: str | None
    phone_number_id: str | None
    base_url: str | None
    params: dict[str, Any]
    effective_params: EffectiveParams
    reglas: dict[str, Any]
    enabled: bool
    has_secrets: bool
    secret_names: list[str]
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, b: AgentBinding, *, effective: EffectiveParams) -> BindingPublic:
        return cls(
            id=b.id,
            name=b.name,
            agent_id=b.agent_id,
            agent_version_id=b.agent_version_id,
            scope=b.scope,
            customer_id=b.customer_id,
            phone_number_id=b.phone_number_id,
            base_url=b.base_url,
            params=public_params(b),
            effective_params=effective,
            reglas=b.reglas,
            enabled=b.enabled,
            has_secrets=bool(b.secrets_encrypted),
            secret_names=sorted(b.secrets_encrypted or {}),
            created_at=iso_millis(b.created_at),
            updated_at=iso_millis(b.updated_at),
        )


class BindingSecretsSet(BaseModel):
    binding_id: str
    has_secrets: bool
    secret_names: list[str]


class Deleted(BaseModel):
    id: str
    deleted: bool = True


class ToolDeleted(BaseModel):
    slug: str
    deleted: bool = True
