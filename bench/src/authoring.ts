import { CreatePageInput, EditingServiceService, type PageOperation } from "@imprint/proto/content/v1/editing";
import { createIdentityClients, createPromiseClient } from "@imprint/runtime";
import pg from "pg";
import { commitPageOperations, consumersCaughtUp, gatewayPost } from "./editing.js";
import { percentile } from "./stats.js";

/**
 * The authoring figures of `npm run bench`: a space of 10,000 pages built through the editing
 * API, a change request created through the gateway, then `POST …/change-requests/{n}/content`
 * timed end to end (gateway → collaboration → content) with batches of 50 changes: inserts with
 * links by slug path and by ref, updates of existing pages' bodies and titles, and moves with
 * `into`/`at`, spread over the tree. Batches run one after the other on the same change request,
 * so each one's branch is the previous one's revision, once content's consumers (search indexing,
 * link extraction) are done with the space's 10,000 pages, as the search figures are measured.
 */

export interface AuthoringTarget {
  gatewayUrl: string;
  identityGrpcAddress: string;
  contentGrpcAddress: string;
  contentDatabaseUrl: string;
}

export interface AuthoringBenchmarkSettings {
  pages: number;
  /** Batches timed (after a few untimed warm-up batches). */
  batches: number;
}

export interface AuthoringFigures {
  pages: number;
  changesPerBatch: number;
  batches: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

type Log = (message: string) => void;

const CHANGES_PER_BATCH = 50;
const WARMUP_BATCHES = 3;
const SECTION_SIZE = 99;

function spaceOperations(pages: number): PageOperation[] {
  const operations: PageOperation[] = [];
  for (let section = 0; operations.length < pages; section++) {
    operations.push({
      create: CreatePageInput.fromPartial({ pageId: `s${section}`, title: `Section ${section}`, slug: `section-${section}`, markdown: `Section ${section}.` }),
    });
    for (let page = 0; page < SECTION_SIZE && operations.length < pages; page++) {
      operations.push({
        create: CreatePageInput.fromPartial({
          pageId: `s${section}p${page}`,
          parentPageId: `s${section}`,
          title: `Page ${page}`,
          slug: `page-${page}`,
          markdown: `First paragraph of page ${page}.\n\nSecond paragraph of section ${section}.`,
        }),
      });
    }
  }
  return operations;
}

/** 50 changes: 20 inserts (linking by slug path and by ref), 20 updates, 10 moves, over sections picked by `run`. */
function batchOf(run: number, sections: number): unknown[] {
  const section = (offset: number) => (run * 7 + offset * 13) % sections;
  const changes: unknown[] = [];
  for (let i = 0; i < 20; i++) {
    const target = section(i);
    changes.push({
      operation: "insert_page",
      ref: `r${i}`,
      into: `s${target}`,
      at: i % 5,
      document: {
        markdown: `---\ndescription: Inserted by batch ${run}\n---\n# Batch ${run} page ${i}\n\nSee [a sibling](/pages/section-${target}/page-${i % SECTION_SIZE}) and [the next one](./r${(i + 1) % 20}.md).\n`,
      },
    });
  }
  for (let i = 0; i < 20; i++) {
    const target = section(20 + i);
    changes.push({
      operation: "update_page",
      page: `s${target}p${(run + i) % SECTION_SIZE}`,
      title: `Edited ${run}-${i}`,
      document: { markdown: `Edited by batch ${run}, see [the section](../README.md).` },
    });
  }
  for (let i = 0; i < 10; i++) {
    const from = section(40 + i);
    // Pages 90–98 of a section move under another page of the same section (their slugs are unique
    // there), at the top; a page moved by an earlier batch is found by id wherever it is.
    changes.push({ operation: "update_page", page: `s${from}p${90 + ((run + i) % 9)}`, into: `s${from}p${(run * 10 + i) % 90}`, at: 0 });
  }
  return changes;
}

export async function runAuthoringBenchmark(target: AuthoringTarget, settings: AuthoringBenchmarkSettings, log: Log): Promise<AuthoringFigures> {
  const identity = createIdentityClients(target.identityGrpcAddress, { defaultTimeoutMs: 15_000 });
  const db = new pg.Client({ connectionString: target.contentDatabaseUrl });
  await db.connect();
  const editing = createPromiseClient(EditingServiceService, target.contentGrpcAddress, { defaultTimeoutMs: 300_000 });
  try {
    const organization = await identity.organizations.createOrganization({
      title: "Authoring Benchmark",
      ownerEmail: "bench-authoring@example.com",
      ownerDisplayName: "Bench",
      ownerToken: "",
    });
    const caller = { userId: organization.userId, tokenId: "" };
    const post = gatewayPost(target.gatewayUrl, organization.token);
    const spaceId = (await post(`/v1/orgs/${organization.organizationId}/spaces`, { title: "Authoring space" })).id as string;

    log(`authoring: building a space of ${settings.pages} pages`);
    const operations = spaceOperations(settings.pages);
    const seeded = await commitPageOperations(editing, { caller, spaceId, operations });
    // Indexing and link extraction of the 10,000 pages just written are not the batches' work: time them on a quiet service.
    await consumersCaughtUp(db, spaceId, seeded.revisionId);

    const changeRequest = await post(`/v1/spaces/${spaceId}/change-requests`, { subject: "Authoring" });
    const sections = Math.ceil(settings.pages / (SECTION_SIZE + 1));
    const timings: number[] = [];
    for (let run = 0; run < WARMUP_BATCHES + settings.batches; run++) {
      const started = performance.now();
      await post(`/v1/spaces/${spaceId}/change-requests/${String(changeRequest.number)}/content?compat=false`, { changes: batchOf(run, sections) });
      if (run >= WARMUP_BATCHES) timings.push(performance.now() - started);
    }
    const sorted = [...timings].sort((a, b) => a - b);
    const figures = {
      pages: settings.pages,
      changesPerBatch: CHANGES_PER_BATCH,
      batches: timings.length,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted[sorted.length - 1] ?? 0,
    };
    log(`authoring: ${figures.batches} batches of ${CHANGES_PER_BATCH} changes: p50 ${figures.p50Ms.toFixed(0)} ms, p99 ${figures.p99Ms.toFixed(0)} ms`);
    return figures;
  } finally {
    identity.close();
    await db.end();
    editing.close();
  }
}
