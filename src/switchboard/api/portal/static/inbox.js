// The inbox: conversations, the open thread, human replies and mark-as-resolved.
// Works with an API key (X-API-Key on /v1/inbox-embed) or an embedded session (signed link).

import { $, $$, api, boot, clock, embedSession, errorText, h, query, timeEl, toast, until } from "./lib.js";

const params = new URLSearchParams(location.search);
const POLL_MS = Math.min(30000, Math.max(500, Number(params.get("poll")) || 2500));
const AGENT_STORE = "sb.inbox.agent";

const state = {
  status: "active",
  phone: params.get("phone_number_id") || null,
  requireAgentLogin: ["1", "true"].includes((params.get("requireAgentLogin") || "").toLowerCase()),
  conversations: [],
  contacts: new Map(),
  selected: params.get("conversation"),
  current: null,
  listSig: "",
  threadSig: "",
  busy: false,
  failures: 0,
};

// ---------------------------------------------------------------- names and labels

function contactOf(conversation) {
  return state.contacts.get(conversation.contact_id) || null;
}

function displayName(conversation) {
  if (conversation.group_id) return "WhatsApp group";
  const contact = contactOf(conversation);
  if (contact && contact.name) return contact.name;
  if (conversation.contactUsername) return `@${conversation.contactUsername}`;
  if (conversation.contact_phone) return `+${conversation.contact_phone}`;
  return conversation.contactBsuid || "Unknown contact";
}

function identifiers(conversation) {
  const parts = [];
  if (conversation.group_id) parts.push(`group ${conversation.group_id}`);
  if (conversation.contactUsername) parts.push(`@${conversation.contactUsername}`);
  if (conversation.contact_phone) parts.push(`+${conversation.contact_phone}`);
  if (conversation.contactBsuid) parts.push(`BSUID ${conversation.contactBsuid}`);
  return parts.join(" · ");
}

function windowBadge(conversation) {
  if (conversation.window_open) {
    return h("span", { class: "badge ok", title: `24 h window open until ${new Date(conversation.window_expires_at).toLocaleString()}`, "data-window": "open" }, `24 h window · ${until(conversation.window_expires_at)}`);
  }
  return h("span", { class: "badge", title: "Only templates can be sent until the contact writes again", "data-window": "closed" }, "window closed");
}

const SOURCES = {
  AUTO_AGENT_PLATFORM: "AI agent",
  HUMAN_PORTAL: "Inbox agent",
  HUMAN_EMBED_ANONYMOUS: "Inbox",
  HUMAN_COEXISTENCE: "Business app",
  API: "API",
};

const STATUS_TICKS = {
  sent: ["✓", "Sent"],
  delivered: ["✓✓", "Delivered"],
  read: ["✓✓", "Read"],
  failed: ["⚠ failed", "Failed"],
  failed_transient: ["⚠ not sent yet", "Not sent yet: the upstream was unavailable"],
  sent_sandbox: ["✓ sandbox", "Sandbox: nothing was sent"],
  queued: ["◷", "Queued"],
};

const MEDIA_ICONS = { image: "IMG", video: "VID", audio: "AUD", voice: "AUD", document: "DOC", sticker: "STK" };

// ---------------------------------------------------------------- message bodies

function mediaBlock(type, object, message) {
  const obj = object || {};
  const details = [obj.mime_type || (message.payload && message.payload.media_mime_type), obj.filename].filter(Boolean);
  const link = typeof obj.link === "string" && /^https?:\/\//i.test(obj.link) ? obj.link : null;
  return h(
    "div",
    { class: "media", "data-media": type },
    h("span", { class: "icon", "aria-hidden": "true" }, MEDIA_ICONS[type] || "FILE"),
    h(
      "div",
      {},
      h("div", { class: "kind" }, type === "voice" ? "voice note" : type),
      details.length ? h("div", { class: "muted small" }, details.join(" · ")) : null,
      link ? h("a", { href: link, target: "_blank", rel: "noopener noreferrer", class: "small" }, "open link") : null,
      !link ? h("div", { class: "muted small" }, "preview not available here") : null,
    ),
  );
}

function interactiveBlock(obj, message) {
  const kind = obj.type;
  const reply = obj[kind] || {};
  if (kind === "button_reply" || kind === "list_reply") {
    return h(
      "div",
      { class: "interactive-reply", "data-interactive": kind },
      h("div", { class: "muted small" }, kind === "button_reply" ? "Tapped a button" : "Picked from a list"),
      h("div", { class: "body" }, `“${reply.title || reply.id || ""}”`),
      reply.description ? h("div", { class: "muted small" }, reply.description) : null,
    );
  }
  if (kind === "nfm_reply") {
    let summary = reply.body || reply.name || "Form submitted";
    try {
      const answers = JSON.parse(reply.response_json || "{}");
      const pairs = Object.entries(answers).filter(([name]) => name !== "flow_token");
      if (pairs.length) summary = pairs.map(([name, value]) => `${name}: ${value}`).join("\n");
    } catch {
      /* not JSON: keep the body */
    }
    return h("div", { class: "interactive-reply", "data-interactive": kind }, h("div", { class: "muted small" }, "Form reply"), h("div", { class: "body" }, summary));
  }
  // An interactive message we sent: its text and the choices it offered.
  const choices = [];
  const action = obj.action || {};
  for (const button of action.buttons || []) choices.push((button.reply && button.reply.title) || button.title || button.id);
  for (const section of action.sections || []) for (const row of section.rows || []) choices.push(row.title);
  if (action.button && !choices.length) choices.push(action.button);
  const header = obj.header && obj.header.type === "text" ? obj.header.text : null;
  return h(
    "div",
    { "data-interactive": kind || "interactive" },
    header ? h("div", { class: "kind" }, header) : null,
    h("div", { class: "body" }, (obj.body && obj.body.text) || message.content || `[${kind || "interactive"}]`),
    obj.footer && obj.footer.text ? h("div", { class: "muted small" }, obj.footer.text) : null,
    choices.length ? h("div", { class: "choices" }, choices.filter(Boolean).map((title) => h("span", { class: "choice" }, title))) : null,
  );
}

function messageBody(message) {
  const payload = message.payload || {};
  const type = message.message_type;
  const obj = payload[type];
  if (["image", "video", "audio", "document", "sticker"].includes(type)) {
    const caption = obj && obj.caption;
    return [mediaBlock(type, obj, message), caption ? h("div", { class: "body" }, caption) : null];
  }
  if (type === "interactive" && obj) return interactiveBlock(obj, message);
  if (type === "button") {
    return h("div", { class: "interactive-reply", "data-interactive": "button" }, h("div", { class: "muted small" }, "Tapped a template button"), h("div", { class: "body" }, `“${(obj && (obj.text || obj.payload)) || message.content || ""}”`));
  }
  if (type === "reaction") return h("div", { class: "body" }, `Reacted ${(obj && obj.emoji) || message.content || ""}`);
  if (type === "location") return h("div", { class: "body" }, `Location: ${message.content || ""}`);
  if (type === "contacts") return h("div", { class: "body" }, `Contact card: ${message.content || ""}`);
  if (type === "template") {
    const name = (payload.template && payload.template.name) || "";
    return [h("div", { class: "muted small" }, `Template ${name}`), message.content ? h("div", { class: "body" }, message.content) : null];
  }
  if (type === "text") return h("div", { class: "body" }, (obj && obj.body) || message.content || "");
  return h("div", { class: "body" }, message.content || `[${type}]`);
}

function statusTicks(message) {
  const [mark, label] = STATUS_TICKS[message.status] || ["", message.status];
  return h("span", { class: "ticks", "data-status": message.status, title: label, "aria-label": label }, mark);
}

// Whether the open conversation is a WhatsApp group's.
function inGroup() {
  const conversation = state.conversations.find((c) => c.id === state.selected);
  return Boolean(conversation && conversation.group_id);
}

function renderMessage(message) {
  const outbound = message.direction === "outbound";
  const failed = message.status === "failed" || message.status === "failed_transient";
  const title = message.error_title || "";
  const detail = message.error_message || "";
  const errorText = !detail || title.includes(detail) ? title : !title || detail.includes(title) ? detail : `${title}: ${detail}`;
  return h(
    "li",
    {
      class: `msg ${outbound ? "outbound" : "inbound"}${failed ? " failed" : ""}`,
      "data-id": message.id,
      "data-direction": message.direction,
      "data-source": message.source,
    },
    messageBody(message),
    failed
      ? h("div", { class: "error-text" }, `${errorText || "Not delivered"}${message.error_code ? ` (${message.error_code})` : ""}`)
      : null,
    h(
      "div",
      { class: "meta" },
      outbound ? h("span", { class: "source" }, SOURCES[message.source] || message.source) : null,
      !outbound && inGroup() && message.from_phone ? h("span", { class: "author" }, `+${message.from_phone}`) : null,
      message.coexistence_echo ? h("span", {}, "echo") : null,
      timeEl(message.occurred_at, clock(message.occurred_at)),
      outbound ? statusTicks(message) : null,
    ),
  );
}

// ---------------------------------------------------------------- conversation list

function lastPreview(conversation) {
  const last = conversation.last_message;
  if (!last) return "";
  const text = last.content || `[${last.message_type}]`;
  return last.direction === "outbound" ? `You: ${text}` : text;
}

async function loadConversations() {
  const { data } = await api(
    "GET",
    "/v1/inbox-embed/conversations" + query({ status: state.status, per_page: 50, phone_number_id: state.phone }),
  );
  state.conversations = data.data;
  const missing = [...new Set(state.conversations.map((c) => c.contact_id))].filter((id) => id && !state.contacts.has(id));
  if (missing.length) {
    const contacts = await api("GET", "/v1/inbox-embed/contacts" + query({ ids: missing.join(",") }));
    for (const id of missing) state.contacts.set(id, null);
    for (const contact of contacts.data.data) state.contacts.set(contact.id, contact);
  }
  renderList();
}

function renderList() {
  const sig = JSON.stringify([state.conversations, state.selected, state.contacts.size, Math.floor(Date.now() / 60000)]);
  if (sig === state.listSig) return;
  state.listSig = sig;
  const list = $("#conv-list");
  list.replaceChildren(
    ...state.conversations.map((conversation) =>
      h(
        "li",
        {
          class: "conv-item",
          role: "option",
          tabindex: 0,
          "aria-selected": conversation.id === state.selected ? "true" : "false",
          "data-id": conversation.id,
          onclick: () => select(conversation.id),
          onkeydown: (event) => event.key === "Enter" && select(conversation.id),
        },
        h("span", { class: "name" }, displayName(conversation)),
        h("span", { class: "when" }, timeEl(conversation.last_message_at)),
        h("span", { class: "preview" }, lastPreview(conversation)),
        h(
          "span",
          { class: "flags" },
          windowBadge(conversation),
          conversation.unread_count ? h("span", { class: "badge count", "data-unread": conversation.unread_count, title: "unread" }, String(conversation.unread_count)) : null,
        ),
        h("span", { class: "ids" }, identifiers(conversation)),
      ),
    ),
  );
  $("#conv-empty").hidden = state.conversations.length > 0;
}

function setTab(status) {
  state.status = status;
  for (const tab of $$(".conv-tabs button")) tab.setAttribute("aria-selected", String(tab.dataset.status === status));
  state.listSig = "";
  refresh();
}

// ---------------------------------------------------------------- the open thread

function select(id) {
  state.selected = id;
  state.threadSig = "";
  const search = new URLSearchParams(location.search);
  search.set("conversation", id);
  history.replaceState(null, "", `${location.pathname}?${search}`);
  $("#reply-error").textContent = "";
  renderList();
  loadThread().catch((error) => toast(errorText(error), "bad"));
}

async function loadThread() {
  const id = state.selected;
  if (!id) return;
  const [conversation, messages] = await Promise.all([
    api("GET", `/v1/inbox-embed/conversations/${encodeURIComponent(id)}`),
    api("GET", `/v1/inbox-embed/conversations/${encodeURIComponent(id)}/messages?per_page=50`),
  ]);
  if (id !== state.selected) return;
  state.current = conversation.data;
  renderThread(conversation.data, messages.data.data.slice().reverse());
}

function renderThread(conversation, messages) {
  $("#thread-placeholder").hidden = true;
  $("#thread").hidden = false;
  $("#thread").dataset.conversationId = conversation.id;
  $("#thread-name").textContent = displayName(conversation);
  $("#thread-ids").textContent = identifiers(conversation);
  const badge = windowBadge(conversation);
  badge.id = "thread-window";
  $("#thread-window").replaceWith(badge);
  const archived = conversation.status === "archived";
  $("#archive-button").disabled = archived;
  $("#archive-button").textContent = archived ? "Resolved" : "Mark as resolved";
  $("#window-warning").hidden = conversation.window_open;
  renderComposer();

  const sig = JSON.stringify(messages.map((m) => [m.id, m.status, m.error_code]));
  if (sig === state.threadSig) return;
  state.threadSig = sig;
  const list = $("#messages");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.replaceChildren(...messages.map(renderMessage));
  if (atBottom || !list.dataset.scrolled) {
    list.scrollTop = list.scrollHeight;
    list.dataset.scrolled = "1";
  }
}

function agentName() {
  return sessionStorage.getItem(AGENT_STORE) || "";
}

function renderComposer() {
  const needsLogin = state.requireAgentLogin && !agentName();
  // A reply addresses one person; a group's posts are read here and answered from the phone.
  const group = inGroup();
  $("#agent-login").hidden = !needsLogin;
  $("#agent-current").hidden = !state.requireAgentLogin || needsLogin;
  $("#agent-current-name").textContent = agentName();
  $("#reply-text").disabled = needsLogin || group;
  $("#reply-text").placeholder = group ? "Replies to a group are not sent from the inbox" : "Write a reply…";
  $("#reply-send").disabled = needsLogin || group;
}

async function sendReply(event) {
  event.preventDefault();
  const text = $("#reply-text").value.trim();
  if (!text || !state.selected) return;
  const body = { text };
  if (state.requireAgentLogin) {
    body.requireAgentLogin = true;
    body.agent_id = agentName();
  }
  const button = $("#reply-send");
  button.disabled = true;
  $("#reply-error").textContent = "";
  try {
    await api("POST", `/v1/inbox-embed/conversations/${encodeURIComponent(state.selected)}/messages`, body, {
      "Idempotency-Key": crypto.randomUUID(),
    });
    $("#reply-text").value = "";
    state.threadSig = "";
    await loadThread();
  } catch (error) {
    $("#reply-error").textContent = errorText(error);
    // A refused send is stored as a failed message: show it in the thread too.
    loadThread().catch(() => {});
  } finally {
    button.disabled = false;
    renderComposer();
  }
}

async function archive() {
  if (!state.selected) return;
  try {
    await api("POST", `/v1/inbox-embed/conversations/${encodeURIComponent(state.selected)}/archive`);
    toast("Marked as resolved");
    await refresh();
  } catch (error) {
    toast(errorText(error), "bad");
  }
}

// ---------------------------------------------------------------- polling

async function refresh() {
  if (state.busy) return;
  state.busy = true;
  try {
    await loadConversations();
    if (state.selected) await loadThread();
    state.failures = 0;
  } catch (error) {
    if (error.status === 404 && state.selected) {
      // The open conversation is gone from view (another number, or hidden): close it.
      state.selected = null;
      $("#thread").hidden = true;
      $("#thread-placeholder").hidden = false;
      renderList();
    }
    state.failures += 1;
    if (state.failures === 1 && error.status !== 401) toast(`Could not refresh: ${errorText(error)}`, "bad");
  } finally {
    state.busy = false;
  }
}

function start() {
  const session = embedSession();
  if (session) {
    state.requireAgentLogin = Boolean(session.requireAgentLogin);
    state.phone = session.phone_number_id || null;
  }
  for (const tab of $$(".conv-tabs button")) tab.addEventListener("click", () => setTab(tab.dataset.status));
  $("#composer").addEventListener("submit", sendReply);
  $("#reply-text").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) $("#composer").requestSubmit();
  });
  $("#archive-button").addEventListener("click", archive);
  $("#agent-save").addEventListener("click", () => {
    const name = $("#agent-name").value.trim();
    if (!name) return;
    sessionStorage.setItem(AGENT_STORE, name);
    renderComposer();
    $("#reply-text").focus();
  });
  $("#agent-change").addEventListener("click", () => {
    sessionStorage.removeItem(AGENT_STORE);
    $("#agent-name").value = "";
    renderComposer();
  });
  refresh();
  setInterval(() => {
    if (!document.hidden) refresh();
  }, POLL_MS);
  document.addEventListener("visibilitychange", () => !document.hidden && refresh());
}

boot({ embeddable: true, start });
