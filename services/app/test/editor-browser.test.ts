import { readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type JsonDocument, markdownToDocument } from "@imprint/document";
import { CHROMIUM_INSTALL_HINT, findChromium } from "@imprint/runtime/infrastructure";
import { patient } from "@imprint/runtime/testing";
import { type Browser, chromium, type Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The editor in Debian's Chromium (playwright-core, as the reader's browser tests): bundled by
 * Vite from test/support/editor-page.ts, served over HTTP, typed into with the keyboard.
 */

const APP = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(tmpdir(), `imprint-editor-page-${process.pid}`);
const TIMEOUT = patient(10_000);
const TYPES: Record<string, string> = { ".js": "text/javascript", ".css": "text/css", ".html": "text/html; charset=utf-8" };

let server: Server;
let base: string;
let browser: Browser;
/** Every path the pages requested. */
const requested: string[] = [];

beforeAll(async () => {
  await build({
    configFile: false,
    root: APP,
    logLevel: "silent",
    oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
    build: { outDir: OUT, emptyOutDir: true, minify: false, lib: { entry: join(APP, "test/support/editor-page.ts"), formats: ["es"], fileName: "page" } },
  });
  server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    requested.push(path);
    if (path === "/") {
      response.writeHead(200, { "content-type": TYPES[".html"] });
      response.end(
        '<!doctype html><html lang="en"><title>Editor</title><link rel="stylesheet" href="/page.css"><div id="root"></div><script type="module" src="/page.js"></script>',
      );
      return;
    }
    readFile(join(OUT, path.slice(1))).then(
      (body) => {
        response.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" });
        response.end(body);
      },
      () => {
        response.writeHead(404);
        response.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const executablePath = findChromium();
  if (!executablePath) throw new Error(CHROMIUM_INSTALL_HINT);
  browser = await chromium.launch({ executablePath, headless: true, args: process.getuid?.() === 0 ? ["--no-sandbox"] : [] });
}, patient(120_000));

afterAll(async () => {
  await browser?.close();
  server?.close();
  await rm(OUT, { recursive: true, force: true });
});

/** A page with the editor on the markdown's document. */
async function open(markdown: string): Promise<Page> {
  const context = await browser.newContext();
  context.setDefaultTimeout(TIMEOUT);
  const page = await context.newPage();
  await page.addInitScript(`window.initialDocument = ${JSON.stringify(markdownToDocument(markdown))};`);
  await page.goto(`${base}/`);
  await page.locator('[role="textbox"]').waitFor();
  return page;
}

const lastChange = (page: Page) => page.evaluate<JsonDocument | undefined>("window.changes.at(-1)");
const content = (page: Page) => page.locator('[role="textbox"]');

describe("the editor in Chromium", () => {
  it("typing edits the block, shortcuts mark text, and undo takes it back", async () => {
    const page = await open("Intro text\n\n> [!NOTE]\n> kept");
    await content(page).locator("p").first().click();
    await page.keyboard.press("End");
    await page.keyboard.type(" and ");
    await page.keyboard.press("Control+b");
    await page.keyboard.type("bold");
    const changed = await lastChange(page);
    expect(changed!.nodes[0]).toStrictEqual(markdownToDocument("Intro text and **bold**").nodes[0]);
    expect(changed!.nodes[1]).toStrictEqual(markdownToDocument("> [!NOTE]\n> kept").nodes[0]);
    await page.keyboard.press("Control+z");
    await expect.poll(async () => (await lastChange(page))!.nodes[0]).toStrictEqual(markdownToDocument("Intro text").nodes[0]);
    await page.close();
  });

  it("markdown typed at a paragraph's start makes headings and lists; Enter and Tab nest list items", async () => {
    const page = await open("First");
    await content(page).locator("p").first().click();
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await page.keyboard.type("## Section");
    await page.keyboard.press("Enter");
    await page.keyboard.type("- one");
    await page.keyboard.press("Enter");
    await page.keyboard.type("two");
    await page.keyboard.press("Tab");
    // A heading made in the editor has no id yet: the id is the slug content gives it when it reads the saved page.
    const expected = markdownToDocument("First\n\n## Section\n\n- one\n  - two\n");
    expected.nodes[1]!.data = {};
    expect(await lastChange(page)).toStrictEqual(expected);
    expect(await content(page).locator("h2").textContent()).toBe("Section");
    await page.close();
  });

  it("the toolbar is reached with the keyboard and says what the selection is", async () => {
    const page = await open("some words here");
    await content(page)
      .locator("p")
      .dblclick({ position: { x: 5, y: 5 } });
    await page.getByRole("button", { name: "Italic" }).click();
    expect(await page.getByRole("button", { name: "Italic" }).getAttribute("aria-pressed")).toBe("true");
    expect(await lastChange(page)).toStrictEqual(markdownToDocument("_some_ words here"));
    await page.getByRole("button", { name: "Heading 1" }).focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate<string | null>('document.activeElement?.getAttribute("aria-label") ?? null')).toBe("Heading 2");
    await page.close();
  });

  it("the source view's conversions load only when it opens, and what is typed there becomes the content", async () => {
    const page = await open("# Guide\n\nHello");
    const chunk = (paths: string[]) => paths.filter((path) => /^\/source-.*\.js$/.test(path));
    const before = chunk(requested).length;
    await page.getByRole("button", { name: "Italic" }).waitFor();
    expect(chunk(requested).length).toBe(before);
    await page.getByRole("button", { name: "Markdown source" }).click();
    const source = page.getByRole("textbox", { name: "Markdown source" });
    expect(await source.inputValue()).toBe("# Guide\n\nHello\n");
    expect(chunk(requested).length).toBe(before + 1);
    await source.fill("# Guide\n\n- [x] done\n");
    await page.getByRole("button", { name: "Markdown source" }).click();
    await source.waitFor({ state: "detached" });
    expect(await lastChange(page)).toStrictEqual(markdownToDocument("# Guide\n\n- [x] done\n"));
    await page.close();
  });
});
