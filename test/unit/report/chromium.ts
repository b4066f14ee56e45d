/**
 * Opens a report in a real headless Chromium (Debian's `chromium`, driven by playwright-core; no
 * browser is ever downloaded), with the flags that keep it off the network, and records every
 * request that is not the report file itself or a data: URI, every console error and page error.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
/** Where the reports and screenshots go (kept after the run for people to look at). */
export const OUT_DIR = resolve('test-output/report');

let browser: BrowserContext | undefined;
let profile: string | undefined;

/** One browser for the file, with a fresh profile directory (playwright passes it as --user-data-dir). */
export async function launch(): Promise<BrowserContext> {
  if (browser) return browser;
  const { chromium } = await import('playwright-core');
  profile = mkdtempSync(join(tmpdir(), 'verity-report-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return browser;
}

export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
  if (profile) rmSync(profile, { recursive: true, force: true });
}

export interface Opened {
  page: Page;
  /** Requests other than the report file and data: URIs (each was aborted). */
  requests: string[];
  /** Console errors and uncaught page errors. */
  errors: string[];
  close(): Promise<void>;
}

/** Writes `html` to OUT_DIR/name.html and opens it at 1280×800. */
export async function openReport(html: string, name: string): Promise<Opened> {
  mkdirSync(OUT_DIR, { recursive: true });
  const file = join(OUT_DIR, `${name}.html`);
  writeFileSync(file, html);
  const url = pathToFileURL(file).href;
  const context = await launch();
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const requests: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u === url || u.startsWith('data:')) return route.continue();
    requests.push(u);
    return route.abort();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => {
    const u = r.url();
    if (u !== url && !u.startsWith('data:') && !requests.includes(u)) requests.push(u);
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, requests, errors, close: () => page.close() };
}

export const screenshot = (o: Opened, name: string): Promise<Buffer> => o.page.screenshot({ path: join(OUT_DIR, `${name}.png`) });

/** Scrolls so that `selector` is at the top of the viewport (for a screenshot of that part). */
export async function scrollTo(o: Opened, selector: string): Promise<void> {
  await o.page.locator(selector).first().evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 8));
}
