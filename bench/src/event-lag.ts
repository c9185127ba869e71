import pg from "pg";
import { CreatePageInput, EditingServiceService } from "@imprint/proto/content/v1/editing";
import { createIdentityClients, createPromiseClient } from "@imprint/runtime";
import { pageOperations } from "./search.js";
import { percentile } from "./stats.js";

/**
 * Event lag under a neighbour's bulk work: while another organization's 10,000-page import is being
 * indexed (one commit, indexed from its `revision.created` event), one-page commits are made in a
 * space of a first organization, one after the other, and each is timed from its commit's answer to
 * the first search through the gateway that finds its page. Search is fed by events only, so the
 * lag is the event path's: relay, NATS, the search consumer. The same commits are audited
 * (`space.content.updated`, by identity's `identity-audit-content` consumer): each is also timed from
 * its commit's answer to the first read of the organization's audit log through the gateway that
 * lists its entry.
 */

export interface EventLagTarget {
  gatewayUrl: string;
  identityGrpcAddress: string;
  contentGrpcAddress: string;
  contentDatabaseUrl: string;
}

export interface EventLagSettings {
  /** Pages of the neighbour's import. */
  pages: number;
  /** One-page commits timed while it is indexed. */
  commits: number;
}

export interface EventLagFigures {
  pages: number;
  commits: number;
  /** Commit to searchable, per one-page commit, in order. */
  lagsMs: number[];
  p50Ms: number;
  p99Ms: number;
  /** From the bulk commit's answer to its index being complete. */
  bulkIndexSeconds: number;
  /** One-page commits found while the bulk index was still incomplete (the ones that measure the lag under load). */
  commitsDuringBulk: number;
  /** Commit to listed in the audit log, per one-page commit (absent in runs before it was measured). */
  audit?: AuditLagFigures;
}

export interface AuditLagFigures {
  /** In the order of the commits. */
  lagsMs: number[];
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export type Log = (message: string) => void;

export async function runEventLagBenchmark(target: EventLagTarget, settings: EventLagSettings, log: Log): Promise<EventLagFigures> {
  const identity = createIdentityClients(target.identityGrpcAddress, { defaultTimeoutMs: 15_000 });
  const editing = createPromiseClient(EditingServiceService, target.contentGrpcAddress, { defaultTimeoutMs: 300_000 });
  const db = new pg.Client({ connectionString: target.contentDatabaseUrl });
  await db.connect();
  try {
    const createSpace = async (title: string, email: string) => {
      const organization = await identity.organizations.createOrganization({ title, ownerEmail: email, ownerDisplayName: "Bench", ownerToken: "" });
      const headers = { authorization: `Bearer ${organization.token}`, "content-type": "application/json" };
      const created = await fetch(`${target.gatewayUrl}/v1/orgs/${organization.organizationId}/spaces`, {
        method: "POST",
        headers,
        body: JSON.stringify({ title }),
      });
      if (created.status !== 201) throw new Error(`createSpace answered ${created.status}: ${await created.text()}`);
      return {
        caller: { userId: organization.userId, tokenId: "" },
        organizationId: organization.organizationId,
        headers,
        spaceId: ((await created.json()) as { id: string }).id,
      };
    };
    const commit = async (
      space: { caller: { userId: string; tokenId: string }; spaceId: string },
      operations: Parameters<typeof editing.applyPageOperations>[0]["operations"],
    ) => {
      const { draft } = await editing.openDraft({ caller: space.caller, spaceId: space.spaceId, parentRevisionId: "", changeRequestId: "" });
      for (let start = 0; start < operations.length; start += 1_000) {
        await editing.applyPageOperations({ caller: space.caller, draftId: draft!.id, operations: operations.slice(start, start + 1_000) });
      }
      return editing.commitDraft({ caller: space.caller, draftId: draft!.id, message: "bench", moveHead: true, expectedHeadRevisionId: "" });
    };
    const indexedRevision = async (spaceId: string) =>
      (await db.query<{ revision_id: string }>("select revision_id from search_spaces where space_id = $1", [spaceId])).rows[0]?.revision_id;

    const small = await createSpace("Event Lag", "bench-lag@example.com");
    const bulk = await createSpace("Neighbour", "bench-neighbour@example.com");
    const operations = pageOperations({ pages: settings.pages, sectionsPerPage: 10 });
    // The bulk pages are applied to an open draft first, so that its commit (the moment its
    // indexing starts) is the last step and the one-page commits follow it at once.
    log(`event lag: writing the neighbour's ${operations.length}-page import`);
    const { draft } = await editing.openDraft({ caller: bulk.caller, spaceId: bulk.spaceId, parentRevisionId: "", changeRequestId: "" });
    for (let start = 0; start < operations.length; start += 1_000) {
      await editing.applyPageOperations({ caller: bulk.caller, draftId: draft!.id, operations: operations.slice(start, start + 1_000) });
    }
    const bulkCommitted = await editing.commitDraft({ caller: bulk.caller, draftId: draft!.id, message: "import", moveHead: true, expectedHeadRevisionId: "" });
    const bulkCommittedAt = performance.now();
    let bulkIndexedAt: number | undefined;
    const bulkDone = async () => {
      bulkIndexedAt ??= (await indexedRevision(bulk.spaceId)) === bulkCommitted.revisionId ? performance.now() : undefined;
      return bulkIndexedAt !== undefined;
    };
    log(`event lag: ${settings.commits} one-page commits in another organization while it is indexed`);

    /** Polls `found` every 10 ms until it is true; the time from `since` to the first true. */
    const timeUntil = async (since: number, what: string, found: () => Promise<boolean>) => {
      const deadline = since + 300_000;
      while (!(await found())) {
        if (performance.now() > deadline) throw new Error(`a one-page commit was not ${what} within 5 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return performance.now() - since;
    };
    const lagsMs: number[] = [];
    const auditLagsMs: number[] = [];
    let commitsDuringBulk = 0;
    for (let index = 0; index < settings.commits; index++) {
      const word = `lagword${index}x${Date.now().toString(36)}`;
      // The entry's time is its commit transaction's, so no earlier commit's entry is at or after this.
      const auditFrom = new Date().toISOString();
      await commit(small, [{ create: CreatePageInput.fromPartial({ pageId: `lag${index}`, title: `Note ${index}`, markdown: `A note about ${word}.` }) }]);
      const committedAt = performance.now();
      const [searchLag, auditLag] = await Promise.all([
        timeUntil(committedAt, "searchable", async () => {
          const response = await fetch(`${target.gatewayUrl}/v1/spaces/${small.spaceId}/search?query=${word}`, { headers: small.headers });
          const body = (await response.json()) as { items?: unknown[] };
          return response.status === 200 && (body.items?.length ?? 0) > 0;
        }),
        timeUntil(committedAt, "in the audit log", async () => {
          const query = new URLSearchParams({ action: "space.content.updated", target: small.spaceId, from: auditFrom, limit: "1" });
          const response = await fetch(`${target.gatewayUrl}/v1/orgs/${small.organizationId}/audit-events?${query.toString()}`, { headers: small.headers });
          if (response.status !== 200) throw new Error(`listOrganizationAuditEvents answered ${response.status}: ${await response.text()}`);
          const body = (await response.json()) as { items: unknown[] };
          return body.items.length > 0;
        }),
      ]);
      lagsMs.push(searchLag);
      auditLagsMs.push(auditLag);
      if (!(await bulkDone())) commitsDuringBulk += 1;
    }
    const deadline = performance.now() + 600_000;
    while (!(await bulkDone())) {
      if (performance.now() > deadline) throw new Error("the neighbour's import was not indexed within 10 minutes");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const sorted = [...lagsMs].sort((a, b) => a - b);
    const auditSorted = [...auditLagsMs].sort((a, b) => a - b);
    const figures = {
      pages: operations.length,
      commits: settings.commits,
      lagsMs,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      bulkIndexSeconds: (bulkIndexedAt! - bulkCommittedAt) / 1000,
      commitsDuringBulk,
      audit: {
        lagsMs: auditLagsMs,
        p50Ms: percentile(auditSorted, 0.5),
        p99Ms: percentile(auditSorted, 0.99),
        maxMs: auditSorted.at(-1) ?? 0,
      },
    };
    log(
      `event lag: p50 ${figures.p50Ms.toFixed(0)} ms, p99 ${figures.p99Ms.toFixed(0)} ms; the import was indexed ${figures.bulkIndexSeconds.toFixed(1)} s after its commit (${commitsDuringBulk} commits found before)`,
    );
    log(`event lag: audit log p50 ${figures.audit.p50Ms.toFixed(0)} ms, p99 ${figures.audit.p99Ms.toFixed(0)} ms, max ${figures.audit.maxMs.toFixed(0)} ms`);
    return figures;
  } finally {
    identity.close();
    editing.close();
    await db.end();
  }
}
