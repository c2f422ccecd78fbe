// The moderation console in headless Chromium, at 1,280 and 375 px: a moderator signs in
// and works a queue of six screenshots by keyboard (four approved, two rejected with
// reasons), approves an ad after playing its video; the first administrator marks a
// withdrawal paid, answers and closes a ticket and reads the dashboard's chart. Every outcome
// is read back through the API; text contrast and control names are checked on the page;
// screenshots go to tests/e2e/artifacts/.
//
// Seeding uses the binary's own commands (create-ad, create-ads-admin) on the server's
// database (tests/e2e/run.sh exports where it is) and the API for everything else.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launch, poster, sent } from "./harness.mjs";

const url = process.env.ADVERTISING_URL;
const artifacts = process.env.E2E_ARTIFACTS;
const work = mkdtempSync(join(tmpdir(), "e2e-console-"));
let browser;

before(async () => {
  browser = await launch(["--autoplay-policy=no-user-gesture-required"]);
});

after(async () => {
  await browser?.close();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function call(method, path, bearer, body) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      "Content-Type": "application/json",
      ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: await res.json() };
}

async function api(method, path, bearer, body) {
  const { status, json } = await call(method, path, bearer, body);
  assert.equal(status, 200, `${method} ${path}: ${JSON.stringify(json)}`);
  return json.data;
}

// The binary's own command, on the server's database and media directory; the value of its
// `printed: …` line. SQLite may answer "database is locked" while the server writes (the
// command then did nothing): again.
async function cli(args, printed) {
  for (let attempt = 0; ; attempt++) {
    try {
      const out = execFileSync(process.env.SWITCHBOARD_BIN, ["--config", process.env.E2E_CONFIG, "admin", ...args], {
        env: {
          ...process.env,
          SWITCHBOARD__DATABASE__URL: process.env.E2E_DATABASE_URL,
          SWITCHBOARD__PROVIDERS__STORAGE__PATH: process.env.E2E_MEDIA,
          RUST_LOG: "error",
        },
        stdio: ["ignore", "pipe", "pipe"],
      }).toString();
      const line = out.split("\n").find((l) => l.startsWith(`${printed}: `));
      assert.ok(line, `no ${printed} in ${out}`);
      return line.slice(printed.length + 2).trim();
    } catch (err) {
      if (attempt < 20 && String(err.stderr || "").includes("database is locked")) {
        await sleep(300);
        continue;
      }
      throw err;
    }
  }
}



async function until(what, read, done) {
  for (let i = 0; i < 600; i++) {
    const v = await read();
    if (done(v)) return v;
    await sleep(100);
  }
  throw new Error(`never: ${what}`);
}

function clip(name) {
  const file = join(work, name);
  execFileSync("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i",
    "testsrc=duration=2:size=640x360:rate=25", "-pix_fmt", "yuv420p", file]);
  return file;
}

// A frame of the ad's own clip at `at` seconds: the video, without the poster's code, which
// the verifier leaves to a person.
function frame(video, at, name) {
  const file = join(work, name);
  execFileSync("ffmpeg", ["-loglevel", "error", "-y", "-ss", String(at), "-i", video,
    "-frames:v", "1", "-q:v", "2", file]);
  return readFileSync(file);
}

async function uploadShot(bearer, sub, bytes) {
  const form = new FormData();
  form.append("subscriptionId", sub);
  form.append("screenshot", new Blob([bytes], { type: "image/jpeg" }), "shot.jpg");
  const res = await fetch(`${url}/screenshots`, {
    method: "POST", headers: { Authorization: `Bearer ${bearer}` }, body: form,
  });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json.data.id;
}

// Text contrast of every visible element with text against the first opaque background up
// its ancestors (WCAG 2 relative luminance); the worst offenders.
async function contrastFailures(page) {
  return page.evaluate(() => {
    const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
      const c = [r, g, b].map((v) => {
        v /= 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    const background = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length >= 3 && (c.length === 3 || c[3] > 0.5)) return c;
      }
      return [255, 255, 255];
    };
    const bad = [];
    for (const el of document.querySelectorAll("body *")) {
      if (!el.offsetParent && el.tagName !== "BODY") continue;
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || el.closest("svg")) continue;
      const style = getComputedStyle(el);
      if (style.visibility === "hidden" || Number(style.opacity) < 0.5) continue;
      const fg = lum(rgb(style.color));
      const bg = lum(background(el));
      const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
      if (ratio < 4.5) bad.push(`${el.tagName}#${el.id} "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
    }
    return bad;
  });
}

// Controls a keyboard reaches without a name a screen reader reads.
async function unnamedControls(page) {
  return page.evaluate(() => [...document.querySelectorAll("button, input, select, textarea")]
    .filter((c) => c.offsetParent)
    .filter((c) => {
      if (c.tagName === "BUTTON") return !c.textContent.trim() && !c.getAttribute("aria-label");
      return !(c.labels && c.labels.length) && !c.getAttribute("aria-label");
    })
    .map((c) => c.outerHTML.slice(0, 80)));
}

async function checkPage(page, name) {
  assert.deepEqual(await contrastFailures(page), [], `${name}: text below 4.5:1`);
  assert.deepEqual(await unnamedControls(page), [], `${name}: unnamed controls`);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  const viewport = page.viewportSize().width;
  assert.ok(width <= viewport + 1, `${name}: the page is ${width}px wide at ${viewport}px`);
  await page.screenshot({ path: join(artifacts, `console-${name}.png`), fullPage: true });
}

async function signIn(page, email, password) {
  await page.goto(`${url}/console/`);
  await page.fill("#email", email);
  await page.fill("#password", password);
  await page.click("#signin-form button[type=submit]");
  await page.waitForSelector("#tabs:not([hidden])");
}

test("a moderator works the queue by keyboard; staff process money, support and the dashboard", async () => {
  // An ad staff made from a file, paying $5 a screenshot, and six posters each with a
  // screenshot of its video but no code: six wait for a person.
  const source = clip("ad.mp4");
  const ad = await cli(["create-ad", "--title", "Console queue", "--country", "GB", "--video", source,
    "--payout-usd", "5", "--budget-usd", "100"], "ad_id");
  const posters = [];
  for (let i = 0; i < 6; i++) {
    const token = await poster();
    const sub = (await api("POST", "/subscriptions", token, {
      adId: ad, phoneInfo: { model: "Pixel 8", os: "android 15" },
    })).subscription.id;
    await until("the personalised video", () => api("GET", `/subscriptions/${sub}/video`, token),
      (v) => v.status !== "processing");
    const shot = await uploadShot(token, sub, frame(source, 0.2 + i * 0.3, `shot-${i}.jpg`));
    const status = await until("the verifier", () => api("GET", `/screenshots/${shot}/status`, token),
      (v) => v.status !== "pending");
    assert.equal(status.status, "needs_review", JSON.stringify(status));
    posters.push({ token, sub, shot });
  }
  const moderatorEmail = `moderator-${randomUUID()}@example.com`;
  await cli(["create-ads-admin", "--email", moderatorEmail, "--role", "moderator", "--password", "console moderator"], "admin_id");

  // An advertiser's campaign waiting for review, its video transcoded.
  const owner = await (async () => {
    const email = `e2e-${randomUUID()}@example.com`;
    const password = "console e2e advertiser";
    await api("POST", "/advertisers/signup", null, { email, password, companyName: "Console Co", countryCode: "GB" });
    await api("POST", "/advertisers/verify-email", null, { token: await sent(email, /verify-email\?token=(\S+)/) });
    return (await api("POST", "/advertisers/login", null, { email, password })).token;
  })();
  const form = new FormData();
  for (const [k, v] of Object.entries({
    title: "Console campaign", budgetUsd: "40", payoutUsd: "1", countryCode: "GB",
    demographics: JSON.stringify({ ageMin: 18, ageMax: 65, genders: [] }),
  })) form.append(k, v);
  form.append("video", new Blob([readFileSync(clip("campaign.mp4"))], { type: "video/mp4" }), "c.mp4");
  const created = await fetch(`${url}/advertisers/campaigns`, {
    method: "POST", headers: { Authorization: `Bearer ${owner}` }, body: form,
  }).then((r) => r.json());
  const campaign = created.data.id;
  await until("the campaign's video", () => api("GET", "/advertisers/campaigns", owner),
    (l) => l.items.find((c) => c.id === campaign)?.videoStatus === "ready");

  const decided = { approved: [], rejected: [] };
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await signIn(page, moderatorEmail, "console moderator");
    // A moderator sees the queue, ads and support; not finance or the dashboard.
    assert.equal(await page.isHidden("#tabs [data-tab=finance]"), true);
    assert.equal(await page.isHidden("#tabs [data-tab=dashboard]"), true);
    await page.waitForFunction(() => document.querySelector("#queue-count").textContent === "(6)");
    await page.waitForFunction(() => document.querySelector("#shot-image").complete
      && document.querySelector("#shot-image").naturalWidth > 0);
    assert.match(await page.textContent("#shot-code"), /^[A-Z0-9]+-[A-Z0-9]+$/);
    await checkPage(page, "queue-1280");

    // J and K move through the queue.
    const selected = () => page.getAttribute("#queue-list li[aria-selected=true]", "data-id");
    const first = await selected();
    await page.keyboard.press("j");
    assert.notEqual(await selected(), first);
    await page.keyboard.press("k");
    assert.equal(await selected(), first);

    const reasons = ["The proof code is missing or unreadable", "Cropped so the phone's clock is hidden"];
    for (let i = 0; i < 6; i++) {
      const id = await selected();
      const left = 6 - i;
      if (i < 4) {
        await page.keyboard.press("a");
        decided.approved.push(id);
      } else {
        await page.keyboard.press("r");
        await page.waitForSelector("#reject-form:not([hidden])");
        // A reason from the list, or typed; Enter in the text field sends the form.
        if (i === 4) {
          await page.selectOption("#reject-reason", { label: reasons[0] });
          await page.focus("#reject-other");
        } else {
          await page.selectOption("#reject-reason", { value: "" });
          await page.waitForFunction(() => document.activeElement.id === "reject-other");
          await page.keyboard.type(reasons[1]);
        }
        await page.keyboard.press("Enter");
        decided.rejected.push(id);
      }
      await page.waitForFunction((n) => document.querySelector("#queue-count").textContent === `(${n})`, left - 1);
    }
    // The outcomes, through the API.
    const shots = new Map(posters.map((p) => [p.shot, p]));
    for (const id of decided.approved) {
      const p = shots.get(id);
      assert.equal((await api("GET", `/screenshots/${id}/status`, p.token)).status, "approved");
    }
    const rejectedReasons = [];
    for (const id of decided.rejected) {
      const p = shots.get(id);
      const s = await api("GET", `/screenshots/${id}/status`, p.token);
      assert.equal(s.status, "rejected");
      rejectedReasons.push(s.reason);
    }
    assert.deepEqual(rejectedReasons, reasons);
    assert.equal(await page.textContent("#status"), "The queue is empty.");

    // The campaign: played in the page, then approved.
    await page.click("#tabs [data-tab=ads]");
    await page.waitForSelector(`#ads-list li[data-id="${campaign}"]`);
    await page.click(`#ads-list li[data-id="${campaign}"]`);
    const played = await page.$eval("#ad-video", (v) => new Promise((resolve) => {
      v.muted = true;
      v.addEventListener("timeupdate", () => v.currentTime > 0.2 && resolve(v.currentTime));
      v.play().catch((e) => resolve(`refused: ${e}`));
      setTimeout(() => resolve(`stuck at ${v.currentTime} (ready ${v.readyState}, error ${v.error && v.error.code})`), 15000);
    }));
    assert.equal(typeof played, "number", `the video plays: ${played}`);
    await checkPage(page, "ads-1280");
    await page.click("#ad-approve");
    await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("Approved"));
    await page.setViewportSize({ width: 375, height: 800 });
    await page.click("#tabs [data-tab=queue]");
    await checkPage(page, "queue-375");
    await page.click("#signout");
    await page.waitForSelector("#signin:not([hidden])");
  } finally {
    await page.close();
  }
  const admin = await api("POST", "/admin/auth/login", null, {
    email: "admin@switchboard.local", password: "dev-admin-password",
  });
  assert.equal((await api("GET", `/admin/ads/${campaign}`, admin.token)).status, "approved");

  // A poster paid for an approved screenshot withdraws, and opens a ticket.
  const earner = posters.find((p) => decided.approved.includes(p.shot));
  const withdrawal = await api("POST", "/transactions/withdraw", earner.token, {
    amount: 5, paymentMethodId: "paypal:console@example.com",
  });
  const ticket = await api("POST", "/support-tickets", earner.token, {
    subject: "When is my payout?", category: "payments", message: "I withdrew $5 today.",
  });

  const staff = await browser.newPage({ viewport: { width: 375, height: 800 } });
  try {
    await signIn(staff, "admin@switchboard.local", "dev-admin-password");
    await staff.click("#tabs [data-tab=finance]");
    await staff.waitForSelector("#withdrawals li[data-id]");
    await staff.click(`#withdrawals li[data-id]`);
    await staff.waitForSelector("#w-history li");
    await staff.fill("#w-reference", "PAYPAL-TXN-42");
    await staff.click("#w-form button[type=submit]");
    await staff.waitForFunction(() => document.querySelector("#status").textContent.includes("marked paid"));
    await checkPage(staff, "finance-375");

    await staff.click("#tabs [data-tab=support]");
    await staff.waitForSelector(`#tickets li[data-id="${ticket.id}"]`);
    await staff.click(`#tickets li[data-id="${ticket.id}"]`);
    await staff.waitForSelector("#t-thread li");
    await staff.fill("#t-reply", "Paid this afternoon: PAYPAL-TXN-42.");
    await staff.click("#t-form button[type=submit]");
    await staff.waitForFunction(() => document.querySelectorAll("#t-thread li").length === 2);
    await staff.click("#t-close");
    await staff.waitForFunction(() => document.querySelector("#status").textContent === "Ticket closed.");

    await staff.setViewportSize({ width: 1280, height: 900 });
    await staff.click("#tabs [data-tab=dashboard]");
    await staff.waitForFunction(() => document.querySelectorAll("#chart rect").length === 30);
    const today = await staff.$eval("#chart rect:last-of-type", (r) => Number(r.getAttribute("data-earnings")));
    assert.equal(today, 20, "four approvals of $5 today");
    assert.equal(await staff.locator("#chart polyline").count(), 2);
    await checkPage(staff, "dashboard-1280");
  } finally {
    await staff.close();
  }
  const paid = await api("GET", "/admin/finance/withdrawals?status=paid", admin.token);
  const row = paid.items.find((w) => w.id === withdrawal.id);
  assert.ok(row, JSON.stringify(paid));
  assert.equal(row.reference, "PAYPAL-TXN-42");
  const thread = await api("GET", `/support-tickets/${ticket.id}`, earner.token);
  assert.equal(thread.status, "closed");
  assert.deepEqual(thread.messages.map((m) => m.authorKind), ["poster", "admin"]);
});
