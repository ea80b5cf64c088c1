// Shared by every portal page: DOM building, the API client, sign-in, formatting.
// Plain ES module, no dependencies. Untrusted text only ever reaches the page through
// textContent (the CSP also forbids inline code and enforces Trusted Types).

const KEY_STORE = "sb.apiKey";
const EMBED_STORE = "sb.embed";

let auth = null; // {mode: "key", key} | {mode: "embed", csrf, requireAgentLogin, phone_number_id, expires_at}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

/** h("tag", {class, text, dataset, onclick, attr...}, ...children): an element, never via HTML strings. */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") el.className = value;
    else if (name === "text") el.textContent = String(value);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "value") el.value = value;
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
    this.code = this.body.code || null;
    this.retryAfter = Number(this.body.retry_after_seconds || 0);
  }
}

export function authMode() {
  return auth ? auth.mode : null;
}

export function embedSession() {
  return auth && auth.mode === "embed" ? auth : null;
}

/** Call the JSON API as the signed-in key (X-API-Key) or the embedded inbox session (cookie + CSRF). */
export async function api(method, path, body, extraHeaders = {}) {
  if (!auth) throw new ApiError(401, { message: "not signed in" });
  const headers = { Accept: "application/json", ...extraHeaders };
  let url = path;
  if (auth.mode === "key") {
    headers["X-API-Key"] = auth.key;
  } else {
    if (!path.startsWith("/v1/inbox-embed/")) throw new ApiError(403, { message: "not available in the embedded inbox" });
    url = "/portal/inbox/api/" + path.slice("/v1/inbox-embed/".length);
    headers["X-Portal-CSRF"] = auth.csrf;
  }
  const init = { method, headers, credentials: "same-origin", cache: "no-store", redirect: "error" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { message: text.slice(0, 200) };
    }
  }
  if (!response.ok) {
    const error = new ApiError(response.status, data);
    if (response.status === 401) onUnauthorized(error);
    throw error;
  }
  return { status: response.status, data };
}

export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== "") search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

function onUnauthorized(error) {
  if (auth && auth.mode === "embed") {
    sessionStorage.removeItem(EMBED_STORE);
    showFatal(`${error.message}. Reload the page that embeds this inbox to get a new link.`);
  } else if (auth && auth.mode === "key") {
    sessionStorage.removeItem(KEY_STORE);
    auth = null;
    showSignin(error.message);
  }
}

function showFatal(message) {
  $("#main").hidden = true;
  const box = $("#signin");
  box.hidden = false;
  box.replaceChildren(h("h1", { text: "Inbox unavailable" }), h("p", { class: "error", id: "fatal", role: "alert", text: message }));
}

let toastTimer = null;
export function toast(message, kind = "") {
  const el = $("#toast");
  el.textContent = message;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.hidden = true), 5000);
}

export function errorText(error) {
  if (error instanceof ApiError) return error.code ? `${error.message} (${error.code})` : error.message;
  return String(error && error.message ? error.message : error);
}

// ---------------------------------------------------------------- formatting

export function ago(iso) {
  if (!iso) return "";
  const seconds = (Date.now() - Date.parse(iso)) / 1000;
  if (seconds < 45) return "just now";
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

export function until(iso) {
  const seconds = (Date.parse(iso) - Date.now()) / 1000;
  if (seconds <= 0) return "closed";
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))} min left`;
  return `${Math.floor(seconds / 3600)} h left`;
}

export function clock(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  return today
    ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

export function timeEl(iso, text) {
  return h("time", { datetime: iso, title: iso ? new Date(iso).toLocaleString() : "" }, text ?? ago(iso));
}

export function usd(decimal) {
  const value = Number(decimal || 0);
  if (value === 0) return "$0";
  if (value >= 0.01) return `$${value.toFixed(2)}`;
  return `$${value.toFixed(6).replace(/0+$/, "")}`;
}

export function percent(rate) {
  return rate === null || rate === undefined ? "–" : `${(rate * 100).toFixed(rate === 1 || rate === 0 ? 0 : 1)} %`;
}

export function shortId(id) {
  return id ? `${id.slice(0, 6)}…${id.slice(-6)}` : "";
}

// ---------------------------------------------------------------- sign-in and page start

function keyPrefix(key) {
  return `${key.slice(0, 13)}…`;
}

function showSignin(message = "") {
  $("#main").hidden = true;
  $("#sign-out").hidden = true;
  $("#whoami").textContent = "";
  $("#signin").hidden = false;
  $("#signin-error").textContent = message;
  $("#signin-key").focus();
}

function framed() {
  try {
    return window.self !== window.top;
  } catch {
    return true;
  }
}

function enter(start) {
  $("#signin").hidden = true;
  $("#main").hidden = false;
  if (auth.mode === "key") {
    $("#whoami").textContent = `Signed in with ${keyPrefix(auth.key)}`;
    $("#sign-out").hidden = false;
  } else {
    $("#whoami").textContent = `Embedded inbox · session until ${clock(auth.expires_at)}`;
  }
  start(auth);
}

async function exchange(token) {
  const response = await fetch("/portal/inbox/session", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ token }),
    credentials: "same-origin",
    cache: "no-store",
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/**
 * Start a page: the embedded session (a link's #embed= token, exchanged once), else the API key of
 * this tab, else the sign-in form. `embeddable` pages accept embed links; `start(auth)` runs once in.
 */
export async function boot({ embeddable = false, start }) {
  if (embeddable && framed()) document.body.classList.add("embedded");
  $("#sign-out").addEventListener("click", () => {
    sessionStorage.removeItem(KEY_STORE);
    location.reload();
  });
  $("#signin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const key = $("#signin-key").value.trim();
    if (!key) return;
    auth = { mode: "key", key };
    try {
      await api("GET", "/v1/phone-numbers?per_page=1");
    } catch (error) {
      auth = null;
      $("#signin-error").textContent = errorText(error);
      return;
    }
    sessionStorage.setItem(KEY_STORE, key);
    $("#signin-key").value = "";
    enter(start);
  });

  if (embeddable) {
    const fragment = new URLSearchParams(location.hash.slice(1));
    const token = fragment.get("embed");
    if (token) {
      // The token leaves the address bar at once; the session cookie replaces it.
      history.replaceState(null, "", location.pathname + location.search);
      try {
        const session = await exchange(token);
        sessionStorage.setItem(EMBED_STORE, JSON.stringify(session));
      } catch (error) {
        sessionStorage.removeItem(EMBED_STORE);
        document.body.classList.add("embedded");
        showFatal(`This inbox link cannot be used: ${errorText(error)}`);
        return;
      }
    }
    const stored = sessionStorage.getItem(EMBED_STORE);
    if (stored) {
      auth = { mode: "embed", ...JSON.parse(stored) };
      document.body.classList.add("embedded");
      enter(start);
      return;
    }
  }
  const key = sessionStorage.getItem(KEY_STORE);
  if (key) {
    auth = { mode: "key", key };
    enter(start);
    return;
  }
  showSignin();
}

/** Ask for a reason (and who acts) in a modal dialog; resolves to {reason, user_id} or null. */
export function askReason({ title, text, confirm, placeholder = "" }) {
  return new Promise((resolve) => {
    const reason = h("textarea", { id: "reason-input", rows: 3, required: true, maxlength: 1000, placeholder });
    const who = h("input", { id: "reason-user", type: "text", maxlength: 200, placeholder: "your name (optional)" });
    const error = h("p", { class: "error" });
    const dialog = h(
      "dialog",
      { id: "reason-dialog" },
      h("h2", { text: title }),
      h("p", { class: "muted", text }),
      h("label", { for: "reason-input", text: "Reason" }),
      reason,
      h("label", { for: "reason-user", text: "Done by" }),
      who,
      error,
      h(
        "div",
        { class: "buttons" },
        h("button", { type: "button", onclick: () => dialog.close("") }, "Cancel"),
        h(
          "button",
          {
            type: "button",
            class: "primary",
            id: "reason-confirm",
            onclick: () => {
              if (!reason.value.trim()) {
                error.textContent = "Give a reason.";
                return;
              }
              dialog.close("ok");
            },
          },
          confirm,
        ),
      ),
    );
    dialog.addEventListener("close", () => {
      const ok = dialog.returnValue === "ok";
      const result = ok ? { reason: reason.value.trim(), user_id: who.value.trim() || undefined } : null;
      dialog.remove();
      resolve(result);
    });
    document.body.append(dialog);
    dialog.showModal();
    reason.focus();
  });
}
