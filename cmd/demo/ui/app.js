// The live page's script: it draws /api/events (or, when the stream
// breaks, /api/state every second) into the boxes. It only ever sets
// textContent, so object names from the server cannot inject markup. Its
// words come from the page (the "js." entries of pagewords.go), in the
// page's language; the state and events it asks for are in that language
// too.
"use strict";
const $ = (id) => document.getElementById(id);
const W = JSON.parse($("words").textContent);
const LANG = document.body.dataset.lang;
const w = (k) => W[k] ?? k;
// op names an operation in the page's language (the trace keeps the
// stable short names).
const op = (o) => W["op." + o] ?? o;
let shownSeq = 0;
let lastCounts = {};
let poller = null;

function set(id, value) {
  const el = $(id);
  if (el && el.textContent !== String(value)) el.textContent = value;
}

// setParts shows parts, each whole on its line ("watch-gone 1" never
// splits at its hyphen): the first, then first sep, then the rest joined
// by sep2.
function setParts(id, parts, sep, sep2) {
  const el = $(id);
  const text = parts.length > 1 ? parts[0] + sep + parts.slice(1).join(sep2) : parts[0];
  if (el.textContent === text) return;
  const kids = [];
  parts.forEach((p, i) => {
    if (i > 0) kids.push(i === 1 ? sep : sep2);
    const s = document.createElement("span");
    s.className = "nw";
    s.textContent = p;
    kids.push(s);
  });
  el.replaceChildren(...kids);
}

// Each part of the static "a · b" lines (the client-go names under each
// box title) stays whole.
for (const el of document.querySelectorAll(".cg")) {
  const parts = el.textContent.split(" · ");
  if (parts.length > 1) {
    el.textContent = "";
    parts.forEach((p, i) => {
      if (i > 0) el.append(" · ");
      const s = document.createElement("span");
      s.className = "nw";
      s.textContent = p;
      el.append(s);
    });
  }
}

function ago(iso, now) {
  const t = Date.parse(iso);
  if (!t || t < 0 || iso.startsWith("0001")) return "–";
  const s = Math.max(0, (Date.parse(now) - t) / 1000);
  return s < 60 ? s.toFixed(1) + " s" : Math.floor(s / 60) + "m" + String(Math.floor(s % 60)).padStart(2, "0") + "s";
}

// keyEl shows a namespace/name key that never breaks inside a word: it
// may wrap only after the slash.
function keyEl(key) {
  const span = document.createElement("span");
  span.className = "key";
  const cut = key.indexOf("/") + 1;
  for (const part of cut > 0 ? [key.slice(0, cut), key.slice(cut)] : [key]) {
    const p = document.createElement("span");
    p.textContent = part;
    span.append(p, document.createElement("wbr"));
  }
  span.lastChild.remove();
  return span;
}

function sum(m) { return Object.values(m || {}).reduce((a, b) => a + b, 0); }

function flash(box, count) {
  if (lastCounts[box] !== undefined && lastCounts[box] !== count) {
    const el = $("box-" + box);
    el.classList.add("flash");
    setTimeout(() => el.classList.remove("flash"), 400);
  }
  lastCounts[box] = count;
}

function render(st) {
  const r = st.reflector;
  if (st.server) {
    set("server-rv", st.server.resourceVersion);
    set("server-requests", st.server.requests);
    set("server-watchers", st.server.watchers);
    set("server-writes", st.server.writes);
    set("server-churn", st.server.churnPaused ? w("paused") : w("every") + " " + st.server.churnEvery);
  } else {
    set("server-rv", r.resourceVersion || "–");
  }
  const state = $("refl-state");
  state.dataset.state = r.state;
  set("refl-state", w("state." + r.state) + (r.backoff ? " " + r.backoff : "") + (r.cause && r.state === "listing" ? w("lp") + r.cause + w("rp") : ""));
  set("refl-since", ago(r.since, st.now));
  set("refl-rv", r.resourceVersion || "–");
  set("refl-list", r.listPages ? r.listPages + " " + w("pages") + w("sep") + r.listItems + " " + w("items-at") + " " + r.listResourceVersion : "–");
  set("refl-watch", ago(r.watchSince, st.now));
  set("refl-events", sum(r.events) + w("lp") + r.watchEvents + " " + w("on-watch") + w("rp"));
  set("refl-bookmarks", r.bookmarks);
  const causes = Object.entries(r.relists || {}).map(([k, v]) => k + " " + v);
  setParts("refl-relists", [String(sum(r.relists)), ...causes], " · ", w("sep"));
  set("refl-backoffs", r.backoffs);
  set("refl-error", r.lastError ? w("last-error") + " " + r.lastError : "");
  flash("reflector", sum(r.events) + r.listCalls);

  const q = st.queue;
  set("queue-depth", q.depth);
  set("queue-queued", q.queued);
  set("queue-replaces", q.replaces);
  set("queue-tombstones", q.tombstones);
  const list = $("queue-last");
  const items = (q.last || []).map((d) => op(d.op) + " " + d.key);
  if (list.dataset.items !== items.join("\n")) {
    list.dataset.items = items.join("\n");
    list.replaceChildren(...(q.last || []).map((d) => { const li = document.createElement("li"); li.append(op(d.op) + " ", keyEl(d.key)); return li; }));
  }
  flash("queue", q.queued);

  const l = st.loop;
  set("loop-applied", l.applied);
  set("loop-ops", Object.entries(l.byOp || {}).map(([o, n]) => op(o) + " " + n).join("\n") || "–");
  set("loop-resyncs", l.resyncs);
  set("loop-swaps", l.cacheSwaps);
  const last = l.lastOp ? op(l.lastOp) + " " + l.lastKey : "–";
  const lastEl = $("loop-last");
  if (lastEl.dataset.text !== last) {
    lastEl.dataset.text = last;
    lastEl.replaceChildren(...(l.lastOp ? [op(l.lastOp) + " ", keyEl(l.lastKey)] : ["–"]));
  }
  flash("loop", l.applied);

  set("cache-objects", st.cache.objects);
  set("cache-indexes", (st.cache.indexes || []).join(", ") || "–");
  set("cache-namespaces", (st.cache.namespaces || []).join(", ") || "–");
  set("cache-synced", r.synced ? w("yes") : w("no"));
  set("cache-audit", st.cache.audit || "–");
  flash("cache", st.cache.objects);

  renderHandlers(st.handlers || []);
  renderButtons(st.actions || []);
  renderLog(st.log || []);
}

function renderHandlers(hs) {
  const box = $("handlers");
  if (hs.length === 0) return;
  const key = hs.map((h) => [h.name, h.calls, h.queueDepth, h.lagMs, h.maxLagMs, h.coalesced, h.panics].join(",")).join(";");
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(...hs.map((h) => {
    const div = document.createElement("div");
    div.className = "handler";
    const title = document.createElement("strong");
    title.textContent = h.name;
    const dl = document.createElement("dl");
    for (const [k, v] of [["calls", h.calls], ["queue", h.queueDepth], ["lag", h.lagMs.toFixed(2) + " ms"],
      ["max-lag", h.maxLagMs.toFixed(2) + " ms"], ["coalesced", h.coalesced], ["panics", h.panics]]) {
      const dt = document.createElement("dt"); dt.textContent = w(k);
      const dd = document.createElement("dd"); dd.textContent = v;
      if (k === "calls") dd.className = "handler-calls";
      dl.append(dt, dd);
    }
    div.append(title, dl);
    return div;
  }));
  flash("handlers", hs.reduce((a, h) => a + h.calls, 0));
}

function renderButtons(actions) {
  const box = $("buttons");
  if (box.childElementCount === actions.length) return;
  box.replaceChildren(...actions.map((a) => {
    const b = document.createElement("button");
    b.textContent = a.label;
    b.title = a.help;
    b.dataset.action = a.name;
    if (a.fault) b.className = "fault";
    b.addEventListener("click", () => act(a.name));
    return b;
  }));
}

async function act(name) {
  const out = $("action-result");
  try {
    const res = await fetch("/api/action", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ action: name, lang: LANG }) });
    const body = await res.json();
    out.textContent = res.ok ? name + ": " + body.result : w("error") + " " + body.code + ": " + body.error;
  } catch (e) {
    out.textContent = w("no-answer") + " " + e;
  }
}

function renderLog(lines) {
  const body = $("log");
  const fresh = lines.filter((l) => l.seq > shownSeq);
  if (fresh.length === 0) return;
  for (const l of fresh) {
    const tr = document.createElement("tr");
    tr.className = l.part + " " + l.stage;
    tr.dataset.seq = l.seq;
    for (const [cls, text] of [["t", new Date(l.time).toLocaleTimeString([], { hour12: false }) + "." + String(new Date(l.time).getMilliseconds()).padStart(3, "0")],
      ["part", w("part." + l.part)], ["stage", l.stage], ["cg", l.clientGo], ["text", l.text]]) {
      const td = document.createElement("td");
      td.className = cls;
      td.textContent = text;
      tr.append(td);
    }
    body.append(tr);
    shownSeq = l.seq;
  }
  while (body.childElementCount > 400) body.firstElementChild.remove();
  if ($("follow").checked) { const s = $("log-scroll"); s.scrollTop = s.scrollHeight; }
}

function connected(on) {
  const c = $("conn");
  c.textContent = on ? w("live") : w("reconnecting");
  c.className = "badge " + (on ? "on" : "off");
}

async function poll() {
  try {
    const res = await fetch("/api/state?lang=" + LANG, { cache: "no-store" });
    render(await res.json());
  } catch (e) { connected(false); }
}

function connect() {
  const es = new EventSource("/api/events?lang=" + LANG);
  es.onmessage = (e) => { connected(true); if (poller) { clearInterval(poller); poller = null; } render(JSON.parse(e.data)); };
  es.onerror = () => {
    connected(false);
    es.close();
    if (!poller) poller = setInterval(poll, 1000);
    setTimeout(connect, 2000);
  };
}

connect();
