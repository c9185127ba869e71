import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleIntegration } from "../../scripts/lib/gitbook-cli.mjs";
import pg from "pg";
import { parse } from "yaml";
import { CreatePageInput, EditingServiceService } from "@imprint/proto/content/v1/editing";
import { createIdentityClients, createPromiseClient } from "@imprint/runtime";
import { commitPageOperations, gatewayPost } from "./editing.js";
import { runLoad, type LoadResult } from "./load.js";

/**
 * The integration figures of `npm run bench`, through the REST API as a client would:
 *
 * 1. **render**: the compatibility integration (`services/integration/test/fixtures/compat`, a
 *    `@gitbook/runtime` counter block, bundled as GitBook's CLI bundles it) published from its
 *    manifest, installed on an organization and configured, then `POST /v1/integrations/{name}/render`
 *    of its counter with an action, at 16 connections; in the same run and at the same concurrency
 *    the reference `GET /v1/orgs/{id}` (one identity lookup);
 * 2. **fan-out**: 100 integrations (scope `space:content:read`, a script answering OK to every
 *    event) installed on another organization and on one of its spaces; once their setup events
 *    are delivered, one-page commits to that space (content's editing API, as the other figures
 *    write), one after the other, each timed from the commit's answer until every integration's
 *    `space_content_updated` of its revision is delivered (counted in the integration database,
 *    which costs the stack nothing; checked through the API after the last). References, for the
 *    same revision: the commit itself, the moment search (another consumer of the same
 *    `revision.created`) finds the page, and the moment integration's consumer recorded the
 *    deliveries.
 */

export interface IntegrationTarget {
  gatewayUrl: string;
  identityGrpcAddress: string;
  contentGrpcAddress: string;
  /** The integration database, where deliveries are counted while they happen. */
  integrationDatabaseUrl: string;
}

export interface IntegrationBenchmarkSettings {
  /** Integrations installed on the space one revision fans out to. */
  integrations: number;
  /** Revisions fanned out, one after the other. */
  repeats: number;
  /** Concurrent connections of the render and of its reference. */
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

/** One revision fanned out: each time from the start of the commit's or from its answer. */
export interface FanOutRound {
  /** The one-page commit (open draft, apply, commit) until its answer. */
  commitMs: number;
  /** From the commit's answer to the first search through the gateway that finds the page. */
  searchableMs: number;
  /** From the commit's answer until integration's consumer had recorded the last integration's `space_content_updated` (the event path: relay, NATS, the consumer). */
  recordedMs: number;
  /** From the commit's answer until every integration's `space_content_updated` was delivered. */
  deliveredMs: number;
}

export interface IntegrationFigures {
  connections: number;
  /** The compat fixture's bundled script. */
  scriptBytes: number;
  /** Its installation_setup events (installed, then configured; its hook calls the API back): how many were delivered, how many failed and why the first did. */
  compatSetup: { delivered: number; failed: number; firstFailure?: string };
  /** POST /v1/integrations/{name}/render of the counter with an action. */
  render: LoadResult;
  /** GET /v1/orgs/{id}, measured just before at the same concurrency. */
  reference: LoadResult;
  integrations: number;
  /** Publishing, installing (organization and space) and delivering the setup events of the fan-out's integrations. */
  setupSeconds: number;
  rounds: FanOutRound[];
}

type Log = (message: string) => void;

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The integration written with GitBook's runtime that the integration service's tests and the gateway's compatibility test run. */
export const COMPAT_FIXTURE = join(REPO_ROOT, "services", "integration", "test", "fixtures", "compat");

/** The fan-out's script: OK to every event. */
export const OK_SCRIPT = `export default { async fetch() { return new Response("OK"); } }`;

/** How often deliveries and search are looked at while a revision fans out. */
const POLL_MS = 10;

/** What `gitbook publish` reads from a gitbook-manifest.yaml, as GitBook's PublishIntegration body (the script and organization apart). */
export async function manifestPublication(directory: string): Promise<{ name: string; body: Record<string, unknown> }> {
  const manifest = parse(await readFile(join(directory, "gitbook-manifest.yaml"), "utf8")) as Record<string, unknown>;
  const { name, title, description, scopes, target, visibility, blocks, configurations } = manifest;
  if (typeof name !== "string") throw new Error(`${directory}/gitbook-manifest.yaml has no name`);
  const body = Object.fromEntries(
    Object.entries({ title, description, scopes, target, visibility, blocks, configurations }).filter(([, value]) => value !== undefined),
  );
  return { name, body };
}

/** `work` on every item, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const describe = (result: LoadResult) =>
  `${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}`;

export async function runIntegrationBenchmark(target: IntegrationTarget, settings: IntegrationBenchmarkSettings, log: Log): Promise<IntegrationFigures> {
  const startedAt = performance.now();
  const identity = createIdentityClients(target.identityGrpcAddress, { defaultTimeoutMs: 15_000 });
  const editing = createPromiseClient(EditingServiceService, target.contentGrpcAddress, { defaultTimeoutMs: 60_000 });
  const db = new pg.Client({ connectionString: target.integrationDatabaseUrl });
  await db.connect();
  const headersOf = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });
  const getJson = async (path: string, token: string) => {
    const response = await fetch(`${target.gatewayUrl}${path}`, { headers: headersOf(token), signal: AbortSignal.timeout(30_000) });
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  };
  /** The organization's events by state, from the integration database (cheap to ask every few milliseconds). */
  const eventStates = async (organizationId: string, where = "true", values: unknown[] = []) => {
    const { rows } = await db.query<{ state: string; count: number }>(
      `select state, count(*)::int as count from integration_events where organization_id = $1 and ${where} group by state`,
      [organizationId, ...values],
    );
    return Object.fromEntries(rows.map((row) => [row.state, row.count])) as Partial<Record<"pending" | "success" | "failed", number>>;
  };
  /** Why the first failed event of the organization failed: its type and the last lines of its trace. */
  const firstFailure = async (organizationId: string) => {
    const { rows } = await db.query<{ type: string; trace: { level: string; message: string }[] }>(
      "select type, trace from integration_events where organization_id = $1 and state = 'failed' order by sequence limit 1",
      [organizationId],
    );
    const failed = rows[0];
    return failed
      ? `${failed.type}: ${failed.trace
          .slice(-5)
          .map((line) => `[${line.level}] ${line.message.replace(/\s+/g, " ")}`)
          .join(" / ")}`
      : "";
  };
  /**
   * Waits until every event of the organization ended (at least `expected` of them); answers how
   * many failed and why the first did. `strict` fails at the first failed event instead.
   */
  const settled = async (organizationId: string, expected: number, what: string, strict: boolean) => {
    const deadline = performance.now() + 120_000;
    for (;;) {
      const states = await eventStates(organizationId);
      const failed = states.failed ?? 0;
      if (strict && failed) throw new Error(`${what}: ${failed} integration events failed, the first ${await firstFailure(organizationId)}`);
      if (!states.pending && (states.success ?? 0) + failed >= expected)
        return { delivered: states.success ?? 0, failed, ...(failed ? { firstFailure: await firstFailure(organizationId) } : {}) };
      if (performance.now() > deadline) throw new Error(`${what}: ${states.success ?? 0} of ${expected} integration events delivered within 2 minutes`);
      await sleep(50);
    }
  };
  try {
    // The compat integration, for the render: published from its manifest, installed, configured.
    const renderOrg = await identity.organizations.createOrganization({
      title: "Integration Render",
      ownerEmail: "bench-render@example.com",
      ownerDisplayName: "Bench",
      ownerToken: "",
    });
    const renderPost = gatewayPost(target.gatewayUrl, renderOrg.token);
    const renderSpace = (await renderPost(`/v1/orgs/${renderOrg.organizationId}/spaces`, { title: "Render" })).id as string;
    const script = await bundleIntegration(COMPAT_FIXTURE);
    const { name: compat, body: declaration } = await manifestPublication(COMPAT_FIXTURE);
    log(`integrations: publishing ${compat} (the compat fixture, ${script.length} bytes bundled), installing and configuring it`);
    await renderPost(`/v1/integrations/${compat}`, { ...declaration, script, organization: renderOrg.organizationId });
    const installation = await renderPost(`/v1/integrations/${compat}/installations`, { organization: renderOrg.organizationId });
    const configured = await fetch(`${target.gatewayUrl}/v1/integrations/${compat}/installations/${installation.id as string}`, {
      method: "PATCH",
      headers: headersOf(renderOrg.token),
      body: JSON.stringify({ configuration: { greeting: "Hello from the benchmark" } }),
    });
    const configuredBody = (await configured.json()) as { status?: string };
    if (configured.status !== 200 || configuredBody.status !== "active")
      throw new Error(`configuring ${compat} answered ${configured.status}: ${JSON.stringify(configuredBody)}`);

    // The fan-out's integrations, installed on an organization and on one of its spaces, meanwhile.
    const fanOrg = await identity.organizations.createOrganization({
      title: "Integration Fan-out",
      ownerEmail: "bench-fanout@example.com",
      ownerDisplayName: "Bench",
      ownerToken: "",
    });
    const orgId = fanOrg.organizationId;
    const post = gatewayPost(target.gatewayUrl, fanOrg.token);
    const spaceId = (await post(`/v1/orgs/${orgId}/spaces`, { title: "Fan-out" })).id as string;
    const names = Array.from({ length: settings.integrations }, (_, index) => `bench-fanout-${String(index).padStart(4, "0")}`);
    log(`integrations: publishing ${names.length} integrations, each installed on the organization and on one space`);
    const setupStarted = performance.now();
    await eachLimited(names, 4, async (name, index) => {
      await post(`/v1/integrations/${name}`, {
        title: `Fan-out ${index}`,
        description: "Answers OK to every event.",
        scopes: ["space:content:read"],
        visibility: "private",
        script: OK_SCRIPT,
        organization: orgId,
      });
      const installed = await post(`/v1/integrations/${name}/installations`, { organization: orgId });
      await post(`/v1/integrations/${name}/installations/${installed.id as string}/spaces`, { space: spaceId });
    });
    // installation_setup and space_installation_setup of each.
    await settled(orgId, names.length * 2, "the fan-out's setup", true);
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    log(`integrations: ${names.length} integrations installed and their setup events delivered in ${setupSeconds.toFixed(1)} s`);
    // The compat's two installation_setup events (installed, configured) call the API back: handled
    // before anything is timed. Their hook is not what the render measures: a failure is reported, not fatal.
    const compatSetup = await settled(renderOrg.organizationId, 2, `${compat}'s setup`, false);
    if (compatSetup.failed) log(`integrations: ✖ ${compatSetup.failed} of ${compat}'s setup events failed, the first ${compatSetup.firstFailure}`);

    // 1. Render of the compat integration's counter, warm.
    const renderPath = `/v1/integrations/${compat}/render`;
    const renderBody = {
      componentId: "counter",
      props: {},
      state: { count: 1 },
      action: { action: "increment" },
      context: { type: "document", spaceId: renderSpace, editable: true, theme: "light" },
    };
    const rendered = (await renderPost(renderPath, renderBody)) as { type?: string; state?: { count?: number } };
    if (rendered.type !== "element" || rendered.state?.count !== 2)
      throw new Error(`the counter rendered ${JSON.stringify(rendered)}, not its incremented state`);
    const load = (path: string, body?: unknown) =>
      runLoad({
        url: `${target.gatewayUrl}${path}`,
        token: renderOrg.token,
        ...(body === undefined ? {} : { body }),
        connections: settings.connections,
        durationSeconds: settings.durationSeconds,
        warmupSeconds: settings.warmupSeconds,
      });
    const reference = await load(`/v1/orgs/${renderOrg.organizationId}`);
    log(`integrations: GET /v1/orgs/{id} at ${settings.connections} connections: ${describe(reference)}`);
    const render = await load(renderPath, renderBody);
    log(`integrations: POST …/render at ${settings.connections} connections: ${describe(render)}`);

    // 2. Fan-out of one revision to every integration installed on the space, a few times.
    const caller = { userId: fanOrg.userId, tokenId: "" };
    const rounds: FanOutRound[] = [];
    let lastRevisionId = "";
    for (let round = 0; round < settings.repeats; round++) {
      const word = `fanout${round}x${Date.now().toString(36)}`;
      const started = performance.now();
      const { revisionId } = await commitPageOperations(editing, {
        caller,
        spaceId,
        operations: [{ create: CreatePageInput.fromPartial({ pageId: `fanout${round}`, title: `Fan-out ${round}`, markdown: `A note about ${word}.` }) }],
      });
      const committedAt = performance.now();
      const committedAtWall = Date.now();
      const deadline = committedAt + 60_000;
      const searchable = async () => {
        for (;;) {
          const response = await fetch(`${target.gatewayUrl}/v1/spaces/${spaceId}/search?query=${word}`, { headers: headersOf(fanOrg.token) });
          const body = (await response.json()) as { items?: unknown[] };
          if (response.status === 200 && (body.items?.length ?? 0) > 0) return performance.now() - committedAt;
          if (performance.now() > deadline) throw new Error("a one-page commit was not searchable within 60 s");
          await sleep(POLL_MS);
        }
      };
      const delivered = async () => {
        for (;;) {
          const states = await eventStates(orgId, "type = 'space_content_updated' and payload->>'revisionId' = $2", [revisionId]);
          if (states.failed) throw new Error(`${states.failed} space_content_updated events failed, the first ${await firstFailure(orgId)}`);
          if ((states.success ?? 0) >= names.length) return performance.now() - committedAt;
          if (performance.now() > deadline) throw new Error(`${states.success ?? 0} of ${names.length} space_content_updated events delivered within 60 s`);
          await sleep(POLL_MS);
        }
      };
      const [searchableMs, deliveredMs] = await Promise.all([searchable(), delivered()]);
      // The service's clock is this machine's: when its consumer recorded the deliveries, against the commit's answer.
      const recorded = await db.query<{ at: Date }>(
        "select max(created_at) as at from integration_events where organization_id = $1 and type = 'space_content_updated' and payload->>'revisionId' = $2",
        [orgId, revisionId],
      );
      const recordedMs = Math.max(0, recorded.rows[0]!.at.getTime() - committedAtWall);
      rounds.push({ commitMs: committedAt - started, searchableMs, recordedMs, deliveredMs });
      log(
        `integrations: revision ${round + 1} of ${settings.repeats}: delivered to ${names.length} integrations ${deliveredMs.toFixed(0)} ms after the commit's answer (recorded for them after ${recordedMs.toFixed(0)} ms; commit ${(committedAt - started).toFixed(0)} ms, searchable after ${searchableMs.toFixed(0)} ms)`,
      );
      lastRevisionId = revisionId;
    }
    // What a client sees (untimed): each integration's newest event is the last revision's, delivered.
    await eachLimited(names, 4, async (name) => {
      const newest = (
        (await getJson(`/v1/integrations/${name}/events?limit=1`, fanOrg.token)).items as { status: string; payload: { type?: string; revisionId?: string } }[]
      )[0];
      if (newest?.payload.type !== "space_content_updated" || newest.payload.revisionId !== lastRevisionId || newest.status !== "success") {
        throw new Error(`${name}'s newest event is not the last revision's delivered space_content_updated: ${JSON.stringify(newest)}`);
      }
    });
    log(`integrations: ${((performance.now() - startedAt) / 1000).toFixed(0)} s in all`);
    return { connections: settings.connections, scriptBytes: script.length, compatSetup, render, reference, integrations: names.length, setupSeconds, rounds };
  } finally {
    identity.close();
    editing.close();
    await db.end();
  }
}
