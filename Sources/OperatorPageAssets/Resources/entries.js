// Larder's operator page, the entries view: the /cache listing with its filters (host, prefix, type, tags),
// an entry's meta view, and purges. Loaded after operator.js, whose helpers it uses ($, api, json, element,
// row, formatBytes, formatSeconds, showStatus, reportError); the same rules hold: every value from the cache
// is written as text, state-changing calls carry X-Larder-CSRF (api() adds it).
//
// Every purge but the one-entry delete is counted first by the same request with dryRun=true, and the
// confirmation names that count: a selection wider than the operator thought shows before anything changes.
"use strict";

// Stored bodies shown as thumbnails: raster formats a browser draws itself. Never SVG or HTML, and the
// body is requested as an image (/cache/<key> also answers with a sandbox CSP and nosniff).
const RASTER = new Set(["png", "jpeg", "gif", "bmp", "ico", "cur", "webp", "avif"]);

const entries = { loaded: false, cursor: null, query: "" };

// Tags hold no space or comma (the API's rule), so either separates them in the field.
function tagsOf(text) {
  return text.split(/[\s,]+/).filter((tag) => tag !== "");
}

function entryQuery() {
  const form = $("en-form");
  const parameters = new URLSearchParams();
  for (const name of ["host", "prefix", "type"]) {
    const value = form.elements[name].value.trim();
    if (value) parameters.set(name, value);
  }
  // Several tag= are a union: entries carrying any of them.
  for (const tag of tagsOf(form.elements.tags.value)) parameters.append("tag", tag);
  return parameters;
}

async function loadEntries(more) {
  const parameters = more ? new URLSearchParams(entries.query) : entryQuery();
  if (!more) entries.query = parameters.toString();
  parameters.set("limit", "50");
  if (more && entries.cursor) parameters.set("cursor", entries.cursor);
  const page = await json(`/cache?${parameters}`);
  const tbody = $("en-rows");
  if (!more) tbody.replaceChildren();
  for (const entry of page.entries) tbody.append(entryRow(entry));
  entries.loaded = true;
  entries.cursor = page.nextCursor;
  $("en-more").hidden = !page.nextCursor;
  $("en-empty").hidden = tbody.children.length > 0;
}

function thumbnail(entry, className) {
  if (!RASTER.has(entry.imageFormat)) return element("div", entry.imageFormat ? entry.imageFormat.toUpperCase() : "—", "thumb-none");
  const image = document.createElement("img");
  image.className = className;
  image.alt = "";
  image.loading = "lazy";
  image.decoding = "async";
  image.width = 48;
  image.height = 48;
  image.src = `/cache/${encodeURIComponent(entry.key)}`;
  return image;
}

function entryRow(entry) {
  const tr = row([
    thumbnail(entry, "thumb"), element("td", entry.url, "url"), element("td", entry.contentType || "–"),
    element("td", (entry.tags || []).join(" "), "tags"),
    element("td", formatBytes(entry.storedBytes), "num"), element("td", entry.hits, "num"),
    element("td", entry.created ? entry.created.replace("T", " ").replace("Z", " UTC") : "–"),
  ]);
  tr.dataset.key = entry.key;
  if (entry.staleSince) tr.classList.add("stale");
  tr.addEventListener("click", () => openMeta(entry.key).catch(reportError));
  return tr;
}

// ---- the meta view: /cache/<key>/meta ----------------------------------------------------------------

let metaKey = null;

async function openMeta(key) {
  const meta = await json(`/cache/${encodeURIComponent(key)}/meta`);
  metaKey = key;
  $("meta-url").textContent = meta.url;
  const image = $("meta-image");
  if (RASTER.has(meta.imageFormat)) {
    image.src = `/cache/${encodeURIComponent(key)}`;
    image.hidden = false;
  } else {
    image.removeAttribute("src");
    image.hidden = true;
  }
  const declared = meta.declaredContentType && meta.declaredContentType !== meta.contentType
    ? `${meta.contentType} (sniffed; the origin declared ${meta.declaredContentType})`
    : meta.contentType || "–";
  const fields = [
    ["status", meta.status], ["type", declared], ["image format", meta.imageFormat || "not an image"],
    ["stored", `${formatBytes(meta.storedBytes)} (${meta.codec})`], ["original", formatBytes(meta.originalBytes)],
    ["CRC-32", meta.crc32], ["fresh", meta.fresh ? `yes, ${formatSeconds(meta.freshnessLeft)} left` : `no, stale for ${formatSeconds(-meta.freshnessLeft)}`],
    ["tags", null], ["stale since", meta.staleSince ? `${meta.staleSince} (a soft purge: revalidated on its next request)` : "–"],
    ["age", formatSeconds(meta.currentAge)], ["hits", meta.hits], ["admitted by", meta.filter || "the default policy"],
    ["created", meta.created], ["last access", meta.lastAccess], ["expires", meta.expires || "–"],
    ["ETag", meta.etag || "–"], ["Vary", meta.varyNames.length ? meta.varyNames.join(", ") : "–"], ["key", meta.key],
  ];
  const list = $("meta-fields");
  list.replaceChildren();
  for (const [name, value] of fields) {
    list.append(element("dt", name), name === "tags" ? tagButtons(meta.tags) : element("dd", value));
  }
  const headers = $("meta-headers");
  headers.replaceChildren();
  for (const header of meta.headers) headers.append(row([element("th", header.name), element("td", header.value, "url")]));
  $("meta-body").href = `/cache/${encodeURIComponent(key)}`;
  const dialog = $("meta");
  if (!dialog.open) dialog.showModal();
}

// The tags, each a button that lists the entries carrying it (from where they can be purged together).
function tagButtons(tags) {
  const cell = element("dd", tags.length ? null : "none");
  cell.id = "meta-tags";
  for (const tag of tags) {
    const button = element("button", tag, "tag");
    button.type = "button";
    button.title = `List the entries tagged ${tag}`;
    button.addEventListener("click", () => listTag(tag).catch(reportError));
    cell.append(button);
  }
  return cell;
}

async function listTag(tag) {
  $("meta").close();
  const form = $("en-form");
  for (const name of ["host", "prefix", "type"]) form.elements[name].value = "";
  form.elements.tags.value = tag;
  await loadEntries(false);
}

async function purgeOpenEntry() {
  const key = metaKey;
  if (!key || !window.confirm(`Purge ${$("meta-url").textContent}?`)) return;
  const response = await api(`/cache/${encodeURIComponent(key)}`, { method: "DELETE" });
  if (response.status !== 204 && response.status !== 404) {
    throw new Error(`purge: ${response.status} ${await problemDetail(response)}`);
  }
  $("meta").close();
  const tr = document.querySelector(`#en-rows tr[data-key="${CSS.escape(key)}"]`);
  if (tr) tr.remove();
  $("en-empty").hidden = $("en-rows").children.length > 0;
  showStatus("entry purged");
}

// A soft purge of the open entry's URL: every stored variant of it is marked stale (url= selects them all).
async function markOpenEntryStale() {
  const url = $("meta-url").textContent;
  const parameters = new URLSearchParams({ url, soft: "true" });
  const done = await confirmedPurge(parameters, `of ${url} (every stored variant)`);
  if (done === null) return;
  await openMeta(metaKey);
}

// ---- purges of a selection: DELETE /cache?tag=&host=&prefix=[&soft=true] -----------------------------

// The listing's filters as a purge: tags, host and prefix select (the API has no type selector, and the
// page never purges everything: that stays a deliberate curl).
function purgeSelection() {
  const form = $("en-form");
  if (form.elements.type.value.trim()) {
    throw new Error("purge: type only filters the listing; clear it (a purge selects by tags, host and prefix)");
  }
  const parameters = new URLSearchParams();
  const said = [];
  const tags = tagsOf(form.elements.tags.value);
  for (const tag of tags) parameters.append("tag", tag);
  if (tags.length) said.push(`tagged ${tags.join(" or ")}`);
  for (const [name, words] of [["host", "of host"], ["prefix", "under"]]) {
    const value = form.elements[name].value.trim();
    if (value) {
      parameters.set(name, value);
      said.push(`${words} ${value}`);
    }
  }
  if (said.length === 0) throw new Error("purge: give tags, a host or a prefix first (the page does not purge everything)");
  if ($("en-soft").checked) parameters.set("soft", "true");
  return { parameters, description: said.join(", ") };
}

// Counts with dryRun=true, asks with that count, then purges. Returns the answer, or null when nothing
// matched or the operator declined.
async function confirmedPurge(parameters, description) {
  // DELETE /cache without a selector purges everything: never from the page, whatever built the parameters.
  if (!["url", "tag", "host", "prefix"].some((name) => parameters.get(name))) {
    throw new Error("purge: no selector (the page does not purge everything)");
  }
  const soft = parameters.get("soft") === "true";
  const dry = new URLSearchParams(parameters);
  dry.set("dryRun", "true");
  const counted = await api(`/cache?${dry}`, { method: "DELETE" });
  if (!counted.ok) throw new Error(`purge (dry run): ${counted.status} ${await problemDetail(counted)}`);
  const { count } = await counted.json();
  const noun = count === 1 ? "entry" : "entries";
  if (count === 0) {
    showStatus(soft ? `no fresh entry ${description}: nothing to mark stale` : `no entry ${description}: nothing to purge`);
    return null;
  }
  const question = soft
    ? `Mark ${count} ${noun} ${description} stale? They are revalidated on their next request.`
    : `Purge ${count} ${noun} ${description}?`;
  if (!window.confirm(question)) return null;
  const response = await api(`/cache?${parameters}`, { method: "DELETE" });
  if (!response.ok) throw new Error(`purge: ${response.status} ${await problemDetail(response)}`);
  const answer = await response.json();
  const purgedNoun = answer.purged === 1 ? "entry" : "entries";
  showStatus(soft ? `${answer.purged} ${purgedNoun} marked stale` : `${answer.purged} ${purgedNoun} purged`);
  return answer;
}

async function purgeListed() {
  const { parameters, description } = purgeSelection();
  if ((await confirmedPurge(parameters, description)) !== null) await loadEntries(false);
}

document.addEventListener("DOMContentLoaded", () => {
  $("en-form").addEventListener("submit", (event) => {
    event.preventDefault();
    loadEntries(false).catch(reportError);
  });
  $("en-more").addEventListener("click", () => loadEntries(true).catch(reportError));
  $("en-purge").addEventListener("click", () => purgeListed().catch(reportError));
  $("meta-close").addEventListener("click", () => $("meta").close());
  $("meta-purge").addEventListener("click", () => purgeOpenEntry().catch(reportError));
  $("meta-stale").addEventListener("click", () => markOpenEntryStale().catch(reportError));
});
