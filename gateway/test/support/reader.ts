import { expect } from "vitest";
import { loadReaderConfig, startReader, type ReaderHandle } from "@imprint/reader";
import { patient, testNatsUrl } from "@imprint/runtime/testing";
import type { TestOrganization } from "./factories.js";
import { call } from "./http.js";
import type { TestStack } from "./stack.js";

/**
 * A reader on the test stack. With `events`, it hears publishing's and content's events on this
 * file's nats-server (as deployed) and keeps what it read until one says it changed; without,
 * it asks publishing and content at every request.
 */
export async function startTestReader(stack: TestStack, options: { events?: boolean; env?: Record<string, string> } = {}): Promise<ReaderHandle> {
  return startReader(
    loadReaderConfig({
      READER_PORT: "0",
      PUBLISHING_GRPC_ADDRESS: stack.publishingAddress,
      CONTENT_GRPC_ADDRESS: stack.contentAddress,
      ...(options.events ? { NATS_URL: await testNatsUrl() } : { SITE_CACHE_TTL_MS: "0" }),
      UPSTREAM_TIMEOUT_MS: String(patient(10_000)),
      LOG_LEVEL: "warn",
      ...options.env,
    }),
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
