// The console's front door: sign in, a few counts, and a signed inbox link for embedding.

import { $, api, boot, errorText, h } from "./lib.js";

async function figure(name, path) {
  const el = document.querySelector(`[data-figure="${name}"]`);
  try {
    const { data } = await api("GET", path);
    el.textContent = String(data.total);
  } catch (error) {
    el.replaceChildren(h("span", { class: "muted small", title: errorText(error) }, "–"));
  }
}

async function createLink(event) {
  event.preventDefault();
  $("#embed-error").textContent = "";
  try {
    const { data } = await api("POST", "/v1/inbox-embed/links", {
      requireAgentLogin: $("#embed-ral").checked,
      ttl_seconds: Number($("#embed-ttl").value),
    });
    $("#embed-url").textContent = data.url;
    $("#embed-url").setAttribute("href", data.url);
    $("#embed-expires").textContent = new Date(data.expires_at).toLocaleString();
    $("#embed-result").hidden = false;
  } catch (error) {
    $("#embed-result").hidden = true;
    $("#embed-error").textContent = errorText(error);
  }
}

function start() {
  figure("conversations", "/v1/inbox-embed/conversations?status=active&per_page=1");
  figure("muted", "/v1/agent-threads?muted=true&per_page=1");
  figure("failed", "/v1/messages?status=failed&per_page=1");
  figure("webhooks", "/v1/webhooks?per_page=1");
  $("#embed-form").addEventListener("submit", createLink);
}

boot({ start });
