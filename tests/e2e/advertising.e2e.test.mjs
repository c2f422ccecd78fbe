// The sandbox checkout in headless Chromium: an advertiser's campaign is approved, its
// checkout page is paid with the Pay button, the budget is funded and the ad reaches a
// poster's GET /ads. ADVERTISING_URL names a running advertising service and E2E_OUTBOX its
// outbox (tests/e2e/run.sh starts one, with the default first administrator).
//
// Everything goes through the API: the advertiser signs up, verifies the mailed link, signs
// in and creates the campaign with an uploaded clip; the seeded administrator approves it; the checkout, the
// sandbox page, the webhook and the posters' list are the real ones.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { api, launch, poster, sent } from "./harness.mjs";

const url = process.env.ADVERTISING_URL;

let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});



async function advertiser() {
  const email = `e2e-${randomUUID()}@example.com`;
  const password = "browser checkout e2e";
  await api("POST", "/advertisers/signup", null, {
    email, password, companyName: "E2E Rockets", countryCode: "GB",
  });
  const link = await sent(email, /verify-email\?token=(\S+)/);
  await api("POST", "/advertisers/verify-email", null, { token: link });
  const d = await api("POST", "/advertisers/login", null, { email, password });
  return { token: d.token, id: d.advertiser.id };
}


// A campaign with a 2 s clip made here, uploaded as multipart (the service transcodes it).
async function uploadCampaign(bearer, fields) {
  const clip = join(mkdtempSync(join(tmpdir(), "e2e-ad-")), "ad.mp4");
  execFileSync("ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i",
    "testsrc=duration=2:size=640x360:rate=25", "-pix_fmt", "yuv420p", clip]);
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append("video", new Blob([readFileSync(clip)], { type: "video/mp4" }), "ad.mp4");
  const res = await fetch(`${url}/advertisers/campaigns`, {
    method: "POST", headers: { Authorization: `Bearer ${bearer}` }, body: form,
  });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json.data;
}

// Waits until the campaign's video is processed (the server's worker runs ffmpeg).
async function videoReady(bearer, ad) {
  for (let i = 0; i < 300; i++) {
    const list = await api("GET", "/advertisers/campaigns", bearer);
    const status = list.items.find((c) => c.id === ad)?.videoStatus;
    if (status === "ready") return;
    assert.notEqual(status, "failed", "the uploaded video failed to process");
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the campaign's video was never processed");
}

test("sandbox checkout: Pay funds the campaign and posters see it", async () => {
  const { token: owner } = await advertiser();
  const campaign = await uploadCampaign(owner, {
    title: "Browser-funded boots", budgetUsd: "75", payoutUsd: "1.5", countryCode: "GB",
    demographics: JSON.stringify({ ageMin: 18, ageMax: 65, genders: [] }),
  });
  const ad = campaign.id;
  assert.equal(campaign.status, "pending");
  // An ad is approved only once its video is processed.
  await videoReady(owner, ad);
  // The first administrator (seeded at start-up) approves it: approved but unfunded, so
  // still not listed.
  const admin = await api("POST", "/admin/auth/login", null, {
    email: "admin@switchboard.local", password: "dev-admin-password",
  });
  await api("PUT", `/admin/ads/${ad}/approve`, admin.token);
  const reader = await poster();
  const before = await api("GET", "/ads", reader);
  assert.ok(!before.items.some((a) => a.id === ad), "an unpaid ad is not listed");

  const done = `${url}/health`;
  const checkout = await api("POST", "/api/campaign-payments/create-checkout", owner, {
    adId: ad, successUrl: done, cancelUrl: `${url}/health?cancelled=1`,
  });
  const page = await browser.newPage();
  try {
    await page.goto(checkout.url);
    assert.equal(await page.textContent("#amount"), "$75.00 USD");
    assert.equal(await page.textContent("#ad"), "Browser-funded boots");
    await Promise.all([page.waitForURL(done), page.click("#pay")]);
  } finally {
    await page.close();
  }

  const paid = await api("GET", `/api/campaign-payments/${checkout.paymentId}`, owner);
  assert.equal(paid.status, "paid");
  assert.equal(paid.ad.fundedUsd, "75.00");
  const after = await api("GET", "/ads", reader);
  const listed = after.items.find((a) => a.id === ad);
  assert.ok(listed, "the funded ad reaches posters");
  assert.equal(listed.freeBudgetCents, 7500);
});
