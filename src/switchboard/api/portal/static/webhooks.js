// Webhook endpoints with their health (24 h and 7 d success rate, status), the test event, reactivation,
// and each endpoint's deliveries: the attempt log, a resend of one delivery, and the recovery of a window.

import { $, ago, api, boot, errorText, h, percent, timeEl, toast } from "./lib.js";

const STATUS_CLASS = { healthy: "ok", degraded: "warn", failing: "bad", auto_disabled: "bad", disabled: "", no_deliveries: "" };
const state = { webhooks: [], health: new Map(), open: null, log: null };
const DELIVERY_CLASS = { succeeded: "ok", pending: "warn", failed: "bad", gone: "bad", canceled: "" };

async function loadHealth() {
  // Health is reported per business number; each webhook's own figures are the same wherever it appears.
  const health = new Map();
  const phones = (await api("GET", "/v1/phone-numbers?per_page=100")).data.data;
  const answers = await Promise.allSettled(
    phones.map((phone) => api("GET", `/v1/webhooks/health-by-phone?phone_number_id=${encodeURIComponent(phone.phone_number_id)}`)),
  );
  for (const answer of answers) {
    if (answer.status !== "fulfilled") continue;
    for (const figures of answer.value.data.webhooks) health.set(figures.webhookId, figures);
  }
  return health;
}

async function load() {
  const [list, health] = await Promise.all([api("GET", "/v1/webhooks?per_page=100"), loadHealth()]);
  state.webhooks = list.data.data;
  state.health = health;
  render();
  if (state.open) {
    const webhook = state.webhooks.find((w) => w.id === state.open);
    if (webhook) fillDialog(webhook);
  }
}

function statusOf(webhook) {
  const figures = state.health.get(webhook.id);
  if (figures) return figures.status;
  if (webhook.auto_disabled_at) return "auto_disabled";
  return webhook.enabled ? "no_deliveries" : "disabled";
}

function statusBadge(webhook) {
  const status = statusOf(webhook);
  return h("span", { class: `badge ${STATUS_CLASS[status] ?? ""}`, "data-status": status }, status.replace("_", " "));
}

function kinds(count) {
  return count === 1 ? "1 kind" : `${count} kinds`;
}

function attempts(count) {
  return `${count} attempt${count === 1 ? "" : "s"}`;
}

function rate(figures, which) {
  if (!figures) return "–";
  const value = which === "24h" ? figures.successRate24h : figures.successRate7d;
  const total = which === "24h" ? figures.deliveries24hTotal : figures.deliveries7dTotal;
  return [percent(value), h("div", { class: "muted small" }, attempts(total))];
}

function render() {
  $("#webhooks-body").replaceChildren(
    ...state.webhooks.map((webhook) => {
      const figures = state.health.get(webhook.id);
      return h(
        "tr",
        { "data-id": webhook.id },
        h("td", {}, h("div", { class: "mono" }, webhook.url), webhook.description ? h("div", { class: "muted small" }, webhook.description) : null),
        h("td", { class: "small", title: webhook.events.join(", ") }, webhook.all_events ? "all events" : kinds(webhook.events.length)),
        h("td", { class: "mono small" }, webhook.phone_number_id || "all"),
        h("td", {}, statusBadge(webhook)),
        h("td", { class: "num", "data-rate": "24h" }, rate(figures, "24h")),
        h("td", { class: "num", "data-rate": "7d" }, rate(figures, "7d")),
        h("td", {}, figures && figures.lastDeliveryAt ? timeEl(figures.lastDeliveryAt) : "never"),
        h(
          "td",
          {},
          h(
            "div",
            { class: "actions" },
            h("button", { type: "button", "data-action": "health", onclick: () => openDialog(webhook) }, "Health & test"),
            h("button", { type: "button", "data-action": "deliveries", onclick: () => openLog(webhook) }, "Deliveries"),
            webhook.auto_disabled_at ? h("button", { type: "button", class: "primary", "data-action": "reactivate", onclick: () => reactivate(webhook) }, "Reactivate") : null,
          ),
        ),
      );
    }),
  );
  $("#webhooks-empty").hidden = state.webhooks.length > 0;
}

function kv(pairs) {
  return pairs.filter(([, value]) => value !== null && value !== undefined).flatMap(([name, value]) => [h("dt", {}, name), h("dd", {}, value)]);
}

function when(iso) {
  return iso ? `${new Date(iso).toLocaleString()} (${ago(iso)})` : "never";
}

function fillDialog(webhook) {
  const figures = state.health.get(webhook.id);
  $("#health-title").textContent = `Health of ${webhook.description || "webhook"}`;
  $("#health-url").textContent = webhook.url;
  $("#health-kv").replaceChildren(
    ...kv([
      ["Status", statusBadge(webhook)],
      ["24 h success", figures ? `${percent(figures.successRate24h)} of ${attempts(figures.deliveries24hTotal)} (${figures.failures24h} failed)` : "–"],
      ["7 d success", figures ? `${percent(figures.successRate7d)} of ${attempts(figures.deliveries7dTotal)}` : "–"],
      ["Last success", figures ? when(figures.lastSuccessAt) : "–"],
      ["Last failure", figures ? when(figures.lastFailureAt) : "–"],
      ["Enabled", webhook.enabled ? "yes" : "no (switched off by hand)"],
    ]),
  );
  const disabled = Boolean(webhook.auto_disabled_at);
  $("#health-disabled").hidden = !disabled;
  $("#health-disabled").textContent = disabled ? `Disabled automatically ${when(webhook.auto_disabled_at)}: ${webhook.auto_disabled_reason || ""}` : "";
  $("#health-reactivate").hidden = !disabled;
  $("#health-test").disabled = disabled || !webhook.enabled;
  $("#health-test").title = $("#health-test").disabled ? "Reactivate or enable the webhook before testing it" : "";
}

function openDialog(webhook) {
  state.open = webhook.id;
  $("#health-test-result").textContent = "";
  fillDialog(webhook);
  $("#health-dialog").showModal();
}

async function sendTest() {
  const webhook = state.webhooks.find((w) => w.id === state.open);
  if (!webhook) return;
  const result = $("#health-test-result");
  const before = (state.health.get(webhook.id) || {}).lastDeliveryAt || null;
  $("#health-test").disabled = true;
  try {
    const { data } = await api("POST", `/v1/webhooks/${encodeURIComponent(webhook.id)}/test`);
    result.dataset.state = "queued";
    result.textContent = `Test event queued (delivery ${data.delivery_id}); waiting for the attempt…`;
    for (let i = 0; i < 20 && state.open === webhook.id; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      state.health = await loadHealth();
      const figures = state.health.get(webhook.id) || {};
      if (figures.lastDeliveryAt && figures.lastDeliveryAt !== before) {
        const ok = figures.lastSuccessAt === figures.lastDeliveryAt;
        result.dataset.state = ok ? "delivered" : "failed";
        result.textContent = ok ? `Test event delivered (delivery ${data.delivery_id}).` : `The test delivery failed: ${await failureOf(data.delivery_id)} (delivery ${data.delivery_id}).`;
        break;
      }
    }
    render();
    fillDialog(state.webhooks.find((w) => w.id === webhook.id) || webhook);
  } catch (error) {
    result.dataset.state = "error";
    result.textContent = errorText(error);
    $("#health-test").disabled = false;
  }
}

function answerText(attempt) {
  // What the endpoint did, in words: no answer at all reads differently from an error answer.
  if (!attempt) return "no attempt yet";
  if (attempt.status_code === null) return attempt.error || "no answer";
  return `HTTP ${attempt.status_code}${attempt.success ? "" : attempt.response_body ? `: ${attempt.response_body.slice(0, 120)}` : ""}`;
}

async function failureOf(deliveryId) {
  try {
    const { data } = await api("GET", `/v1/webhook-deliveries/${encodeURIComponent(deliveryId)}`);
    const last = data.last_attempt;
    if (last && last.status_code === null) return last.error || "the endpoint did not answer";
    return last ? `the endpoint answered ${answerText(last)}` : "no attempt recorded";
  } catch (error) {
    return errorText(error);
  }
}

async function loadLog() {
  const webhook = state.log;
  if (!webhook) return;
  const status = $("#log-status").value;
  const params = new URLSearchParams({ per_page: "50" });
  if (status) params.set("status", status);
  const { data } = await api("GET", `/v1/webhooks/${encodeURIComponent(webhook.id)}/deliveries?${params}`);
  $("#log-body").replaceChildren(
    ...data.data.map((delivery) =>
      h(
        "tr",
        { "data-id": delivery.id, "data-status": delivery.status },
        h("td", {}, timeEl(delivery.created_at)),
        h("td", { class: "mono small" }, delivery.event),
        h("td", {}, h("span", { class: `badge ${DELIVERY_CLASS[delivery.status] ?? ""}` }, delivery.status)),
        h("td", { class: "num" }, String(delivery.attempt_count)),
        h("td", { class: "small" }, answerText(delivery.last_attempt)),
        h(
          "td",
          {},
          h(
            "div",
            { class: "actions" },
            h("button", { type: "button", "data-action": "attempts", onclick: () => showAttempts(delivery.id) }, "Attempts"),
            delivery.status === "pending" ? null : h("button", { type: "button", "data-action": "resend", onclick: () => resend(delivery) }, "Resend"),
          ),
        ),
      ),
    ),
  );
  $("#log-empty").hidden = data.data.length > 0;
}

async function showAttempts(deliveryId) {
  const { data } = await api("GET", `/v1/webhook-deliveries/${encodeURIComponent(deliveryId)}`);
  $("#attempts-title").textContent = `Attempts of ${data.id}`;
  $("#attempts-list").replaceChildren(
    ...data.attempts.map((attempt) =>
      h(
        "li",
        { "data-attempt": String(attempt.attempt) },
        h("span", { class: `badge ${attempt.success ? "ok" : "bad"}` }, attempt.success ? "ok" : "failed"),
        " ",
        timeEl(attempt.attempted_at),
        ` · ${attempt.status_code === null ? attempt.error || "no answer" : `HTTP ${attempt.status_code}`}`,
        attempt.latency_ms === null ? null : ` · ${attempt.latency_ms} ms`,
        attempt.response_body ? h("pre", { class: "mono small", "aria-label": "answer body" }, attempt.response_body) : null,
      ),
    ),
  );
  $("#attempts").hidden = false;
}

async function follow(recovery, label) {
  // Follow a recovery until it completes: its figures come from the server as it goes.
  const result = $("#recover-result");
  let current = recovery;
  for (let i = 0; i < 120 && current.status === "running" && state.log; i += 1) {
    result.dataset.state = "running";
    result.textContent = `${label}: ${current.done} of ${current.total} done (${current.succeeded} delivered, ${current.failed} failed)…`;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    current = (await api("GET", `/v1/webhook-recoveries/${encodeURIComponent(current.id)}`)).data;
  }
  result.dataset.state = current.status;
  result.textContent =
    current.status === "running"
      ? `${label} still running: ${current.done} of ${current.total} done.`
      : `${label} ${current.status}: ${current.succeeded} delivered, ${current.failed} failed again.`;
  await loadLog();
}

async function resend(delivery) {
  try {
    const { data } = await api("POST", `/v1/webhook-deliveries/${encodeURIComponent(delivery.id)}/resend`);
    await follow(data, `Resend of ${delivery.id}`);
  } catch (error) {
    toast(errorText(error), "bad");
  }
}

async function recover() {
  const webhook = state.log;
  const since = $("#recover-since").value;
  if (!webhook || !since) {
    toast("Choose since when failed deliveries should be resent", "bad");
    return;
  }
  const iso = new Date(since).toISOString();
  if (!window.confirm(`Resend every delivery to ${webhook.url} that failed since ${new Date(since).toLocaleString()}? Each is sent once more, under its own delivery id.`)) return;
  try {
    const { data } = await api("POST", `/v1/webhooks/${encodeURIComponent(webhook.id)}/recover`, { since: iso });
    if (data.total === 0) {
      $("#recover-result").dataset.state = "completed";
      $("#recover-result").textContent = "No delivery failed in that window.";
      return;
    }
    await follow(data, "Recovery");
  } catch (error) {
    toast(errorText(error), "bad");
  }
}

function localInput(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function openLog(webhook) {
  state.log = webhook;
  $("#log-title").textContent = `Deliveries of ${webhook.description || "webhook"}`;
  $("#log-url").textContent = webhook.url;
  $("#recover-since").value = localInput(new Date(Date.now() - 24 * 3600 * 1000));
  $("#recover-result").textContent = "";
  $("#attempts").hidden = true;
  const active = webhook.enabled && !webhook.auto_disabled_at;
  $("#recover").disabled = !active;
  $("#recover").title = active ? "" : "Reactivate or enable the webhook before recovering its deliveries";
  $("#log-dialog").showModal();
  loadLog().catch((error) => toast(errorText(error), "bad"));
}

async function reactivate(webhook) {
  try {
    await api("POST", `/v1/webhooks/${encodeURIComponent(webhook.id)}/reactivate`);
    toast("Webhook reactivated: deliveries resume");
    await load();
  } catch (error) {
    toast(errorText(error), "bad");
  }
}

function start() {
  const reload = () => load().catch((error) => toast(errorText(error), "bad"));
  $("#refresh").addEventListener("click", reload);
  $("#health-test").addEventListener("click", sendTest);
  $("#health-close").addEventListener("click", () => $("#health-dialog").close());
  $("#health-dialog").addEventListener("close", () => {
    state.open = null;
  });
  $("#log-status").addEventListener("change", () => loadLog().catch((error) => toast(errorText(error), "bad")));
  $("#recover").addEventListener("click", recover);
  $("#log-close").addEventListener("click", () => $("#log-dialog").close());
  $("#log-dialog").addEventListener("close", () => {
    state.log = null;
  });
  $("#health-reactivate").addEventListener("click", () => {
    const webhook = state.webhooks.find((w) => w.id === state.open);
    if (webhook) reactivate(webhook);
  });
  reload();
}

boot({ start });
