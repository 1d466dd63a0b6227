// Larder's operator page: four views over the admin API, refreshed every 2 s. This file holds the
// requests, formatting, overview, in-flight and filters views; entries.js (loaded after it) the entries view.
//
// Safe by construction: every value that comes from the cache (URLs, headers, types, filter names) is
// written with textContent or as an attribute the browser treats as data; nothing is ever parsed as HTML.
// Requests go to this origin only (the page's CSP allows nothing else); state-changing ones carry
// X-Larder-CSRF, which AdminAccess requires of any call a browser makes with the session cookie.
"use strict";

const REFRESH_MS = 2000;
const CHART_SAMPLES = 300; // 10 minutes at one sample per 2 s.
const RESULTS = ["hit", "miss", "stale", "revalidated", "bypass"];

const $ = (id) => document.getElementById(id);

// ---- requests ----------------------------------------------------------------------------------------

class LoggedOut extends Error {}

async function api(path, options = {}) {
  const init = { credentials: "same-origin", cache: "no-store", ...options };
  init.headers = { ...(options.headers || {}) };
  if (init.method && init.method !== "GET" && init.method !== "HEAD") init.headers["X-Larder-CSRF"] = "1";
  const response = await fetch(path, init);
  if (response.status === 401) {
    // The session expired or the server restarted: the page at /ui/ shows the login form.
    window.location.assign("/ui/");
    throw new LoggedOut();
  }
  return response;
}

async function json(path) {
  const response = await api(path);
  if (!response.ok) throw new Error(`${path.split("?")[0]}: ${response.status} ${await problemDetail(response)}`);
  return response.json();
}

async function problemDetail(response) {
  try {
    const problem = await response.json();
    return problem.detail || "";
  } catch {
    return "";
  }
}

function showStatus(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

function reportError(error) {
  if (error instanceof LoggedOut) return;
  showStatus(String(error.message || error), true);
}

// ---- formatting --------------------------------------------------------------------------------------

function formatBytes(bytes) {
  if (bytes === null || bytes === undefined || Number.isNaN(bytes)) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function formatSeconds(seconds) {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 120) return `${seconds.toFixed(1)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} d`;
}

function formatPercent(ratio) {
  return ratio === null ? "–" : `${(ratio * 100).toFixed(1)} %`;
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function row(cells) {
  const tr = document.createElement("tr");
  for (const cell of cells) tr.append(cell instanceof Node ? wrapCell(cell) : element("td", cell));
  return tr;
}

function wrapCell(node) {
  if (node.tagName === "TD" || node.tagName === "TH") return node;
  const td = document.createElement("td");
  td.append(node);
  return td;
}

// ---- views -------------------------------------------------------------------------------------------

const VIEWS = ["overview", "inflight", "entries", "filters"];
let currentView = "overview";

function showView() {
  const name = window.location.hash.slice(1);
  currentView = VIEWS.includes(name) ? name : "overview";
  for (const view of VIEWS) $(`view-${view}`).hidden = view !== currentView;
  for (const link of document.querySelectorAll("nav a")) {
    link.classList.toggle("current", link.getAttribute("href") === `#${currentView}`);
  }
  if (currentView === "entries" && !entries.loaded) loadEntries(false).catch(reportError);
  if (currentView === "filters") loadFilters().catch(reportError);
  if (currentView === "inflight") refreshInFlight().catch(reportError);
}

// ---- overview: sampled from /metrics -----------------------------------------------------------------

const samples = [];

function parseMetrics(text) {
  const series = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels = {};
    const pattern = /([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
    let label;
    while ((label = pattern.exec(match[3] || "")) !== null) labels[label[1]] = label[2];
    series.push({ name: match[1], labels, value: Number(match[4]) });
  }
  return series;
}

function sum(series, name, accept = () => true) {
  return series.filter((s) => s.name === name && accept(s.labels)).reduce((total, s) => total + s.value, 0);
}

function gauge(series, name) {
  const found = series.find((s) => s.name === name);
  return found ? found.value : null;
}

async function refreshOverview() {
  const response = await api("/metrics");
  if (!response.ok) throw new Error(`/metrics: ${response.status}`);
  const series = parseMetrics(await response.text());
  const results = {};
  for (const result of RESULTS) results[result] = sum(series, "larder_cache_results_total", (l) => l.result === result);
  const sample = {
    time: performance.now() / 1000,
    results,
    answers: RESULTS.reduce((total, result) => total + results[result], 0),
    originErrors: sum(
      series, "larder_origin_requests_total", (l) => l.outcome !== "response" && l.outcome !== "cancelled"),
  };
  samples.push(sample);
  if (samples.length > CHART_SAMPLES + 1) samples.shift();

  const entries = gauge(series, "larder_store_entries");
  const bytes = gauge(series, "larder_store_bytes");
  const bound = gauge(series, "larder_store_max_bytes");
  $("ov-entries").textContent = entries === null ? "–" : entries.toLocaleString("en");
  $("ov-bytes").textContent = formatBytes(bytes);
  $("ov-bytes-meter").value = bound ? Math.min(1, (bytes || 0) / bound) : 0;
  $("ov-bound").textContent = bound ? `of ${formatBytes(bound)} (--max-size), ${formatPercent((bytes || 0) / bound)}` : "no size bound";
  $("ov-backlog").textContent = formatBytes(gauge(series, "larder_store_backlog_bytes"));
  const inFlight = gauge(series, "larder_origin_fetches_in_flight");
  $("ov-inflight").textContent = inFlight === null ? "–" : String(inFlight);
  $("nav-inflight").textContent = inFlight ? String(inFlight) : "";

  const first = samples[0];
  const answered = sample.answers - first.answers;
  const windowRatio = answered > 0 ? (sample.results.hit - first.results.hit) / answered : null;
  $("ov-ratio").textContent = formatPercent(windowRatio);
  const span = sample.time - first.time;
  const sinceStart = formatPercent(sample.answers ? sample.results.hit / sample.answers : null);
  $("ov-ratio-note").textContent =
    span > 0 ? `over the last ${formatSeconds(span)}; ${sinceStart} since start` : `since start: ${sinceStart}`;
  $("ov-errors").textContent = sample.originErrors.toLocaleString("en");
  const previous = samples.length > 1 ? samples[samples.length - 2] : null;
  const seconds = previous ? sample.time - previous.time : 0;
  $("ov-errors-note").textContent =
    previous && seconds > 0 ? `${((sample.originErrors - previous.originErrors) / seconds).toFixed(2)} per second now` : "since start";

  const tbody = $("ov-rates");
  tbody.replaceChildren();
  for (const result of RESULTS) {
    const rate = previous && seconds > 0 ? (sample.results[result] - previous.results[result]) / seconds : null;
    const cells = [element("td", result.toUpperCase()), element("td", rate === null ? "–" : rate.toFixed(1), "num"),
      element("td", sample.results[result].toLocaleString("en"), "num")];
    tbody.append(row(cells));
  }
  drawChart();
}

function drawChart() {
  const canvas = $("ov-chart");
  const context = canvas.getContext("2d");
  const width = canvas.width;
  const height = canvas.height;
  const left = 44;
  const bottom = height - 20;
  const top = 10;
  context.clearRect(0, 0, width, height);
  context.font = "11px system-ui, sans-serif";
  context.fillStyle = "#5d6873";
  context.strokeStyle = "#d8dee4";
  context.lineWidth = 1;
  for (const level of [0, 0.5, 1]) {
    const y = bottom - level * (bottom - top);
    context.beginPath();
    context.moveTo(left, y);
    context.lineTo(width - 8, y);
    context.stroke();
    context.fillText(`${level * 100} %`, 6, y + 4);
  }
  const points = [];
  for (let index = 1; index < samples.length; index += 1) {
    const answers = samples[index].answers - samples[index - 1].answers;
    if (answers <= 0) continue;
    points.push({ index, ratio: (samples[index].results.hit - samples[index - 1].results.hit) / answers });
  }
  context.fillText("10 min ago", left, height - 4);
  context.fillText("now", width - 30, height - 4);
  if (points.length === 0) {
    context.fillText("no /fetch answers yet while this page was open", left + 80, (top + bottom) / 2);
    return;
  }
  const step = (width - 8 - left) / CHART_SAMPLES;
  const offset = CHART_SAMPLES - (samples.length - 1);
  context.strokeStyle = "#2f6f4f";
  context.lineWidth = 2;
  context.beginPath();
  points.forEach((point, position) => {
    const x = left + (offset + point.index) * step;
    const y = bottom - point.ratio * (bottom - top);
    if (position === 0) context.moveTo(x, y);
    else context.lineTo(x, y);
  });
  context.stroke();
  context.fillStyle = "#2f6f4f";
  for (const point of points) {
    context.fillRect(left + (offset + point.index) * step - 1.5, bottom - point.ratio * (bottom - top) - 1.5, 3, 3);
  }
}

// ---- in flight: /fetches -----------------------------------------------------------------------------

const inFlightRows = new Map();

async function refreshInFlight() {
  const listing = await json("/fetches");
  const tbody = $("if-rows");
  const seen = new Set();
  for (const fetch of listing.fetches) {
    const id = String(fetch.id);
    seen.add(id);
    let cells = inFlightRows.get(id);
    if (!cells) {
      cells = { progress: document.createElement("progress"), received: element("td", "", "num"),
        waiters: element("td", "", "num"), age: element("td", "", "num") };
      const tr = row([element("td", fetch.url, "url"), cells.progress, cells.received, cells.waiters, cells.age]);
      tr.dataset.fetch = id;
      cells.tr = tr;
      inFlightRows.set(id, cells);
      tbody.append(tr);
    }
    if (fetch.bytesExpected) {
      cells.progress.max = fetch.bytesExpected;
      cells.progress.value = Math.min(fetch.bytesReceived, fetch.bytesExpected);
      cells.received.textContent = `${formatBytes(fetch.bytesReceived)} of ${formatBytes(fetch.bytesExpected)}`;
    } else {
      // Length unknown: an indeterminate bar (a progress element without a value).
      cells.progress.removeAttribute("value");
      cells.received.textContent = formatBytes(fetch.bytesReceived);
    }
    cells.waiters.textContent = String(fetch.waiters);
    cells.age.textContent = formatSeconds(fetch.ageSeconds);
  }
  for (const [id, cells] of inFlightRows) {
    if (!seen.has(id)) {
      cells.tr.remove();
      inFlightRows.delete(id);
    }
  }
  $("if-empty").hidden = listing.fetches.length > 0;
}

// ---- filters: /filters, /filters/explain ---------------------------------------------------------------

async function loadFilters() {
  const chain = await json("/filters");
  $("fi-version").textContent = `version ${chain.version}`;
  const list = $("fi-chain");
  list.replaceChildren();
  for (const filter of chain.filters) {
    const item = element("li");
    item.append(element("strong", filter.name), document.createTextNode(` · ${filter.action}`));
    const { name, action, ...rest } = filter;
    item.append(element("pre", JSON.stringify(rest)));
    list.append(item);
  }
  $("fi-default").textContent = chain.filters.length ? "" : "The chain is empty: every request gets the default policy.";
}

async function explain(event) {
  event.preventDefault();
  const form = $("ex-form");
  const parameters = new URLSearchParams({ url: form.elements.url.value.trim() });
  const agent = form.elements.ua.value.trim();
  if (agent) parameters.append("header", `User-Agent: ${agent}`);
  const answer = await json(`/filters/explain?${parameters}`);
  $("ex-owner").textContent = answer.owner || `no filter (default policy: ${answer.defaultPolicy})`;
  $("ex-action").textContent = answer.action;
  $("ex-canonical").textContent = answer.canonicalURL;
  $("ex-key").textContent = answer.key;
  const steps = $("ex-steps");
  steps.replaceChildren();
  for (const step of answer.filters) {
    steps.append(row([element("td", step.name), element("td", step.verdict, step.verdict === "owns" ? "verdict-owns" : "")]));
  }
  $("ex-freshness").textContent = `freshness: ${answer.freshness}`;
  $("ex-addresses").textContent = answer.addresses.length
    ? `addresses: ${answer.addresses.map((a) => `${a.address} (${a.verdict})`).join(", ")}`
    : "addresses: the host does not resolve";
  $("ex-result").hidden = false;
}

// ---- start ---------------------------------------------------------------------------------------------

async function tick() {
  try {
    await refreshOverview();
    if (currentView === "inflight") await refreshInFlight();
    showStatus(`updated ${new Date().toLocaleTimeString("en-GB")}`);
  } catch (error) {
    reportError(error);
  }
}

async function logout() {
  await api("/ui/logout", { method: "POST" });
  window.location.assign("/ui/");
}

document.addEventListener("DOMContentLoaded", () => {
  window.addEventListener("hashchange", showView);
  $("ex-form").addEventListener("submit", (event) => explain(event).catch(reportError));
  $("logout").addEventListener("click", () => logout().catch(reportError));
  // The session cookie is HttpOnly: the script cannot see it, so logging out is offered whenever the
  // server has sessions at all (it answers the logout whether or not this browser has one).
  $("logout").hidden = false;
  showView();
  tick();
  window.setInterval(tick, REFRESH_MS);
});
