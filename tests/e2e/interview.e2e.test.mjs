// The candidate page at interview_url in headless Chromium: it joins over the page's own
// Socket.IO client, starts, shows questions and the typing indicator, answers, pauses and
// resumes, and shows the summary. INTERVIEW_URL / INTERVIEW_API_KEY name a running
// interview service (tests/e2e/run.sh starts one).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "./harness.mjs";

const url = process.env.INTERVIEW_URL;
const apiKey = process.env.INTERVIEW_API_KEY;
const here = path.dirname(fileURLToPath(import.meta.url));
const ANSWER =
  "In my last role I built a Rust service with PostgreSQL. First I measured the slow queries, " +
  "then I added indexes and caching. As a result response times improved by 40% for our team.";

let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

async function create() {
  const res = await fetch(`${url}/api/v1/sessions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-API-Key": apiKey },
    body: JSON.stringify({
      candidate_name: "Browser Candidate", job_title: "Backend Engineer",
      job_description: "Rust and PostgreSQL services", max_questions: 2, time_limit_minutes: 20,
    }),
  });
  assert.equal(res.status, 201);
  return res.json();
}


// WCAG relative luminance contrast of each visible text element against the first opaque
// background behind it; returns the ones under 4.5:1.
async function lowContrast(page) {
  return page.evaluate(() => {
    const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const bg = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const bad = [];
    for (const el of document.querySelectorAll("body *")) {
      if (el.hidden || el.closest("[hidden]") || !el.offsetParent && el.tagName !== "BODY") continue;
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own) continue;
      const style = getComputedStyle(el);
      const fg = rgb(style.color).slice(0, 3);
      const opacity = Number(style.opacity);
      const [a, b] = [lum(fg), lum(bg(el))].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      if (ratio < 4.5 && opacity === 1) bad.push(`${el.id || el.className || el.tagName} ${ratio.toFixed(2)}`);
    }
    return bad;
  });
}

async function noHorizontalScroll(page, width) {
  const sw = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(sw <= width, `horizontal scroll at ${width}px: ${sw}`);
}

async function checkLayout(page, width, stage) {
  const file = path.join(here, "artifacts", `interview-${width}-${stage}.png`);
  const shot = await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
  assert.ok(shot.length > 5000, `screenshot too small: ${shot.length} bytes`);
  await noHorizontalScroll(page, width);
  assert.deepEqual(await lowContrast(page), [], `contrast at ${width}px, ${stage}`);
}

for (const width of [375, 1200]) test(`a candidate takes the interview in the browser at ${width} px`, async () => {
  assert.ok(url, "INTERVIEW_URL is not set; run tests/e2e/run.sh");
  const s = await create();
  const page = await browser.newPage({ viewport: { width, height: 800 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(s.interview_url);

  await page.waitForSelector("#conn:text('connected')");
  await page.waitForSelector("#status[data-status='pending']");
  assert.match(await page.textContent("#title"), /Browser Candidate/);

  // Screenshot check: the page renders (non-trivial image, title visible).
  mkdirSync(path.join(here, "artifacts"), { recursive: true });
  await checkLayout(page, width, "before");
  const box = await page.locator("header h1").boundingBox();
  assert.ok(box && box.width > 100 && box.height > 10, "title laid out");

  await page.click("#start");
  await page.waitForSelector("#status[data-status='in_progress']");
  await page.waitForSelector(".msg.greeting");
  await page.waitForSelector(".msg.question");
  assert.match(await page.textContent(".msg.question .meta"), /Question 1 of 2/);

  // Answer: the interviewer's typing indicator shows while the reply is produced.
  // The built-in interviewer answers in milliseconds, so the indicator may flash on and off
  // between two polls; record every removal of `hidden` instead of polling for visibility.
  await page.evaluate(() => {
    const el = document.getElementById("typing");
    window.__typingShown = !el.hidden;
    new MutationObserver((records) => {
      if (records.some((r) => r.oldValue !== null)) window.__typingShown = true;
    }).observe(el, { attributes: true, attributeFilter: ["hidden"], attributeOldValue: true });
  });
  await page.fill("#answer", ANSWER);
  await page.click("#send");
  await page.waitForFunction(() => window.__typingShown === true, null, { timeout: 10_000 });
  await page.waitForSelector(".msg.candidate .score:text('Score')");
  await page.waitForFunction(() => document.querySelectorAll(".msg.question").length === 2);
  await page.waitForSelector("#typing[hidden]", { state: "attached" });
  assert.ok(await page.isVisible("#suggestions button"), "quick replies during the interview");
  await checkLayout(page, width, "during");

  // Pause and resume.
  await page.click("#pause");
  await page.waitForSelector("#status[data-status='paused']");
  assert.equal(await page.isDisabled("#answer"), true);
  await page.click("#resume");
  await page.waitForSelector("#status[data-status='in_progress']");

  // Last answer, typed: Shift+Enter starts a new line, Enter sends and completes the interview.
  await page.click("#answer");
  await page.keyboard.type("First line.");
  await page.keyboard.press("Shift+Enter");
  assert.equal(await page.inputValue("#answer"), "First line.\n");
  await page.fill("#answer", ANSWER);
  await page.press("#answer", "Enter");
  await page.waitForSelector("#summary:not([hidden])");
  await page.waitForSelector("#status[data-status='completed']");
  const score = Number(await page.textContent("#overall-score"));
  assert.ok(score > 0 && score <= 100, `score ${score}`);
  assert.match(await page.textContent("#grade"), /^[ABCDF]$/);
  // After completion: nothing left to answer with, and no heading over an empty list.
  for (const gone of ["#answer", "#send", "#suggestions button"]) {
    assert.equal(await page.isVisible(gone), false, `${gone} after completion`);
  }
  for (const box of ["#strengths-box", "#improvements-box"]) {
    const shown = await page.isVisible(box);
    const items = await page.locator(`${box} li`).count();
    assert.equal(shown, items > 0, `${box} shown iff it has content`);
  }
  await checkLayout(page, width, "after");
  // Reconnecting shows the completed state again.
  await page.reload();
  await page.waitForSelector("#conn:text('connected')");
  await page.waitForSelector("#status[data-status='completed']");
  await page.waitForSelector("#summary:not([hidden])");
  assert.equal(await page.isVisible("#answer"), false, "answer box after reconnecting");

  const report = await (await fetch(`${url}/api/v1/sessions/${s.id}/report`, { headers: { "X-API-Key": apiKey } })).json();
  assert.equal(report.overall_score, score);
  assert.deepEqual(errors, []);
  await page.close();
});

test("an unknown interview link shows a not-found page", async () => {
  const page = await browser.newPage();
  const res = await page.goto(`${url}/interview/not-a-real-token`);
  assert.equal(res.status(), 404);
  assert.match(await page.textContent("body"), /not valid/);
  await page.close();
});
