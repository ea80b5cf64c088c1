// Failed messages and their bulk retry: up to 500 per batch, a few at a time, with each message's outcome.

import { $, api, boot, errorText, h, query, shortId, timeEl, toast } from "./lib.js";

const MAX_BATCH = 500;
const PER_PAGE = 50;
const CONCURRENCY = 4;
const RATE_LIMIT_RETRIES = 3;

const state = { page: 1, total: 0, rows: [], selected: new Map(), outcomes: new Map(), running: false, stop: false };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function recipient(message) {
  return message.to_phone ? `+${message.to_phone}` : message.recipient || "";
}

function errorSummary(message) {
  const title = message.error_title || "";
  const detail = message.error_message || "";
  if (!detail || title.includes(detail)) return title;
  if (!title || detail.includes(title)) return detail;
  return `${title}: ${detail}`;
}

function outcomeCell(id) {
  const outcome = state.outcomes.get(id);
  if (!outcome) return "";
  return h("span", { class: `outcome-${outcome.kind}`, "data-outcome": outcome.kind }, outcome.text);
}

async function loadPage() {
  const status = $("#status-filter").value;
  const { data } = await api("GET", "/v1/messages" + query({ status, direction: "outbound", page: state.page, per_page: PER_PAGE }));
  state.rows = data.data;
  state.total = data.total;
  render();
}

function render() {
  $("#messages-body").replaceChildren(
    ...state.rows.map((message) =>
      h(
        "tr",
        { "data-id": message.id, class: state.selected.has(message.id) ? "selected" : "" },
        h(
          "td",
          {},
          h("input", {
            type: "checkbox",
            "aria-label": `select ${message.id}`,
            checked: state.selected.has(message.id),
            onchange: (event) => toggle(message, event.target.checked),
          }),
        ),
        h("td", {}, timeEl(message.occurred_at)),
        h("td", { class: "mono" }, recipient(message)),
        h("td", {}, message.message_type),
        h("td", {}, (message.content || "").slice(0, 120)),
        h(
          "td",
          { class: "small" },
          h("div", {}, errorSummary(message)),
          message.error_code ? h("div", { class: "muted mono" }, message.error_code) : null,
        ),
        h("td", { class: "small" }, message.source),
        h("td", { class: "small" }, outcomeCell(message.id)),
      ),
    ),
  );
  $("#messages-empty").hidden = state.rows.length > 0;
  const pages = Math.max(1, Math.ceil(state.total / PER_PAGE));
  $("#page-info").textContent = `Page ${state.page} of ${pages} · ${state.total} message${state.total === 1 ? "" : "s"}`;
  $("#prev-page").disabled = state.page <= 1;
  $("#next-page").disabled = state.page >= pages;
  $("#check-page").checked = state.rows.length > 0 && state.rows.every((m) => state.selected.has(m.id));
  renderSelection();
}

function renderSelection() {
  const count = state.selected.size;
  $("#selection-count").textContent = `${count} selected`;
  const button = $("#retry-selected");
  button.disabled = count === 0 || state.running;
  button.textContent = count > MAX_BATCH ? `Retry the first ${MAX_BATCH}` : `Retry ${count || ""} selected`.replace("  ", " ");
}

function toggle(message, on) {
  if (on) state.selected.set(message.id, message);
  else state.selected.delete(message.id);
  render();
}

async function selectAll() {
  const status = $("#status-filter").value;
  const button = $("#select-all");
  button.disabled = true;
  try {
    for (let page = 1; state.selected.size < MAX_BATCH; page += 1) {
      const { data } = await api("GET", "/v1/messages" + query({ status, direction: "outbound", page, per_page: 100 }));
      for (const message of data.data) if (state.selected.size < MAX_BATCH) state.selected.set(message.id, message);
      if (!data.has_more) break;
    }
  } catch (error) {
    toast(errorText(error), "bad");
  } finally {
    button.disabled = false;
    render();
  }
}

async function retryOne(message) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const { status, data } = await api("POST", `/v1/messages/${encodeURIComponent(message.id)}/retry`);
      if (status === 200) {
        // The endpoint deduplicates: a retry of this message is queued or went through already.
        return { kind: "skip", text: `skipped: already retried as ${shortId(data.id)} (${data.status}), not sent again`, newId: data.id };
      }
      const verb = status === 202 ? "accepted" : "sent again";
      return { kind: "ok", text: `${verb} as ${shortId(data.id)} (${data.status})`, newId: data.id };
    } catch (error) {
      if (error.status === 429 && error.code === "too_many_requests") {
        const wait = error.retryAfter ? ` (possible again in ${Math.max(1, Math.round(error.retryAfter / 60))} min)` : "";
        return { kind: "skip", text: `skipped: already retried in the last 5 minutes${wait}` };
      }
      if (error.status === 429 && attempt < RATE_LIMIT_RETRIES && !state.stop) {
        await sleep(Math.max(1, error.retryAfter || 1) * 1000);
        continue;
      }
      if (error.code === "MESSAGE_NOT_RETRYABLE") return { kind: "skip", text: `skipped: ${error.message}` };
      const again = error.body && error.body.message_id;
      return { kind: "bad", text: `${again ? "failed again" : "refused"}: ${errorText(error)}`, newId: again || null };
    }
  }
}

async function retrySelected() {
  // A Map keyed by id: each message once per batch, whatever was clicked.
  const batch = [...state.selected.values()].slice(0, MAX_BATCH);
  if (!batch.length || state.running) return;
  state.running = true;
  state.stop = false;
  renderSelection();
  const counts = { ok: 0, skip: 0, bad: 0 };
  const progress = $("#retry-progress");
  const results = $("#retry-results");
  $("#retry-panel").hidden = false;
  $("#retry-title").textContent = `Retrying ${batch.length} message${batch.length === 1 ? "" : "s"}`;
  $("#retry-stop").disabled = false;
  progress.max = batch.length;
  progress.value = 0;
  results.replaceChildren();
  const rows = new Map();
  for (const message of batch) {
    const cell = h("td", { "data-outcome": "pending", class: "muted" }, "waiting");
    rows.set(message.id, cell);
    results.append(h("tr", { "data-id": message.id }, h("td", { class: "mono nowrap", title: message.id }, shortId(message.id)), h("td", { class: "mono nowrap" }, recipient(message)), cell));
  }
  const showCounts = () => {
    const done = counts.ok + counts.skip + counts.bad;
    progress.value = done;
    $("#retry-counts").textContent = `${done}/${batch.length} · ${counts.ok} sent · ${counts.bad} failed · ${counts.skip} skipped`;
  };
  showCounts();
  const queue = batch.slice();
  const worker = async () => {
    while (queue.length && !state.stop) {
      const message = queue.shift();
      rows.get(message.id).textContent = "retrying…";
      const outcome = await retryOne(message);
      state.outcomes.set(message.id, outcome);
      counts[outcome.kind] += 1;
      const cell = rows.get(message.id);
      cell.className = `outcome-${outcome.kind}`;
      cell.dataset.outcome = outcome.kind;
      cell.textContent = outcome.text;
      showCounts();
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, batch.length) }, worker));
  for (const message of queue) rows.get(message.id).textContent = "not retried (stopped)";
  state.running = false;
  for (const message of batch) if (state.outcomes.has(message.id)) state.selected.delete(message.id);
  $("#retry-stop").disabled = true;
  $("#retry-title").textContent = state.stop ? "Retry stopped" : "Retry finished";
  $("#retry-panel").dataset.done = "true";
  toast(`Retry finished: ${counts.ok} sent, ${counts.bad} failed, ${counts.skip} skipped`);
  // Retries that failed again are failed messages of their own: show the list as it is now.
  await loadPage().catch((error) => toast(errorText(error), "bad"));
}

function start() {
  const reload = () => loadPage().catch((error) => toast(errorText(error), "bad"));
  $("#status-filter").addEventListener("change", () => {
    state.page = 1;
    state.selected.clear();
    reload();
  });
  $("#refresh").addEventListener("click", reload);
  $("#prev-page").addEventListener("click", () => {
    state.page = Math.max(1, state.page - 1);
    reload();
  });
  $("#next-page").addEventListener("click", () => {
    state.page += 1;
    reload();
  });
  $("#check-page").addEventListener("change", (event) => {
    for (const message of state.rows) {
      if (event.target.checked && state.selected.size < MAX_BATCH) state.selected.set(message.id, message);
      else if (!event.target.checked) state.selected.delete(message.id);
    }
    render();
  });
  $("#select-all").addEventListener("click", selectAll);
  $("#clear-selection").addEventListener("click", () => {
    state.selected.clear();
    render();
  });
  $("#retry-selected").addEventListener("click", retrySelected);
  $("#retry-stop").addEventListener("click", () => {
    state.stop = true;
  });
  reload();
}

boot({ start });
