// The moderation console: one page over the advertising service's own admin API. The token
// lives in this module's memory only (never in a URL or storage); every text from the API is
// set as text, never parsed as HTML.

const $ = (id) => document.getElementById(id);
const state = {
  token: null,
  admin: null,
  queue: [],
  at: 0,
  selected: new Set(),
  ads: [],
  ad: null,
  withdrawals: [],
  withdrawal: null,
  tickets: [],
  ticket: null,
  tab: "queue",
};

// What each role may press (the API decides; this only hides what it would refuse).
const TABS = {
  admin: ["queue", "ads", "finance", "support", "dashboard"],
  moderator: ["queue", "ads", "support"],
  finance: ["finance", "dashboard"],
};

class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error) || `request failed (${status})`);
    this.status = status;
    this.code = body && body.code;
    this.details = body && body.details;
  }
}

async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit",
    cache: "no-store",
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (!res.ok) {
    if (res.status === 401 && state.token) signedOut("Your session ended; sign in again.");
    throw new ApiError(res.status, json);
  }
  return json && "data" in json ? json.data : json;
}

function say(text) {
  $("status").textContent = text;
  $("error").textContent = "";
}

function fail(err) {
  $("error").textContent = err instanceof ApiError ? err.message : String(err);
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/* Sign-in */

$("signin-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const body = { email: $("email").value, password: $("password").value };
  if (!$("totp-row").hidden && $("totp").value) body.totpCode = $("totp").value.trim();
  try {
    const d = await api("POST", "/admin/auth/login", body);
    state.token = d.token;
    state.admin = d.admin;
    $("password").value = "";
    $("totp").value = "";
    signedIn();
  } catch (err) {
    if (err.code === "totp_required") {
      $("totp-row").hidden = false;
      $("totp").focus();
    }
    fail(err);
  }
});

$("signout").addEventListener("click", async () => {
  try {
    await api("POST", "/admin/auth/logout");
  } catch (_) {
    // Signed out either way.
  }
  signedOut("Signed out.");
});

function signedIn() {
  $("signin").hidden = true;
  $("signout").hidden = false;
  $("tabs").hidden = false;
  $("who").textContent = `${state.admin.email} (${state.admin.role})`;
  const allowed = TABS[state.admin.role] || [];
  for (const b of document.querySelectorAll("#tabs button")) {
    b.hidden = !allowed.includes(b.dataset.tab);
  }
  say("Signed in.");
  show(allowed[0] || "queue");
}

function signedOut(text) {
  state.token = null;
  state.admin = null;
  for (const t of document.querySelectorAll(".tab")) t.hidden = true;
  $("tabs").hidden = true;
  $("signout").hidden = true;
  $("signin").hidden = false;
  $("who").textContent = "";
  say(text);
}

/* Tabs */

for (const b of document.querySelectorAll("#tabs button")) {
  b.addEventListener("click", () => show(b.dataset.tab));
}

const LOADERS = {
  queue: loadQueue,
  ads: loadAds,
  finance: loadFinance,
  support: loadTickets,
  dashboard: loadDashboard,
};

function show(tab) {
  state.tab = tab;
  for (const t of document.querySelectorAll(".tab")) t.hidden = t.id !== tab;
  for (const b of document.querySelectorAll("#tabs button")) {
    if (b.dataset.tab === tab) b.setAttribute("aria-current", "page");
    else b.removeAttribute("aria-current");
  }
  LOADERS[tab]().catch(fail);
}

/* The screenshot queue */

async function loadQueue() {
  // needs_review first (a person was asked), then pending, each oldest first.
  const [review, pending] = await Promise.all([
    api("GET", "/admin/screenshots?status=needs_review&limit=100"),
    api("GET", "/admin/screenshots?status=pending&limit=100"),
  ]);
  state.queue = [...review.items, ...pending.items];
  state.at = Math.min(state.at, Math.max(state.queue.length - 1, 0));
  state.selected = new Set([...state.selected].filter((id) => state.queue.some((s) => s.id === id)));
  renderQueue();
}

function renderQueue() {
  const list = $("queue-list");
  clear(list);
  $("queue-count").textContent = `(${state.queue.length})`;
  state.queue.forEach((s, i) => {
    const li = el("li", null, { "aria-selected": String(i === state.at), "data-id": s.id, tabindex: "-1" });
    const box = el("input", null, { type: "checkbox", "aria-label": `Select screenshot ${i + 1}` });
    box.checked = state.selected.has(s.id);
    box.addEventListener("click", (e) => {
      e.stopPropagation();
      toggle(s.id);
    });
    li.append(box, el("span", `${s.status === "needs_review" ? "Review" : "Pending"} · ${s.adTitle || ""} · ${s.proofCode || ""}`));
    li.addEventListener("click", () => go(i));
    list.append(li);
  });
  renderShot();
}

function toggle(id) {
  if (state.selected.has(id)) state.selected.delete(id);
  else state.selected.add(id);
  renderQueue();
}

function go(i) {
  if (!state.queue.length) return;
  state.at = Math.max(0, Math.min(i, state.queue.length - 1));
  renderQueue();
}

function renderShot() {
  const s = state.queue[state.at];
  $("shot").hidden = !s;
  $("reject-form").hidden = true;
  if (!s) {
    say("The queue is empty.");
    return;
  }
  if (Date.parse(s.linksExpireAt) - Date.now() < 60_000) {
    // The links are about to lapse: read the queue again for fresh ones.
    loadQueue().catch(fail);
    return;
  }
  $("shot-image").src = s.imageUrl || "";
  $("shot-thumb").src = s.thumbnailUrl || "";
  $("shot-thumb").hidden = !s.thumbnailUrl;
  $("shot-ad").textContent = s.adTitle ? `“${s.adTitle}”` : "";
  $("shot-code").textContent = s.proofCode || "";
  $("shot-status").textContent = s.status.replace("_", " ");
  const ev = s.evidence || {};
  $("shot-ocr").textContent = ev.ocrText ? ev.ocrText.trim() : "(nothing read)";
  $("shot-matched").textContent = ev.codeMatched ? "yes" : "no";
  $("shot-video").textContent = ev.videoFound
    ? `yes (score ${ev.video && ev.video.score ? ev.video.score.toFixed(2) : "?"})`
    : "no";
  $("shot-reason").textContent = s.reason || "";
  const dups = $("shot-duplicates");
  clear(dups);
  for (const d of s.duplicates || []) {
    const f = el("figure");
    const img = el("img", null, { alt: `An alike earlier screenshot (${d.status || "unknown"})` });
    if (d.imageUrl) img.src = d.imageUrl;
    f.append(img, el("figcaption", `${d.status || ""}, ${d.distance} bits apart`));
    dups.append(f);
  }
  $("bulk").disabled = state.selected.size === 0;
  $("bulk").textContent = `Approve selected (${state.selected.size})`;
  // The next picture loads before it is needed.
  const next = state.queue[state.at + 1];
  if (next && next.imageUrl) new Image().src = next.imageUrl;
}

function decided(id) {
  state.queue = state.queue.filter((s) => s.id !== id);
  state.selected.delete(id);
  state.at = Math.min(state.at, Math.max(state.queue.length - 1, 0));
  renderQueue();
}

async function approve() {
  const s = state.queue[state.at];
  if (!s) return;
  try {
    await api("POST", `/admin/screenshots/${s.id}/approve`, {});
    say(`Approved the screenshot for ${s.proofCode || s.id}.`);
    decided(s.id);
  } catch (err) {
    fail(err);
    // Another moderator was first: it leaves this queue.
    if (err.code === "invalid_transition") decided(s.id);
  }
}

function startReject() {
  if (!state.queue[state.at]) return;
  $("reject-form").hidden = false;
  $("reject-reason").focus();
}

$("reject-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const s = state.queue[state.at];
  if (!s) return;
  const reason = $("reject-reason").value || $("reject-other").value.trim();
  if (!reason) {
    $("error").textContent = "Choose a reason or type one.";
    $("reject-other").focus();
    return;
  }
  try {
    await api("POST", `/admin/screenshots/${s.id}/reject`, { reason });
    say(`Rejected the screenshot for ${s.proofCode || s.id}.`);
    $("reject-other").value = "";
    decided(s.id);
  } catch (err) {
    fail(err);
    if (err.code === "invalid_transition") decided(s.id);
  }
});

$("reject-reason").addEventListener("change", () => {
  if (!$("reject-reason").value) $("reject-other").focus();
});
$("reject-cancel").addEventListener("click", () => {
  $("reject-form").hidden = true;
});
$("approve").addEventListener("click", approve);
$("reject").addEventListener("click", startReject);
$("bulk").addEventListener("click", async () => {
  const ids = [...state.selected];
  if (!ids.length) return;
  try {
    const out = await api("POST", "/admin/screenshots/bulk-approve", { screenshotIds: ids });
    say(`Approved ${out.approved.length}; ${out.failed.length} not approved.`);
    if (out.failed.length) $("error").textContent = out.failed.map((f) => f.error).join("; ");
    state.selected.clear();
    await loadQueue();
  } catch (err) {
    fail(err);
  }
});

document.addEventListener("keydown", (e) => {
  if (state.tab !== "queue" || !state.token || e.ctrlKey || e.metaKey || e.altKey) return;
  const tag = (e.target && e.target.tagName) || "";
  if (["INPUT", "TEXTAREA", "SELECT"].includes(tag)) {
    if (e.key === "Escape") $("reject-form").hidden = true;
    return;
  }
  const key = e.key.toLowerCase();
  if (key === "a") approve();
  else if (key === "r") startReject();
  else if (key === "j") go(state.at + 1);
  else if (key === "k") go(state.at - 1);
  else if (key === "x" && state.queue[state.at]) toggle(state.queue[state.at].id);
  else return;
  e.preventDefault();
});

/* Ads */

$("ads-status").addEventListener("change", () => loadAds().catch(fail));

async function loadAds() {
  const page = await api("GET", `/admin/ads?status=${encodeURIComponent($("ads-status").value)}&limit=100`);
  state.ads = page.items;
  const list = $("ads-list");
  clear(list);
  for (const a of state.ads) {
    const li = el("li", `${a.title} · ${a.status}${a.videoStatus ? ` · video ${a.videoStatus}` : ""}`, { tabindex: "0", "data-id": a.id });
    li.addEventListener("click", () => openAd(a));
    li.addEventListener("keydown", (e) => {
      if (e.key === "Enter") openAd(a);
    });
    list.append(li);
  }
  const again = state.ad && state.ads.find((a) => a.id === state.ad.id);
  if (again) openAd(again);
  else $("ad").hidden = true;
}

function openAd(a) {
  state.ad = a;
  $("ad").hidden = false;
  $("ad-title").textContent = a.title;
  const video = $("ad-video");
  if (a.videoUrl && video.getAttribute("src") !== a.videoUrl) video.src = a.videoUrl;
  $("ad-advertiser").textContent = a.advertiser ? `${a.advertiser.companyName} (${a.advertiser.email})` : "staff";
  $("ad-status").textContent = a.statusReason ? `${a.status}: ${a.statusReason}` : a.status;
  $("ad-video-status").textContent = a.videoStatus ? `${a.videoStatus}${a.videoError ? `: ${a.videoError}` : ""}` : "played from its source";
  $("ad-budget").textContent = `$${a.budgetUsd} (funded $${a.fundedUsd})`;
  $("ad-payout").textContent = `$${a.payoutUsd}`;
}

async function adMove(method, path, body, done) {
  if (!state.ad) return;
  try {
    const a = await api(method, `/admin/ads/${state.ad.id}${path}`, body);
    say(`${done}: ${a.title}.`);
    state.ad = a;
    await loadAds();
  } catch (err) {
    fail(err);
  }
}

$("ad-approve").addEventListener("click", () => adMove("PUT", "/approve", undefined, "Approved"));
$("ad-pause").addEventListener("click", () => adMove("PUT", "/pause", undefined, "Paused"));
$("ad-delete").addEventListener("click", () => adMove("DELETE", "", undefined, "Deleted"));
$("ad-reject-form").addEventListener("submit", (e) => {
  e.preventDefault();
  adMove("PUT", "/reject", { reason: $("ad-reason").value }, "Rejected");
});

/* Finance */

async function loadFinance() {
  const [page, refunds, disputes] = await Promise.all([
    api("GET", "/admin/finance/withdrawals?status=pending&limit=100"),
    api("GET", "/admin/finance/transactions?type=refund&limit=50"),
    api("GET", "/admin/finance/transactions?type=dispute&limit=50"),
  ]);
  state.withdrawals = page.items;
  const list = $("withdrawals");
  clear(list);
  for (const w of state.withdrawals) {
    const li = el("li", `$${w.amountUsd} · ${new Date(w.createdAt).toLocaleString()}`, { tabindex: "0", "data-id": w.id });
    li.addEventListener("click", () => openWithdrawal(w).catch(fail));
    li.addEventListener("keydown", (e) => {
      if (e.key === "Enter") openWithdrawal(w).catch(fail);
    });
    list.append(li);
  }
  if (!state.withdrawals.length) list.append(el("li", "No pending withdrawals."));
  $("withdrawal").hidden = true;
  const money = $("refunds");
  clear(money);
  for (const t of [...refunds.items, ...disputes.items]) {
    money.append(el("li", `${t.type || t.kind} · $${t.amountUsd} · ${t.status} · ${new Date(t.createdAt).toLocaleDateString()}`));
  }
  if (!money.firstChild) money.append(el("li", "None."));
}

async function openWithdrawal(w) {
  state.withdrawal = w;
  $("withdrawal").hidden = false;
  $("w-title").textContent = `$${w.amountUsd} to ${w.paymentMethodId}`;
  const history = $("w-history");
  clear(history);
  const tx = await api("GET", `/admin/users/${w.userId}/transactions?limit=20`);
  for (const t of tx.items) {
    history.append(el("li", `${t.type || t.kind} · $${t.amountUsd} · ${t.status} · ${new Date(t.createdAt).toLocaleDateString()}`));
  }
  $("w-reference").focus();
}

async function processWithdrawal(status) {
  const w = state.withdrawal;
  if (!w) return;
  const body = { status };
  const reference = $("w-reference").value.trim();
  if (reference) body.reference = reference;
  try {
    await api("POST", `/admin/finance/withdrawals/${w.id}/process`, body);
    say(`Withdrawal of $${w.amountUsd} ${status === "paid" ? "marked paid" : "cancelled"}.`);
    $("w-reference").value = "";
    await loadFinance();
  } catch (err) {
    fail(err);
  }
}

$("w-form").addEventListener("submit", (e) => {
  e.preventDefault();
  processWithdrawal("paid");
});
$("w-cancel").addEventListener("click", () => processWithdrawal("cancelled"));

/* Support */

$("support-status").addEventListener("change", () => loadTickets().catch(fail));

async function loadTickets() {
  const page = await api("GET", `/admin/support-tickets?status=${encodeURIComponent($("support-status").value)}&limit=100`);
  state.tickets = page.items;
  const list = $("tickets");
  clear(list);
  for (const t of state.tickets) {
    const li = el("li", `${t.subject} · ${t.category} · ${t.status}`, { tabindex: "0", "data-id": t.id });
    li.addEventListener("click", () => openTicket(t.id).catch(fail));
    li.addEventListener("keydown", (e) => {
      if (e.key === "Enter") openTicket(t.id).catch(fail);
    });
    list.append(li);
  }
  if (!state.tickets.length) list.append(el("li", "No tickets."));
  $("ticket").hidden = true;
}

async function openTicket(id) {
  const t = await api("GET", `/admin/support-tickets/${id}`);
  state.ticket = t;
  $("ticket").hidden = false;
  $("t-subject").textContent = `${t.subject} (${t.status})`;
  const thread = $("t-thread");
  clear(thread);
  for (const m of t.messages) {
    const li = el("li");
    li.append(el("strong", m.authorKind === "admin" ? "Staff: " : "Poster: "), document.createTextNode(m.message));
    thread.append(li);
  }
  $("t-form").hidden = t.status !== "open";
}

$("t-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  if (!state.ticket) return;
  try {
    await api("POST", `/admin/support-tickets/${state.ticket.id}/messages`, { message: $("t-reply").value });
    $("t-reply").value = "";
    say("Reply sent.");
    await openTicket(state.ticket.id);
  } catch (err) {
    fail(err);
  }
});
$("t-close").addEventListener("click", async () => {
  if (!state.ticket) return;
  try {
    await api("POST", `/admin/support-tickets/${state.ticket.id}/close`, {});
    say("Ticket closed.");
    await loadTickets();
  } catch (err) {
    fail(err);
  }
});

/* Dashboard */

async function loadDashboard() {
  const o = await api("GET", "/admin/analytics/overview");
  const figures = $("figures");
  clear(figures);
  const shown = [
    ["Posters", o.users],
    ["Advertisers", o.advertisers],
    ["Active ads", o.activeAds],
    ["Screenshots waiting", (o.screenshots.pending || 0) + (o.screenshots.needsReview || o.screenshots.needs_review || 0)],
    ["Earnings paid", `$${o.earningsPaidUsd}`],
    ["Deposits", `$${o.depositsUsd}`],
  ];
  for (const [name, value] of shown) {
    const d = el("div");
    d.append(el("dt", name), el("dd", value));
    figures.append(d);
  }
  drawChart(o.daily);
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

// Earnings as bars on the left scale; subscriptions and approvals as lines on the right.
function drawChart(days) {
  const chart = $("chart");
  clear(chart);
  const [w, h, left, right, top, bottom] = [600, 220, 48, 40, 12, 28];
  const plotW = w - left - right;
  const plotH = h - top - bottom;
  const money = days.map((d) => d.earningsCents / 100);
  const counts = days.flatMap((d) => [d.subscriptions, d.approvals]);
  const maxMoney = Math.max(1, ...money);
  const maxCount = Math.max(1, ...counts);
  const x = (i) => left + (i + 0.5) * (plotW / days.length);
  const yMoney = (v) => top + plotH - (v / maxMoney) * plotH;
  const yCount = (v) => top + plotH - (v / maxCount) * plotH;
  chart.append(svg("line", { x1: left, y1: top + plotH, x2: w - right, y2: top + plotH, stroke: "#595959" }));
  chart.append(svg("text", { x: 4, y: top + 10 }, `$${maxMoney.toFixed(0)}`));
  chart.append(svg("text", { x: w - right + 4, y: top + 10 }, maxCount));
  const barW = Math.max(2, plotW / days.length - 4);
  days.forEach((d, i) => {
    const bar = svg("rect", {
      x: x(i) - barW / 2,
      y: yMoney(money[i]),
      width: barW,
      height: top + plotH - yMoney(money[i]),
      fill: "#123a63",
      "data-date": d.date,
      "data-earnings": money[i],
    });
    bar.append(svg("title", {}, `${d.date}: $${money[i].toFixed(2)} earned, ${d.subscriptions} subscriptions, ${d.approvals} approvals`));
    chart.append(bar);
  });
  const line = (values, colour, name) => {
    const points = values.map((v, i) => `${x(i).toFixed(1)},${yCount(v).toFixed(1)}`).join(" ");
    chart.append(svg("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2, "data-series": name }));
  };
  line(days.map((d) => d.subscriptions), "#b35900", "subscriptions");
  line(days.map((d) => d.approvals), "#0b6b2f", "approvals");
  chart.append(svg("text", { x: left, y: h - 8 }, days[0] ? days[0].date : ""));
  chart.append(svg("text", { x: w - right - 60, y: h - 8 }, days.length ? days[days.length - 1].date : ""));
  chart.append(svg("text", { x: left + 120, y: h - 8, fill: "#b35900" }, "— subscriptions"));
  chart.append(svg("text", { x: left + 230, y: h - 8, fill: "#0b6b2f" }, "— approvals"));
}
