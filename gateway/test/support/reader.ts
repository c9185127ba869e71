import { expect } from "vitest";
import { loadReaderConfig, startReader, type ReaderHandle } from "@imprint/reader";
import { patient, testNatsUrl } from "@imprint/runtime/testing";
import { eventually } from "@imprint/runtime/testing";
import { createSpace, type TestOrganization } from "./factories.js";
import { call } from "./http.js";
import type { TestStack } from "./stack.js";

/**
 * A reader on the test stack. With `events`, it hears publishing's and content's events on this
 * file's nats-server (as deployed) and keeps what it read until one says it changed; without,
 * it asks publishing and content at every request.
 */
export async function startTestReader(
  stack: TestStack,
  options: { events?: boolean; env?: Record<string, string>; clock?: () => Date } = {},
): Promise<ReaderHandle> {
  return startReader(
    loadReaderConfig({
      READER_PORT: "0",
      PUBLISHING_GRPC_ADDRESS: stack.publishingAddress,
      CONTENT_GRPC_ADDRESS: stack.contentAddress,
      ...(options.events ? { NATS_URL: await testNatsUrl() } : { SITE_CACHE_TTL_MS: "0" }),
      UPSTREAM_TIMEOUT_MS: String(patient(10_000)),
      LOG_LEVEL: "warn",
      // Every visitor of a test is 127.0.0.1: its limit is out of reach unless a test sets it.
      READER_RATE_LIMIT_PER_IP: "1000000000",
      ...options.env,
    }),
    options.clock ? { clock: options.clock } : {},
  );
}

/** A GitBook change to a space's content (updateChangeRequestContent's `changes`). */
export type ContentChange = Record<string, unknown>;

/** Writes `changes` to a space's main content through a merged change request, as any API client would. */
export async function writeContent(stack: TestStack, org: TestOrganization, spaceId: string, changes: ContentChange[]): Promise<void> {
  const owner = (json?: unknown) => ({ token: org.owner.token, ...(json === undefined ? {} : { json }) });
  const cr = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests`, owner({ subject: "Pages" }));
  const written = await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests/${cr.body.id}/content`, owner({ changes }));
  expect(written.status, JSON.stringify(written.body)).toBe(200);
  expect((await call(stack, "POST", `/v1/spaces/${spaceId}/change-requests/${cr.body.id}/merge`, owner())).status).toBe(200);
}

/** Pages as insert_page changes: `[slug, markdown]` pairs, in order. */
export const pagesOf = (pages: [slug: string, markdown: string][]): ContentChange[] =>
  pages.map(([slug, markdown]) => ({ operation: "insert_page", ref: slug, slug, document: { markdown } }));

/** A one-pixel PNG. */
export const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

export interface SampleSite {
  siteId: string;
  /** The site's base path on the reader, e.g. /<organizationId>/acme/. */
  base: string;
  spaces: Record<"guide" | "guideV2" | "beta" | "pro", string>;
}

/**
 * A public site with adaptive content, published through the API: a Guide section (the default:
 * welcome with an image and a file, install, configure, changelog kept out of search engines; and a
 * "v2" variant), a Beta section shown
 * to visitors with the unsigned claim `beta` true, and a Pro section shown to visitors whose signed
 * claim `plan` is "pro". Resolves once the reader serves it.
 */
export async function publishSampleSite(stack: TestStack, org: TestOrganization, basename: string, readerUrl?: string): Promise<SampleSite> {
  const api = org.owner.api.orgs;
  const spaces: SampleSite["spaces"] = { guide: "", guideV2: "", beta: "", pro: "" };
  for (const [name, title] of [
    ["guide", "Guide"],
    ["guideV2", "Guide v2"],
    ["beta", "Beta"],
    ["pro", "Pro"],
  ] as const) {
    spaces[name] = (await createSpace(stack, org, { title })).id;
  }
  await writeContent(stack, org, spaces.guide, [
    {
      operation: "insert_files",
      files: [
        { ref: "diagram.png", name: "diagram.png", contentType: "image/png", base64: PNG.toString("base64") },
        { ref: "setup.sh", name: "setup.sh", contentType: "application/x-sh", base64: Buffer.from("echo hello\n").toString("base64") },
      ],
    },
    ...pagesOf([
      ["welcome", "# Welcome\n\nStart with the installation.\n\n![The diagram](./diagram.png)\n\nRun [the script](./setup.sh)."],
      [
        "install",
        "# Install\n\n## Requirements\n\nThe frobnicator needs Linux.\n\n| Tool | Version |\n| --- | --: |\n| node | 24 |\n\n```sh\nnpm install frobnicator\n```",
      ],
      ["configure", "# Configure\n\nSee [install](./install.md#requirements)."],
    ]),
    { operation: "insert_page", ref: "changelog", slug: "changelog", noIndex: true, document: { markdown: "# Changelog\n\nInternal release notes." } },
  ]);
  await writeContent(stack, org, spaces.guideV2, pagesOf([["welcome", "# Welcome to v2\n\nThe second edition."]]));
  await writeContent(stack, org, spaces.beta, pagesOf([["preview", "# Preview\n\nThe quuxification preview."]]));
  await writeContent(stack, org, spaces.pro, pagesOf([["billing", "# Billing\n\nInvoices for pro customers."]]));

  const site = (await api.createSite(org.organizationId, { title: "Acme docs" })).data;
  const guide = (await api.addSectionToSite(org.organizationId, site.id, { spaceId: spaces.guide, title: "Guide" })).data;
  const variant = (await api.addSpaceToSite(org.organizationId, site.id, { spaceId: spaces.guideV2, sectionId: guide.id })).data;
  await api.updateSiteSpaceById(org.organizationId, site.id, variant.id, { path: "v2" });
  const beta = (await api.addSectionToSite(org.organizationId, site.id, { spaceId: spaces.beta, title: "Beta" })).data;
  await api.updateSiteSectionById(org.organizationId, site.id, beta.id, { path: "beta", condition: "visitor.claims.unsigned.beta === true" });
  const pro = (await api.addSectionToSite(org.organizationId, site.id, { spaceId: spaces.pro, title: "Pro" })).data;
  await api.updateSiteSectionById(org.organizationId, site.id, pro.id, { path: "pro", condition: 'visitor.claims.plan === "pro"' });
  await api.updateSiteById(org.organizationId, site.id, { basename, adaptiveContent: { enabled: true } });
  await api.publishSite(org.organizationId, site.id);
  const base = `/${org.organizationId}/${basename}/`;
  if (readerUrl) await eventually(async () => (await fetch(`${readerUrl}${base}`)).status === 200, 10_000);
  return { siteId: site.id, base, spaces };
}
