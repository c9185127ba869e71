import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { extractText, getDocumentProxy } from "unpdf";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Caller } from "@imprint/proto/common/v1";
import { ExportServiceService } from "@imprint/proto/content/v1/exports";
import { PageType } from "@imprint/proto/content/v1/revisions";
import type { PromiseClient } from "@imprint/runtime";
import {
  eventually,
  testClient,
  createMember,
  createOrganization,
  createOutsider,
  createSpace,
  type TestOrganization,
  errorCode,
  failure,
  createRevision,
} from "@imprint/runtime/testing";
import { signUrl } from "../src/revisions/domain/files/signed-url.js";
import { startContentHarness, type ContentHarness } from "./support/harness.js";
import { contentClients, contentRef, newPage, type ContentClients } from "./revisions-fixtures.js";

/**
 * PDF exports through ExportService: rendering (the text really is in the PDF, in order, as a
 * PDF reader extracts it), page selection, access, the signed download URL and the sweep of
 * expired exports. The purge job runs every 200 ms here, so the sweep is observable.
 */
let harness: ContentHarness;
let clients: ContentClients;
let exportsClient: PromiseClient<typeof ExportServiceService>;
let org: TestOrganization;
let spaceId: string;
let spaceTitle: string;

beforeAll(async () => {
  harness = await startContentHarness({ contentEnv: { PURGE_INTERVAL_MS: "200" } });
  clients = contentClients(harness);
  exportsClient = testClient(ExportServiceService, harness.contentAddress);
});
afterAll(async () => {
  exportsClient?.close();
  clients?.close();
  await harness?.stop();
});
beforeEach(async () => {
  org = await createOrganization(harness);
  const space = await createSpace(harness, org, { title: "Field Guide" });
  spaceId = space.id;
  spaceTitle = space.title;
});

const owner = () => org.owner.caller;
const DIAGRAM = readFile(new URL("./fixtures/site/public/docs/images/diagram.png", import.meta.url));

/**
 * A real PNG (chunks with CRCs, deflated scanlines): RGBA when `alpha`; `corrupt` breaks its pixel
 * data; `claims` puts other dimensions in its header than its pixel data has.
 */
function encodePng(width: number, height: number, options: { alpha?: boolean; corrupt?: boolean; claims?: [number, number] } = {}): Buffer {
  const channels = options.alpha ? 4 : 3;
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    typed.copy(out, 4);
    out.writeUInt32BE(crc32(typed), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(options.claims?.[0] ?? width, 0);
  header.writeUInt32BE(options.claims?.[1] ?? height, 4);
  header[8] = 8;
  header[9] = options.alpha ? 6 : 2;
  const scanlines = Buffer.alloc(height * (1 + width * channels), 0x80);
  for (let row = 0; row < height; row++) scanlines[row * (1 + width * channels)] = 0;
  const pixels = deflateSync(scanlines);
  if (options.corrupt) pixels.fill(0xff, 2, Math.min(pixels.length - 4, 12));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", pixels),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** The parts of an export URL that the gateway passes to ReadExportContent. */
function downloadParts(url: string) {
  const parsed = new URL(url);
  const match = /^\/v1\/exports\/([^/]+)\/download$/.exec(parsed.pathname);
  expect(match).not.toBeNull();
  return { exportId: match![1]!, expires: parsed.searchParams.get("expires") ?? "0", signature: parsed.searchParams.get("signature") ?? "" };
}

async function exportPdf(options: { pageId?: string; only?: boolean; caller?: Caller } = {}) {
  return exportsClient.exportPdf({ caller: options.caller ?? owner(), ref: contentRef(spaceId), pageId: options.pageId ?? "", only: options.only ?? false });
}

/** Exports and downloads: the PDF's bytes, its name, and its text per PDF page as a reader extracts it. */
async function exportAndRead(options: Parameters<typeof exportPdf>[0] = {}) {
  const exported = await exportPdf(options);
  const download = await exportsClient.readExportContent(downloadParts(exported.url));
  const bytes = Buffer.from(download.content);
  const { text } = await extractText(new Uint8Array(bytes), { mergePages: false });
  return { exported, download, bytes, pages: text, text: text.join("\n") };
}

/** Each part occurs in `text`, each after the one before. */
function expectInOrder(text: string, parts: string[]): void {
  let from = 0;
  for (const part of parts) {
    const at = text.indexOf(part, from);
    expect(at, `"${part}" after position ${from} in:\n${text}`).toBeGreaterThanOrEqual(0);
    from = at + part.length;
  }
}

const GUIDE = (fileId: string) => `# Getting started

Imprint serves **GitBook-compatible** documentation from *your own* servers; see [the API](/pages/api).

1. Install the package
   - on Linux
     - with npm
2. Configure the service

- [x] Read the guide
- [ ] Write a page

\`\`\`sh
npm install imprint
\`\`\`

> Quoted advice for readers.

> [!WARNING]
> Back up the data directory.

| Option | Default |
|---|---|
| port | 8080 |
| host | 127.0.0.1 |

---

![Diagram](/files/${fileId})

![Diagram again](/files/${fileId})`;

/** Guide (with sub-pages Install and Configure), a Reference group holding API, a Status link. */
async function seedHandbook(): Promise<void> {
  await createRevision(clients, owner(), { spaceId }, async (draftId) => {
    const fileId = (
      await clients.editing.uploadFile({ caller: owner(), draftId, fileId: "", name: "diagram.png", contentType: "image/png", content: await DIAGRAM })
    ).file!.id;
    await clients.editing.applyPageOperations({
      caller: owner(),
      draftId,
      operations: [
        { create: newPage({ pageId: "guide", title: "Guide", description: "Everything to begin with", markdown: GUIDE(fileId) }) },
        { create: newPage({ pageId: "install", parentPageId: "guide", title: "Install", markdown: "## Requirements\n\nNode 24 or later." }) },
        { create: newPage({ pageId: "configure", parentPageId: "guide", title: "Configure", markdown: "Set `IMPRINT_PORT`." }) },
        { create: newPage({ pageId: "reference", title: "Reference", type: PageType.PAGE_TYPE_GROUP }) },
        { create: newPage({ pageId: "api", parentPageId: "reference", title: "API", markdown: "### Endpoints\n\nEvery route is under `/v1`." }) },
        { create: newPage({ pageId: "status", title: "Status", type: PageType.PAGE_TYPE_LINK, href: "https://status.example.com" }) },
      ],
    });
  });
}

describe("ExportPdf", () => {
  it("renders every page in tree order: titles, headings, lists, code, quotes, hints, tables, images; bookmarks follow the page tree", async () => {
    await seedHandbook();
    // Before the export, not after it: the clock runs on while the PDF is made and read.
    const requestedAt = harness.clock.now().getTime();
    const { exported, download, bytes, text, pages } = await exportAndRead();

    expect(exported.url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/v1\/exports\/[0-9a-f-]{36}\/download\?expires=\d+&signature=[\w-]+$/);
    expect(exported.expiresAt!.getTime() - requestedAt).toBeGreaterThanOrEqual(60 * 60 * 1000);
    expect(download.contentType).toBe("application/pdf");
    expect(download.name).toBe(`${spaceTitle}.pdf`);
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(Number(exported.size)).toBe(bytes.length);

    expectInOrder(text, [
      "Guide",
      "Everything to begin with",
      "Getting started",
      "GitBook-compatible",
      "the API",
      "1.",
      "Install the package",
      "on Linux",
      "with npm",
      "2.",
      "Configure the service",
      "Read the guide",
      "Write a page",
      "npm install imprint",
      "Quoted advice for readers.",
      "Warning",
      "Back up the data directory.",
      "Option",
      "Default",
      "port",
      "8080",
      "host",
      "127.0.0.1",
      "Install",
      "Requirements",
      "Node 24 or later.",
      "Configure",
      "Set IMPRINT_PORT.",
      "Reference",
      "API",
      "Endpoints",
      "Every route is under /v1.",
      "Status",
      "https://status.example.com",
    ]);
    // Each document and group page starts a PDF page; the link page is a line after the last one.
    expect(pages.length).toBeGreaterThanOrEqual(5);
    expect(pages.findIndex((page) => page.includes("Requirements"))).toBeGreaterThan(pages.findIndex((page) => page.includes("Getting started")));

    // The file image is drawn (embedded once, though shown twice); nothing else is an image.
    expect(bytes.toString("latin1").match(/\/Subtype \/Image/g)).toHaveLength(1);

    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const outline = (await pdf.getOutline()) ?? [];
    const titles = (items: typeof outline): unknown[] => items.map((item) => (item.items.length > 0 ? { [item.title]: titles(item.items) } : item.title));
    expect(titles(outline)).toEqual([{ Guide: ["Install", "Configure"] }, { Reference: ["API"] }, "Status"]);
  });

  it("exports one page with its sub-pages, or with `only` that page alone, named after the page", async () => {
    await seedHandbook();
    const withSubPages = await exportAndRead({ pageId: "guide" });
    expect(withSubPages.download.name).toBe("guide.pdf");
    expectInOrder(withSubPages.text, ["Guide", "Getting started", "Install", "Requirements", "Configure", "Set IMPRINT_PORT."]);
    expect(withSubPages.text).not.toContain("Reference");
    expect(withSubPages.text).not.toContain("status.example.com");

    const alone = await exportAndRead({ pageId: "guide", only: true });
    expectInOrder(alone.text, ["Guide", "Getting started", "Back up the data directory."]);
    expect(alone.text).not.toContain("Requirements");
    expect(alone.text).not.toContain("Set IMPRINT_PORT.");

    const group = await exportAndRead({ pageId: "reference" });
    expectInOrder(group.text, ["Reference", "API", "Every route is under /v1."]);
    expect(group.text).not.toContain("Getting started");
  });

  it("checks view rights like every read: other organizations, outsiders and unknown pages get not_found; readers may export", async () => {
    await seedHandbook();
    const reader = await createMember(harness, org.organizationId, { role: "read" });
    expect((await exportAndRead({ caller: reader.caller })).text).toContain("Getting started");

    const other = await createOrganization(harness);
    expect(await errorCode(exportPdf({ caller: other.owner.caller }))).toBe("not_found");
    expect(await errorCode(exportPdf({ caller: (await createOutsider(harness)).caller }))).toBe("not_found");
    const missing = await failure(exportPdf({ pageId: "nope" }));
    expect(missing).toMatchObject({ code: "not_found", message: "Page not found" });
  });

  it("prints what the standard fonts cannot encode by its nearest spelling (bookmarks keep it), and images it cannot draw by their name", async () => {
    await createRevision(clients, owner(), { spaceId }, async (draftId) => {
      const upload = async (name: string, contentType: string, content: Buffer) =>
        (await clients.editing.uploadFile({ caller: owner(), draftId, fileId: "", name, contentType, content })).file!.id;
      const translucent = await upload("translucent.png", "image/png", encodePng(40, 20, { alpha: true }));
      const broken = await upload("broken.png", "image/png", encodePng(40, 20, { alpha: true, corrupt: true }));
      const huge = await upload("huge.png", "image/png", encodePng(4, 4, { alpha: true, claims: [60_000, 60_000] }));
      const vector = await upload("logo.svg", "image/svg+xml", Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"));
      await clients.editing.createPage({
        caller: owner(),
        draftId,
        page: newPage({
          pageId: "symbols",
          title: "Symbols → 記号",
          markdown: `Café → naïve “quotes” ﬁne 🎉 done\n\n![](/files/${translucent})\n\n![](/files/${broken})\n\n![](/files/${huge})\n\n![](/files/${vector})\n\n![](https://cdn.example.com/remote.png)`,
        }),
      });
    });
    const { text, bytes } = await exportAndRead();
    expectInOrder(text, [
      "Symbols -> ??",
      "Café -> naïve “quotes” fine done",
      "[image: broken.png]",
      "[image: huge.png]",
      "[image: logo.svg]",
      "https://cdn.example.com/remote.png",
    ]);
    // The translucent PNG is drawn with its alpha channel as a soft mask; the corrupt one and the
    // one claiming 60,000 × 60,000 pixels (14 GB to decode) are not drawn at all.
    expect(bytes.toString("latin1").match(/\/Subtype \/Image/g)).toHaveLength(2);
    expect(bytes.toString("latin1")).toContain("/SMask");
    // Bookmarks are Unicode text strings, not drawn with the fonts: they keep every character.
    const outline = (await (await getDocumentProxy(new Uint8Array(bytes))).getOutline()) ?? [];
    expect(outline.map((item) => item.title)).toEqual(["Symbols → 記号"]);
  });

  it("refuses content of more than 2,000 pages, and still exports one of its pages", async () => {
    await createRevision(clients, owner(), { spaceId }, (draftId) =>
      clients.editing.applyPageOperations({
        caller: owner(),
        draftId,
        operations: Array.from({ length: 2_001 }, (_, index) => ({ create: newPage({ pageId: `p${index}`, title: `Page ${index}` }) })),
      }),
    );
    const refused = await failure(exportPdf());
    expect(refused.code).toBe("failed_precondition");
    expect(refused.message).toMatch(/^content: 2001 pages to export, a PDF holds at most 2,000/);
    expect((await exportAndRead({ pageId: "p1999" })).text).toContain("Page 1999");
  });
});

describe("ReadExportContent", () => {
  it("refuses a bad signature, answers not_found once expired, and the sweep deletes the export and its bytes", async () => {
    await seedHandbook();
    const exported = await exportPdf();
    const parts = downloadParts(exported.url);
    const { content } = await exportsClient.readExportContent(parts);
    const blobPath = (() => {
      const key = createHash("sha256").update(content).digest("hex");
      return join(harness.dataDir, "content-blobs", key.slice(0, 2), key);
    })();
    expect((await stat(blobPath)).size).toBe(content.length);

    const flipped = parts.signature.replace(/^./, (c) => (c === "A" ? "B" : "A"));
    expect(await errorCode(exportsClient.readExportContent({ ...parts, signature: flipped }))).toBe("permission_denied");
    expect(await errorCode(exportsClient.readExportContent({ ...parts, expires: String(Number(parts.expires) + 300) }))).toBe("permission_denied");

    harness.clock.advance(2 * 60 * 60 * 1000);
    expect(await errorCode(exportsClient.readExportContent(parts))).toBe("not_found");

    // The sweep removes the row and the blob: even a URL signed afresh for it leads nowhere.
    await eventually(() =>
      stat(blobPath).then(
        () => false,
        () => true,
      ),
    );
    const secret = (await readFile(join(harness.dataDir, "file-url-secret"), "utf8")).trim();
    const resigned = signUrl(
      { secret, publicUrl: "http://127.0.0.1:8080" },
      { kind: "export", path: `/v1/exports/${parts.exportId}/download`, fields: [parts.exportId] },
      harness.clock.now(),
    );
    expect(await errorCode(exportsClient.readExportContent(downloadParts(resigned.url)))).toBe("not_found");
  });
});
