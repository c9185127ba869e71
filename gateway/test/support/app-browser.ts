import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { expect } from "vitest";
import { loadAppConfig, startApp, type AppHandle } from "@imprint/app";
import { getFreePort } from "@imprint/runtime/infrastructure";
import { patient } from "@imprint/runtime/testing";
import type { ReaderHandle } from "@imprint/reader";
import { startTestReader } from "./reader.js";
import { startStack, type TestStack } from "./stack.js";

/**
 * The browser app's test helpers, for every app test (gateway/test/app-*.e2e.test.ts): a stack
 * whose gateway forwards the app's paths to a real app target, people with passwords (the admin
 * CLI, as an operator sets them), and a browser that opens app URLs and signs in through the form.
 */

const ADMIN_CLI = fileURLToPath(new URL("../../../services/identity/dist/cli/admin.js", import.meta.url));
/** The password every helper-made person signs in with. */
export const APP_PASSWORD = "correct horse battery staple";
/** How long a browser step may take (a busy CI machine is slow, not broken). */
export const BROWSER_TIMEOUT = patient(10_000);

export interface AppStack {
  stack: TestStack;
  app: AppHandle;
  /** Where people open the app: the gateway's origin (the app's paths are forwarded). */
  origin: string;
  stop(): Promise<void>;
}

/** The app target on a free port, then the test stack with its gateway forwarding the app's paths there (GATEWAY_APP_URL). */
export async function startAppStack(options: Parameters<typeof startStack>[0] = {}): Promise<AppStack> {
  // The app's port is chosen first: the gateway forwards there, and the app asks the gateway's
  // GET /v1/auth/session (APP_API_URL) before rendering a document.
  const appPort = await getFreePort();
  const stack = await startStack({ ...options, gatewayEnv: { GATEWAY_APP_URL: `http://127.0.0.1:${appPort}`, ...options.gatewayEnv } });
  let app: AppHandle;
  try {
    app = await startApp(loadAppConfig({ APP_PORT: String(appPort), APP_API_URL: stack.baseUrl, LOG_LEVEL: "warn" }));
  } catch (error) {
    await stack.stop();
    throw error;
  }
  return {
    stack,
    app,
    origin: stack.baseUrl,
    stop: async () => {
      await stack.stop();
      await app.stop();
    },
  };
}

/** An app stack whose sites are read on a reader of its own: `reader`, whose URL the gateway builds `urls.published` on. */
export interface AppStackWithReader extends AppStack {
  reader: ReaderHandle;
}

/** startAppStack, with a reader (on a port chosen first, so the gateway's published URLs name it). */
export async function startAppStackWithReader(options: Parameters<typeof startStack>[0] = {}): Promise<AppStackWithReader> {
  const readerPort = await getFreePort();
  const readerUrl = `http://127.0.0.1:${readerPort}/`;
  const env = await startAppStack({ ...options, gatewayEnv: { IMPRINT_READER_URL: readerUrl, ...options.gatewayEnv } });
  let reader: ReaderHandle;
  try {
    reader = await startTestReader(env.stack, { env: { READER_PORT: String(readerPort), IMPRINT_READER_URL: readerUrl } });
  } catch (error) {
    await env.stop();
    throw error;
  }
  return {
    ...env,
    reader,
    stop: async () => {
      await reader.stop();
      await env.stop();
    },
  };
}

/** Runs identity's admin CLI against the stack (`input` on its standard input); reset links are built on the gateway's origin. */
export function adminCli(
  stack: TestStack,
  args: string[],
  input = "",
  appUrl = stack.baseUrl,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ADMIN_CLI, ...args], {
      env: { ...process.env, IDENTITY_GRPC_ADDRESS: stack.upstreamEnv.IDENTITY_GRPC_ADDRESS, IMPRINT_APP_URL: appUrl },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Gives the person with `email` a password (`npm run admin -- password`). */
export async function setPassword(stack: TestStack, email: string, password = APP_PASSWORD): Promise<void> {
  const result = await adminCli(stack, ["password", email], `${password}\n`);
  expect(result.code, result.stderr).toBe(0);
}

/** A reset link for the person with `email` (`npm run admin -- reset-link`), on the gateway's origin. */
export async function resetLink(stack: TestStack, email: string): Promise<string> {
  const result = await adminCli(stack, ["reset-link", email]);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { link: string }).link;
}

/** A fresh visitor (own cookies) on a blank page. */
export async function newVisitor(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  context.setDefaultTimeout(BROWSER_TIMEOUT);
  return context.newPage();
}

/** Opens an app URL (absolute, e.g. an organization's `urls.app`, or a path on `origin`) and waits for the shell to show a page. */
export async function openApp(page: Page, url: string, origin?: string): Promise<void> {
  await page.goto(origin && url.startsWith("/") ? `${origin}${url}` : url);
  await page.locator("main h1").first().waitFor();
}

/** Signs in through the sign-in form the page shows (by its labels, as a person would). */
export async function signInThroughForm(page: Page, email: string, password = APP_PASSWORD): Promise<void> {
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

/** The page's main heading. */
export function heading(page: Page): Promise<string | null> {
  return page.locator("main h1").first().textContent();
}

/** expect.poll with a browser step's patience. */
export function poll<T>(read: () => Promise<T> | T): ReturnType<typeof expect.poll<T>> {
  return expect.poll(read, { timeout: BROWSER_TIMEOUT });
}

/** Waits until the page's main heading is `name` (a string: exactly). */
export async function shows(page: Page, name: string | RegExp): Promise<void> {
  await page.locator("main").getByRole("heading", { level: 1, name, exact: true }).first().waitFor();
}

/** The Cookie header of a browser page's session. */
export async function cookieOf(page: Page): Promise<string> {
  return (await page.context().cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
}

/** Clicks at the end of `text` inside the editor and types `typed` there. */
export async function typeAfter(page: Page, text: string, typed: string): Promise<void> {
  await page.bringToFront();
  await page.locator(".ProseMirror").getByText(text, { exact: true }).click();
  await page.keyboard.press("End");
  await page.keyboard.type(typed);
}

/** What a person can use: links, buttons and fields. */
const CONTROLS = "a[href], button, input, select, textarea";

/**
 * Every control a person can use (links, buttons, fields) has an accessible name, and Tab alone
 * reaches each one: the ids (or texts) of those Tab never reached, and of those with no name.
 */
export async function keyboardGaps(page: Page): Promise<{ unreached: string[]; unnamed: string[] }> {
  // Browser-side code as text: the gateway's tests are typed for Node, without the DOM.
  // Each element focus lands on is marked as it happens (one listener, kept for later calls), so a
  // Tab is one round trip to the browser.
  const total = await page.evaluate<number>(`(() => {
    document.querySelectorAll("[data-reached]").forEach((element) => element.removeAttribute("data-reached"));
    if (!window.__markReached) {
      window.__markReached = (event) => event.target instanceof Element && event.target.setAttribute("data-reached", "");
      document.addEventListener("focusin", window.__markReached, true);
    }
    document.activeElement?.blur();
    window.scrollTo(0, 0);
    return document.querySelectorAll("${CONTROLS}").length;
  })()`);
  // Controls a page shows once its lists load may come after the count: while there are more
  // than the last walk covered, walk once more (marks are kept; the walk wraps round the page).
  const count = () => page.evaluate<number>(`document.querySelectorAll("${CONTROLS}").length`);
  for (let walked = 0, controls = total; controls > walked; walked = controls, controls = await count()) {
    for (let press = 0; press < controls + 5; press++) await page.keyboard.press("Tab");
  }
  return page.evaluate<{ unreached: string[]; unnamed: string[] }>(`(() => {
    const controls = [...document.querySelectorAll("${CONTROLS}")].filter(
      (element) => !element.disabled && element.getClientRects().length > 0 && element.getAttribute("tabindex") !== "-1",
    );
    const describe = (element) => element.id || element.textContent.trim() || element.outerHTML.slice(0, 80);
    const field = (element) => ["INPUT", "SELECT", "TEXTAREA"].includes(element.tagName);
    const named = (element) =>
      !!element.getAttribute("aria-label")?.trim() ||
      !!document.getElementById(element.getAttribute("aria-labelledby") ?? "")?.textContent.trim() ||
      (field(element) ? element.labels.length > 0 : !!element.textContent.trim());
    // A radio group is one stop of the Tab order (arrows choose within it).
    const reached = (element) =>
      element.hasAttribute("data-reached") ||
      (element.type === "radio" && !!document.querySelector('input[type="radio"][name="' + element.name + '"][data-reached]'));
    return { unreached: controls.filter((element) => !reached(element)).map(describe), unnamed: controls.filter((element) => !named(element)).map(describe) };
  })()`);
}
