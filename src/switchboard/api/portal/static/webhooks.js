// Webhook endpoints with their health (24 h and 7 d success rate, status), the test event and reactivation.

import { $, ago, api, boot, errorText, h, percent, timeEl, toast } from "./lib.js";

const STATUS_CLASS = { healthy: "ok", degraded: "warn", failing: "bad", auto_disabled: "bad", disabled: "", no_deliveries: "" };
const state = { webhooks: [], health: new Map(), open: null };

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
        h("td", { class: "small", title: webhook.events.join(", ") }, webhook.all_events ? "all events" : `${webhook.events.length} kinds`),
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
        result.textContent = ok ? `Test event delivered (delivery ${data.delivery_id}).` : `The test delivery failed; the endpoint answered with an error (delivery ${data.delivery_id}).`;
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
  $("#health-reactivate").addEventListener("click", () => {
    const webhook = state.webhooks.find((w) => w.id === state.open);
    if (webhook) reactivate(webhook);
  });
  reload();
}

boot({ start });
