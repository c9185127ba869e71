import autocannon from "autocannon";
import pg from "pg";
import { CreatePageInput, EditingServiceService, UpdatePageInput, type PageOperation } from "@imprint/proto/content/v1/editing";
import { createIdentityClients, createPromiseClient } from "@imprint/runtime";
import { toLoadResult, type LoadResult } from "./load.js";

/**
 * The content figures of `npm run bench`: a space of 10,000 pages is built through the internal
 * editing API; the rows a one-page edit writes are counted in the content database; a duplicate
 * of the space is timed; then, through the gateway, page-by-path reads (over many different
 * paths), the organization read as their reference, and whole page-tree listings are driven at 32
 * concurrent connections (last, so that no
 * request still queued from a load run slows the single measurements). Before the loads, 100 more
 * one-page commits give the space a history: the listing of the revision 100 commits ago is driven
 * the same way as the head revision's, through the same route.
 */

/** One-page commits made after the edit, so that its revision is this many commits old. */
export const HISTORY_COMMITS = 100;

export interface ContentTarget {
  gatewayUrl: string;
  identityGrpcAddress: string;
  contentGrpcAddress: string;
  contentDatabaseUrl: string;
}

export interface ContentBenchmarkSettings {
  pages: number;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface ContentFigures {
  pages: number;
  /** Wall time to create the pages through the editing API and commit them. */
  seedSeconds: number;
  pageByPath: LoadResult;
  /** The same reads over one connection: the latency of a request on an idle stack. */
  pageByPathOneConnection: LoadResult;
  listPages: LoadResult;
  /** `GET /v1/orgs/{id}` at the same connections right after page by path: the reference its p99 is held to (absent in runs before it was measured). */
  orgRead?: LoadResult;
  /** Rows inserted or updated by one page edit (open draft, update the page, commit), by table. */
  oneEditRows: { total: number; byTable: Record<string, number> };
  /** Wall time of POST /v1/spaces/{id}/duplicate. */
  duplicateMs: number;
  /** The listing of an old revision against the head's (absent in runs before it was measured). */
  history?: HistoryFigures;
}

export interface HistoryFigures {
  /** One-page commits between the old revision and the head. */
  commits: number;
  /** Wall time of those commits through the editing API. */
  commitSeconds: number;
  /** `GET /v1/spaces/{id}/revisions/{revisionId}/pages` of the revision `commits` commits before the head. */
  oldRevisionListPages: LoadResult;
  /** The same route for the head revision, at the same connections, right after. */
  headRevisionListPages: LoadResult;
}

export type Log = (message: string) => void;

/** Sections of `perSection` pages each (plus the section page), `pages` pages in all. */
function pageOperations(pages: number): { operations: PageOperation[]; paths: string[] } {
  const perSection = 99;
  const operations: PageOperation[] = [];
  const paths: string[] = [];
  for (let section = 0; operations.length < pages; section++) {
    operations.push({
      create: CreatePageInput.fromPartial({
        pageId: `s${section}`,
        title: `Section ${section}`,
        markdown: `# Section ${section}\n\nOverview of section ${section}.`,
      }),
    });
    paths.push(`section-${section}`);
    for (let page = 0; page < perSection && operations.length < pages; page++) {
      operations.push({
        create: CreatePageInput.fromPartial({
          pageId: `s${section}p${page}`,
          parentPageId: `s${section}`,
          title: `Page ${page}`,
          markdown: `# Page ${page}\n\nThis is page **${page}** of section ${section}.\n\n- one\n- two\n\n\`\`\`sh\nnpm run bench\n\`\`\``,
        }),
      });
      paths.push(`section-${section}/page-${page}`);
    }
  }
  return { operations, paths };
}

async function load(
  requests: string[],
  token: string,
  settings: Pick<ContentBenchmarkSettings, "connections" | "durationSeconds" | "warmupSeconds">,
  base: string,
): Promise<LoadResult> {
  const fire = (duration: number) =>
    autocannon({
      url: base,
      connections: settings.connections,
      duration,
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      requests: requests.map((path) => ({ method: "GET" as const, path })),
      timeout: 30,
    });
  if (settings.warmupSeconds > 0) await fire(settings.warmupSeconds);
  return toLoadResult(await fire(settings.durationSeconds));
}

const CONTENT_TABLES = ["revisions", "tree_nodes", "page_versions", "content_bodies", "file_versions", "reusable_content_versions", "spaces", "outbox_events"];

/** Rows whose current version was written by a transaction after `xid`, per table. */
async function rowsWrittenSince(db: pg.Client, xid: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of CONTENT_TABLES) {
    const { rows } = await db.query<{ count: string }>(`select count(*) as count from "${table}" where xmin::text::bigint > $1`, [xid]);
    const count = Number(rows[0]?.count ?? 0);
    if (count > 0) counts[table] = count;
  }
  return counts;
}

/**
 * Waits until the outbox relay has published every event, so that its bookkeeping of earlier
 * changes (marking their events published) is not counted as written by the measured edit.
 */
async function outboxDrained(db: pg.Client): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { rows } = await db.query<{ pending: string }>("select count(*) as pending from outbox_events where published_at is null");
    if (Number(rows[0]?.pending ?? 0) === 0) return;
    if (Date.now() > deadline) throw new Error("the content outbox did not drain within 15 s");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function currentXid(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ xid: string }>("select (pg_current_xact_id()::text::bigint % 4294967296) as xid");
  return Number(rows[0]!.xid);
}

export async function runContentBenchmark(target: ContentTarget, settings: ContentBenchmarkSettings, log: Log): Promise<ContentFigures> {
  const identity = createIdentityClients(target.identityGrpcAddress, { defaultTimeoutMs: 15_000 });
  const editing = createPromiseClient(EditingServiceService, target.contentGrpcAddress, { defaultTimeoutMs: 300_000 });
  const db = new pg.Client({ connectionString: target.contentDatabaseUrl });
  await db.connect();
  try {
    const organization = await identity.organizations.createOrganization({
      title: "Content Benchmark",
      ownerEmail: "bench-content@example.com",
      ownerDisplayName: "Bench",
      ownerToken: "",
    });
    const caller = { userId: organization.userId, tokenId: "" };
    const headers = { authorization: `Bearer ${organization.token}`, "content-type": "application/json" };
    const created = await fetch(`${target.gatewayUrl}/v1/orgs/${organization.organizationId}/spaces`, {
      method: "POST",
      headers,
      body: JSON.stringify({ title: "Big space" }),
    });
    if (created.status !== 201) throw new Error(`createSpace answered ${created.status}: ${await created.text()}`);
    const spaceId = ((await created.json()) as { id: string }).id;

    log(`content: building a space of ${settings.pages} pages through the editing API`);
    const { operations, paths } = pageOperations(settings.pages);
    const seedStart = performance.now();
    const { draft } = await editing.openDraft({ caller, spaceId, parentRevisionId: "", changeRequestId: "" });
    for (let start = 0; start < operations.length; start += 2_000) {
      await editing.applyPageOperations({ caller, draftId: draft!.id, operations: operations.slice(start, start + 2_000) });
    }
    await editing.commitDraft({ caller, draftId: draft!.id, message: "seed", moveHead: true, expectedHeadRevisionId: "" });
    const seedSeconds = (performance.now() - seedStart) / 1000;
    log(`content: seeded in ${seedSeconds.toFixed(1)} s`);

    await outboxDrained(db);
    const before = await currentXid(db);
    const { draft: editDraft } = await editing.openDraft({ caller, spaceId, parentRevisionId: "", changeRequestId: "" });
    await editing.updatePage({
      caller,
      draftId: editDraft!.id,
      page: UpdatePageInput.fromPartial({ pageId: "s50p50", markdown: "Edited during the benchmark.", updateMask: ["markdown"] }),
    });
    const edited = await editing.commitDraft({ caller, draftId: editDraft!.id, message: "one edit", moveHead: true, expectedHeadRevisionId: "" });
    // The edit's own event counts once whether or not the relay has marked it published yet.
    await outboxDrained(db);
    const byTable = await rowsWrittenSince(db, before);
    const oneEditRows = { total: Object.values(byTable).reduce((sum, count) => sum + count, 0), byTable };
    log(`content: one-page edit wrote ${oneEditRows.total} rows (${JSON.stringify(byTable)})`);

    const duplicateStart = performance.now();
    const duplicated = await fetch(`${target.gatewayUrl}/v1/spaces/${spaceId}/duplicate`, { method: "POST", headers });
    const duplicateMs = performance.now() - duplicateStart;
    if (duplicated.status !== 201) throw new Error(`duplicateSpace answered ${duplicated.status}: ${await duplicated.text()}`);
    log(`content: duplicate took ${duplicateMs.toFixed(0)} ms`);

    // A history on top of the edit's revision: one page edit per commit, over different pages.
    log(`content: ${HISTORY_COMMITS} one-page commits on top of the edit`);
    const pageIds = operations.map((operation) => operation.create!.pageId);
    const historyStart = performance.now();
    let headRevisionId = edited.revisionId;
    for (let index = 0; index < HISTORY_COMMITS; index++) {
      const { draft: historyDraft } = await editing.openDraft({ caller, spaceId, parentRevisionId: "", changeRequestId: "" });
      await editing.updatePage({
        caller,
        draftId: historyDraft!.id,
        page: UpdatePageInput.fromPartial({
          pageId: pageIds[(index * 97) % pageIds.length]!,
          markdown: `History commit ${index}.`,
          updateMask: ["markdown"],
        }),
      });
      const committed = await editing.commitDraft({
        caller,
        draftId: historyDraft!.id,
        message: `history ${index}`,
        moveHead: true,
        expectedHeadRevisionId: "",
      });
      headRevisionId = committed.revisionId;
    }
    const historyCommitSeconds = (performance.now() - historyStart) / 1000;
    log(`content: ${HISTORY_COMMITS} commits in ${historyCommitSeconds.toFixed(1)} s`);

    // Many different pages, spread over the tree, so the figure is not one cached answer.
    const step = Math.max(1, Math.floor(paths.length / 500));
    const pathRequests = paths.filter((_, index) => index % step === 0).map((path) => `/v1/spaces/${spaceId}/content/path/${encodeURIComponent(path)}`);
    const check = await fetch(`${target.gatewayUrl}${pathRequests[1]}`, { headers });
    if (check.status !== 200) throw new Error(`getPageByPath answered ${check.status}: ${await check.text()}`);

    log(`content: GET {c}/path/{pagePath} over ${pathRequests.length} paths, ${settings.connections} connections`);
    const pageByPath = await load(pathRequests, organization.token, settings, target.gatewayUrl);
    log(`         ${pageByPath.requestsPerSecond.toFixed(0)} req/s, p50 ${pageByPath.p50Ms} ms, p99 ${pageByPath.p99Ms} ms`);
    const pageByPathOneConnection = await load(pathRequests, organization.token, { ...settings, connections: 1 }, target.gatewayUrl);
    log(
      `         1 connection: ${pageByPathOneConnection.requestsPerSecond.toFixed(0)} req/s, p50 ${pageByPathOneConnection.p50Ms} ms, p99 ${pageByPathOneConnection.p99Ms} ms`,
    );
    // The reference, at the same connections in the same minute: the organization read, one indexed row.
    log(`content: reference GET /v1/orgs/{id}, ${settings.connections} connections`);
    const orgRead = await load([`/v1/orgs/${organization.organizationId}`], organization.token, settings, target.gatewayUrl);
    log(`         ${orgRead.requestsPerSecond.toFixed(0)} req/s, p50 ${orgRead.p50Ms} ms, p99 ${orgRead.p99Ms} ms`);
    log(`content: GET {c}/pages (all ${settings.pages} pages), ${settings.connections} connections`);
    const listPages = await load([`/v1/spaces/${spaceId}/content/pages`], organization.token, settings, target.gatewayUrl);
    log(`         ${listPages.requestsPerSecond.toFixed(1)} req/s, p50 ${listPages.p50Ms} ms, p99 ${listPages.p99Ms} ms`);

    // The old revision and the head through the same route, so only the revision's age differs.
    const revisionPages = (revisionId: string) => `/v1/spaces/${spaceId}/revisions/${revisionId}/pages`;
    const oldCheck = await fetch(`${target.gatewayUrl}${revisionPages(edited.revisionId)}`, { headers });
    if (oldCheck.status !== 200) throw new Error(`listPagesInRevisionById answered ${oldCheck.status}: ${await oldCheck.text()}`);
    await oldCheck.arrayBuffer();
    log(`content: GET {s}/revisions/{revisionId}/pages of the revision ${HISTORY_COMMITS} commits ago, ${settings.connections} connections`);
    const oldRevisionListPages = await load([revisionPages(edited.revisionId)], organization.token, settings, target.gatewayUrl);
    log(`         ${oldRevisionListPages.requestsPerSecond.toFixed(1)} req/s, p50 ${oldRevisionListPages.p50Ms} ms, p99 ${oldRevisionListPages.p99Ms} ms`);
    log(`content: GET {s}/revisions/{revisionId}/pages of the head revision, ${settings.connections} connections`);
    const headRevisionListPages = await load([revisionPages(headRevisionId)], organization.token, settings, target.gatewayUrl);
    log(`         ${headRevisionListPages.requestsPerSecond.toFixed(1)} req/s, p50 ${headRevisionListPages.p50Ms} ms, p99 ${headRevisionListPages.p99Ms} ms`);
    const history = { commits: HISTORY_COMMITS, commitSeconds: historyCommitSeconds, oldRevisionListPages, headRevisionListPages };

    return { pages: settings.pages, seedSeconds, pageByPath, pageByPathOneConnection, listPages, orgRead, oneEditRows, duplicateMs, history };
  } finally {
    identity.close();
    editing.close();
    await db.end();
  }
}
