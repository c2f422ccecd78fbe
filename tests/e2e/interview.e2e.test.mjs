// The candidate page at interview_url in headless Chromium: it joins over the page's own
// Socket.IO client, starts, shows questions and the typing indicator, answers, pauses and
// resumes, and shows the summary. INTERVIEW_URL / INTERVIEW_API_KEY name a running
// interview service (tests/e2e/run.sh starts one).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const url = process.env.INTERVIEW_URL;
const apiKey = process.env.INTERVIEW_API_KEY;
const here = path.dirname(fileURLToPath(import.meta.url));
const ANSWER =
  "In my last role I built a Rust service with PostgreSQL. First I measured the slow queries, " +
  "then I added indexes and caching. As a result response times improved by 40% for our team.";

let browser;

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
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

test("a candidate takes the interview in the browser", async () => {
  assert.ok(url, "INTERVIEW_URL is not set; run tests/e2e/run.sh");
  const s = await create();
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(s.interview_url);

  await page.waitForSelector("#conn:text('connected')");
  await page.waitForSelector("#status[data-status='pending']");
  assert.match(await page.textContent("#title"), /Browser Candidate/);

  // Screenshot check: the page renders (non-trivial image, title visible).
  mkdirSync(path.join(here, "artifacts"), { recursive: true });
  const shot = await page.screenshot({ path: path.join(here, "artifacts", "interview-pending.png") });
  assert.ok(shot.length > 5000, `screenshot too small: ${shot.length} bytes`);
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

  // Pause and resume.
  await page.click("#pause");
  await page.waitForSelector("#status[data-status='paused']");
  assert.equal(await page.isDisabled("#answer"), true);
  await page.click("#resume");
  await page.waitForSelector("#status[data-status='in_progress']");

  // Last answer completes the interview and shows the summary.
  await page.fill("#answer", ANSWER);
  await page.click("#send");
  await page.waitForSelector("#summary:not([hidden])");
  await page.waitForSelector("#status[data-status='completed']");
  const score = Number(await page.textContent("#overall-score"));
  assert.ok(score > 0 && score <= 100, `score ${score}`);
  assert.match(await page.textContent("#grade"), /^[ABCDF]$/);
  await page.screenshot({ path: path.join(here, "artifacts", "interview-complete.png"), fullPage: true });

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
