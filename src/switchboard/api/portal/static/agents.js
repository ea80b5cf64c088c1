// Agent threads (active or muted, why and since when, cost), reactivate and reset with a reason,
// and each thread's runs with their steps (model calls, tool calls, guardrail decisions).

import { $, ago, api, askReason, boot, clock, errorText, h, query, shortId, timeEl, toast, usd } from "./lib.js";

const MUTE_REASONS = {
  handoff: "handed off to a person",
  human_detected: "a person replied",
  cost_cap_thread: "thread cost cap reached",
  cost_cap_tenant_day: "daily cost cap reached",
  cost_cap_tenant_month: "monthly cost cap reached",
};
const RUN_STATUS = { completed: "ok", running: "", escalated: "warn", failed: "bad" };
const STEP_STATUS = { ok: "ok", pass: "ok", queued: "ok", negocio: "warn", semantic: "warn", infra: "bad", refused: "bad", handoff: "warn", mute: "warn", escalate: "warn", block: "bad" };

const state = { threads: [], contacts: new Map(), selected: null, run: null };

function contactLabel(thread) {
  const contact = state.contacts.get(thread.contact_id);
  if (!contact) return shortId(thread.conversation_id);
  return contact.name || (contact.username ? `@${contact.username}` : null) || (contact.phone ? `+${contact.phone}` : null) || contact.bsuid || shortId(thread.conversation_id);
}

function stateBadge(thread) {
  if (!thread.muted) return h("span", { class: "badge ok", "data-state": "active" }, "active");
  const why = MUTE_REASONS[thread.muted_reason] || thread.muted_reason;
  return h("span", { class: `badge ${thread.muted_reason === "handoff" ? "bad" : "warn"}`, "data-state": "muted", "data-reason": thread.muted_reason, title: thread.muted_reason }, `muted: ${why}`);
}

async function loadContacts(threads) {
  const missing = [...new Set(threads.map((t) => t.contact_id))].filter((id) => id && !state.contacts.has(id));
  if (!missing.length) return;
  try {
    const { data } = await api("GET", "/v1/inbox-embed/contacts" + query({ ids: missing.join(",") }));
    for (const id of missing) state.contacts.set(id, null);
    for (const contact of data.data) state.contacts.set(contact.id, contact);
  } catch {
    /* names are a nicety: ids are shown instead */
  }
}

async function loadThreads() {
  const muted = $("#muted-filter").value;
  const { data } = await api("GET", "/v1/agent-threads" + query({ muted, per_page: 100 }));
  state.threads = data.data;
  await loadContacts(state.threads);
  $("#threads-total").textContent = data.total > data.data.length ? `Showing ${data.data.length} of ${data.total}.` : "";
  renderThreads();
  if (state.selected) {
    const thread = state.threads.find((t) => t.id === state.selected.id);
    if (thread) showThread(thread, { keepRun: true });
  }
}

function renderThreads() {
  $("#threads-body").replaceChildren(
    ...state.threads.map((thread) =>
      h(
        "tr",
        { "data-id": thread.id, class: state.selected && state.selected.id === thread.id ? "selected" : "" },
        h("td", {}, h("div", {}, contactLabel(thread)), h("div", { class: "muted small mono" }, shortId(thread.id))),
        h("td", {}, stateBadge(thread), thread.wizard_active ? h("span", { class: "badge" }, " wizard") : null),
        h("td", {}, thread.muted ? timeEl(thread.muted_at) : "–"),
        h("td", { class: "num" }, String(thread.message_count)),
        h("td", { class: "num", title: `${thread.costUsd} USD since the last reactivation; ${thread.totalCostUsd} USD over the thread's life` }, usd(thread.costUsd), h("div", { class: "muted small" }, `total ${usd(thread.totalCostUsd)}`)),
        h("td", {}, timeEl(thread.updated_at)),
        h(
          "td",
          {},
          h(
            "div",
            { class: "actions" },
            h("button", { type: "button", "data-action": "details", onclick: () => showThread(thread) }, "Runs"),
            thread.muted ? h("button", { type: "button", class: "primary", "data-action": "reactivate", onclick: () => reactivate(thread) }, "Reactivate") : null,
            h("button", { type: "button", "data-action": "reset", onclick: () => reset(thread) }, "Reset messages"),
          ),
        ),
      ),
    ),
  );
  $("#threads-empty").hidden = state.threads.length > 0;
}

async function reactivate(thread) {
  const answer = await askReason({
    title: "Reactivate the agent",
    text: "The agent answers this conversation again from the next message on. Its cost since reactivation starts from zero.",
    confirm: "Reactivate",
    placeholder: "e.g. the patient's question was answered",
  });
  if (!answer) return;
  try {
    await api("POST", `/v1/agent-threads/${encodeURIComponent(thread.id)}/reactivate`, answer);
    toast("Thread reactivated: the agent answers again");
    await loadThreads();
  } catch (error) {
    toast(errorText(error), "bad");
  }
}

async function reset(thread) {
  const answer = await askReason({
    title: "Reset the agent's history",
    text: "The agent forgets this conversation's history (the messages stay in the inbox). The mute state does not change.",
    confirm: "Reset messages",
  });
  if (!answer) return;
  try {
    await api("POST", `/v1/agent-threads/${encodeURIComponent(thread.id)}/reset-messages`, answer);
    toast("History cleared");
    await loadThreads();
  } catch (error) {
    toast(errorText(error), "bad");
  }
}

function kv(pairs) {
  return pairs.filter(([, value]) => value !== null && value !== undefined && value !== "").flatMap(([name, value]) => [h("dt", {}, name), h("dd", {}, value)]);
}

function historyEntry(entry) {
  if (entry.role === "user") return h("p", {}, h("strong", {}, "Customer: "), entry.text || "");
  if (entry.role === "assistant") {
    const calls = (entry.tool_calls || []).map((call) => call.name).join(", ");
    return h("p", {}, h("strong", {}, "Agent: "), entry.text || "", calls ? h("span", { class: "muted" }, ` [calls ${calls}]`) : null);
  }
  if (entry.role === "tool") return h("p", { class: "muted" }, `Tool ${entry.tool_name}: ${(entry.content || "").slice(0, 200)}`);
  return h("p", { class: "muted" }, JSON.stringify(entry).slice(0, 200));
}

async function showThread(thread, { keepRun = false } = {}) {
  state.selected = thread;
  renderThreads();
  $("#thread-detail").hidden = false;
  $("#detail-title").textContent = `Thread with ${contactLabel(thread)}`;
  $("#detail-inbox").setAttribute("href", `/portal/inbox?conversation=${encodeURIComponent(thread.conversation_id)}`);
  $("#detail-kv").replaceChildren(
    ...kv([
      ["State", stateBadge(thread)],
      ["Muted since", thread.muted ? `${new Date(thread.muted_at).toLocaleString()} (${ago(thread.muted_at)})` : null],
      ["Cost", `${usd(thread.costUsd)} since the last reactivation · ${usd(thread.totalCostUsd)} in total`],
      ["Thread", h("code", {}, thread.id)],
      ["Conversation", h("code", {}, thread.conversation_id)],
      ["Binding", thread.binding_id ? h("code", {}, thread.binding_id) : "–"],
      ["Started", new Date(thread.created_at).toLocaleString()],
    ]),
  );
  $("#detail-history").replaceChildren(...(thread.messages.length ? thread.messages.map(historyEntry) : [h("p", { class: "muted" }, "Empty: the agent starts afresh.")]));
  try {
    const { data } = await api("GET", "/v1/agent-runs" + query({ thread_id: thread.id, per_page: 50 }));
    renderRuns(data.data);
    if (keepRun && state.run) await showRun(state.run);
    else $("#run-detail").hidden = true;
  } catch (error) {
    toast(errorText(error), "bad");
  }
}

function tokens(usage) {
  return `${(usage && usage.input_tokens) || 0} / ${(usage && usage.output_tokens) || 0}`;
}

function renderRuns(runs) {
  $("#runs-body").replaceChildren(
    ...runs.map((run) =>
      h(
        "tr",
        { "data-run": run.id },
        h("td", {}, timeEl(run.created_at, clock(run.created_at))),
        h("td", {}, h("span", { class: `badge ${RUN_STATUS[run.status] || ""}`, "data-status": run.status }, run.status)),
        h("td", {}, run.intent || "–"),
        h("td", {}, run.model ? `${run.provider} · ${run.model}` : "–"),
        h("td", { class: "num" }, tokens(run.usage)),
        h("td", { class: "num" }, usd(run.costUsd)),
        h("td", { class: "small" }, run.errorMessage || ""),
        h("td", {}, h("button", { type: "button", "data-action": "steps", onclick: () => showRun(run.id) }, "Steps")),
      ),
    ),
  );
  $("#runs-empty").hidden = runs.length > 0;
}

function stepDetails(step) {
  const data = step.data || {};
  if (step.kind === "model_call") {
    const usage = data.usage || {};
    const parts = [`${data.provider || ""} ${data.model || ""}`.trim(), `tokens in ${usage.input_tokens ?? 0}, out ${usage.output_tokens ?? 0}`];
    if (usage.cache_read_tokens) parts.push(`cache read ${usage.cache_read_tokens}`);
    if (data.stop_reason) parts.push(`stop: ${data.stop_reason}`);
    if (data.tool_calls && data.tool_calls.length) parts.push(`asked for ${data.tool_calls.join(", ")}`);
    return [h("div", {}, parts.join(" · ")), data.text_preview ? h("div", { class: "muted small" }, data.text_preview.slice(0, 200)) : null];
  }
  if (step.kind === "tool_call") {
    const parts = [`class ${step.status}`];
    if (data.method) parts.push(data.method);
    if (data.status_code !== undefined && data.status_code !== null) parts.push(`HTTP ${data.status_code}`);
    if (data.error_code) parts.push(`error ${data.error_code}`);
    if (data.token && data.token !== "none") parts.push(`token ${data.token}`);
    return parts.join(" · ");
  }
  if (step.kind === "guardrail") {
    const parts = [`decision: ${step.status}`];
    for (const [name, value] of Object.entries(data)) {
      if (value === null || value === undefined) continue;
      parts.push(`${name}: ${typeof value === "object" ? JSON.stringify(value) : value}`);
    }
    return parts.join(" · ");
  }
  return Object.entries(data)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([name, value]) => `${name}: ${typeof value === "object" ? JSON.stringify(value) : value}`)
    .join(" · ")
    .slice(0, 400);
}

async function showRun(runId) {
  state.run = runId;
  let run;
  try {
    run = (await api("GET", `/v1/agent-runs/${encodeURIComponent(runId)}`)).data;
  } catch (error) {
    toast(errorText(error), "bad");
    return;
  }
  $("#run-detail").hidden = false;
  $("#run-detail").dataset.run = run.id;
  $("#run-title").textContent = `Run ${shortId(run.id)} · ${run.status}`;
  $("#run-error").hidden = !run.errorMessage;
  $("#run-error").textContent = run.errorMessage || "";
  $("#run-kv").replaceChildren(
    ...kv([
      ["Status", h("span", { class: `badge ${RUN_STATUS[run.status] || ""}` }, run.status)],
      ["Model", run.model ? `${run.provider} · ${run.model}` : null],
      ["Cost", `${usd(run.costUsd)} (${run.costUsd} USD)`],
      ["Tokens", `in ${run.usage.input_tokens}, out ${run.usage.output_tokens}, cache read ${run.usage.cache_read_tokens}, cache write ${run.usage.cache_write_tokens}`],
      ["Intent", run.intent],
      ["Notes", run.notes.length ? run.notes.join("; ") : null],
      ["Reply", run.reply_message_id ? h("code", {}, run.reply_message_id) : null],
      ["Started", new Date(run.created_at).toLocaleString()],
      ["Ended", run.ended_at ? new Date(run.ended_at).toLocaleString() : "running"],
    ]),
  );
  $("#steps-body").replaceChildren(
    ...(run.steps || []).map((step) =>
      h(
        "tr",
        { "data-kind": step.kind, "data-name": step.name || "" },
        h("td", {}, String(step.seq)),
        h("td", {}, step.kind.replace("_", " ")),
        h("td", {}, step.name || ""),
        h("td", {}, step.status ? h("span", { class: `badge ${STEP_STATUS[step.status] || ""}` }, step.status) : ""),
        h("td", { class: "num" }, step.latency_ms === null ? "" : `${step.latency_ms} ms`),
        h("td", { class: "num" }, step.costUsd === null ? "" : usd(step.costUsd)),
        h("td", { class: "small" }, stepDetails(step)),
      ),
    ),
  );
}

function start() {
  const params = new URLSearchParams(location.search);
  if (params.has("muted")) $("#muted-filter").value = params.get("muted");
  $("#muted-filter").addEventListener("change", () => {
    const search = new URLSearchParams(location.search);
    if ($("#muted-filter").value) search.set("muted", $("#muted-filter").value);
    else search.delete("muted");
    history.replaceState(null, "", `${location.pathname}${search.toString() ? "?" + search : ""}`);
    loadThreads().catch((error) => toast(errorText(error), "bad"));
  });
  $("#refresh").addEventListener("click", () => loadThreads().catch((error) => toast(errorText(error), "bad")));
  loadThreads().catch((error) => toast(errorText(error), "bad"));
}

boot({ start });
