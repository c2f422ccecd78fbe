// What the browser tests share: Debian's Chromium, headless, and the advertising service's
// API and outbox (tests/e2e/run.sh starts the services and exports where they are).

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { chromium } from "playwright-core";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/// Headless Chromium (`CHROMIUM_PATH`, else /usr/bin/chromium) without its background traffic.
export function launch(extra = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      ...extra,
    ],
  });
}

/// `method path` on the advertising service with `bearer`; its `data` after a 200.
export async function api(method, path, bearer, body) {
  const res = await fetch(`${process.env.ADVERTISING_URL}${path}`, {
    method,
    headers: {
      "Content-Type": "application/json",
      ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  assert.equal(res.status, 200, `${method} ${path}: ${JSON.stringify(json)}`);
  return json.data;
}

/// The first group of `pattern` in the outbox's last message to `to` (mail and SMS jobs run
/// on the server's worker, so it is waited for).
export async function sent(to, pattern) {
  for (let i = 0; i < 100; i++) {
    const out = existsSync(process.env.E2E_OUTBOX) ? readFileSync(process.env.E2E_OUTBOX, "utf8") : "";
    const line = out.trim().split("\n")
      .filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.to === to).pop();
    const m = line?.text.match(pattern);
    if (m) return m[1];
    await sleep(100);
  }
  throw new Error(`nothing sent to ${to}`);
}

/// A poster signed in by the code texted to a fresh UK number; their token.
export async function poster() {
  const phone = `+44770${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
  await api("POST", "/auth/request-otp", null, { phoneNumber: phone, countryId: "GB" });
  const code = await sent(phone, /\b(\d{6})\b/);
  return (await api("POST", "/auth/verify-otp", null, { phoneNumber: phone, code })).token;
}
