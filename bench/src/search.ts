import { Agent, get as httpGet } from "node:http";
import pg from "pg";
import { CreatePageInput, EditingServiceService, type PageOperation } from "@imprint/proto/content/v1/editing";
import { createIdentityClients, createPromiseClient } from "@imprint/runtime";
import { consumersCaughtUp } from "./editing.js";
import { seededRandom as random } from "./seeded-random.js";
import { percentile } from "./stats.js";

/**
 * The search figures of `npm run bench`. A space of 10,000 pages of 10 sections each (100,000
 * indexed sections) is written the way an import writes it: one draft, the pages in
 * ApplyPageOperations batches, one commit. The content service indexes it from the commit's
 * `revision.created` event, through the same code as every commit; the time from the commit to
 * the index holding that revision is the "index time of a 10,000-page import". Then searches of
 * several kinds (common, medium and rare words, two words, a prefix, a phrase, one unmatched word
 * that triggers the "most words" fallback, an organization search) are sent through the gateway
 * and their latencies recorded one by one, for exact percentiles.
 */

export interface SearchTarget {
  gatewayUrl: string;
  identityGrpcAddress: string;
  contentGrpcAddress: string;
  contentDatabaseUrl: string;
}

export interface SearchBenchmarkSettings {
  pages: number;
  sectionsPerPage: number;
  /** Concurrent searches during the measured run. */
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface LatencyFigures {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  failed: number;
}

export interface SearchFigures {
  pages: number;
  sections: number;
  /** Wall time of writing the pages through the editing API and committing them. */
  writeSeconds: number;
  /** From the commit's answer to the index holding the committed revision. */
  indexSeconds: number;
  /** Every query kind mixed, at `connections` concurrent searches. */
  mixed: LatencyFigures;
  /** The same mix, one search at a time (latency on an idle stack). */
  oneConnection: LatencyFigures;
  /** Per query kind, one connection. */
  byKind: Record<string, LatencyFigures>;
  /** Average number of matching pages per query kind (the work each one does). */
  matchesByKind: Record<string, number>;
}

export type Log = (message: string) => void;

const CONSONANTS = "bdfgklmnprstvz";
const VOWELS = "aeiou";
const VOCABULARY_SIZE = 20_000;

/** Word `rank` of the vocabulary: consonant-vowel syllables and a closing consonant, e.g. "bakor". */
function vocabularyWord(rank: number): string {
  let n = rank + 100;
  let word = "";
  while (n > 0) {
    word += CONSONANTS[n % CONSONANTS.length]! + VOWELS[Math.floor(n / CONSONANTS.length) % VOWELS.length]!;
    n = Math.floor(n / (CONSONANTS.length * VOWELS.length));
  }
  return word + CONSONANTS[rank % CONSONANTS.length]!;
}

/** Words drawn with Zipf-like frequencies (rank r about 1/r), like natural text. */
function zipf(next: () => number): () => string {
  const harmonic = Array.from({ length: VOCABULARY_SIZE }, (_, rank) => 1 / (rank + 1));
  const cumulative: number[] = [];
  let sum = 0;
  for (const weight of harmonic) cumulative.push((sum += weight));
  return () => {
    const target = next() * sum;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return vocabularyWord(low);
  };
}

/** The benchmark's generated pages (also the neighbour's bulk import of the event-lag figures). */
export function pageOperations(settings: Pick<SearchBenchmarkSettings, "pages" | "sectionsPerPage">): PageOperation[] {
  const next = random(42);
  const draw = zipf(next);
  const words = (count: number) => Array.from({ length: count }, draw).join(" ");
  const operations: PageOperation[] = [];
  const perSection = 100;
  for (let section = 0; operations.length < settings.pages; section++) {
    operations.push({ create: CreatePageInput.fromPartial({ pageId: `g${section}`, title: `Chapter ${section} ${words(2)}`, markdown: `${words(30)}.` }) });
    for (let page = 1; page < perSection && operations.length < settings.pages; page++) {
      const parts = [`${words(30)}.`];
      for (let heading = 1; heading < settings.sectionsPerPage; heading++) parts.push(`## ${words(3)}`, `${words(35)}.`);
      operations.push({
        create: CreatePageInput.fromPartial({
          pageId: `g${section}p${page}`,
          parentPageId: `g${section}`,
          title: `${words(3)} guide`,
          markdown: parts.join("\n\n"),
        }),
      });
    }
  }
  return operations;
}

/** The query kinds measured, by name (words chosen by their rank in the vocabulary; phrases taken from the text). */
function queryKinds(operations: PageOperation[]): Record<string, string[]> {
  const range = (from: number, count: number) => Array.from({ length: count }, (_, index) => vocabularyWord(from + index * 7));
  const veryFrequent = range(15, 10);
  const common = range(100, 10);
  const medium = range(400, 10);
  const rare = range(8_000, 10);
  return {
    "very frequent word": veryFrequent,
    "common word": common,
    "medium word": medium,
    "rare word": rare,
    "two words": medium.map((word, index) => `${word} ${common[index]}`),
    prefix: medium.map((word) => word.slice(0, -2)),
    phrase: operations.slice(1, 11).map((operation) => `"${(operation.create?.markdown ?? "").split(" ").slice(3, 5).join(" ")}"`),
    "unmatched word (fallback)": medium.map((word, index) => `${word} ${rare[index]} zzqxv`),
  };
}

/** Runs `paths` in a loop on `connections` keep-alive connections for `seconds`; latency per request. */
async function measure(base: string, token: string, paths: string[], connections: number, seconds: number): Promise<LatencyFigures> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let failed = 0;
  const deadline = performance.now() + seconds * 1000;
  let cursor = 0;
  const get = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const request = httpGet(new URL(path, base), { agent, headers: { authorization: `Bearer ${token}`, accept: "application/json" } }, (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      });
      request.on("error", reject);
    });
  const worker = async () => {
    while (performance.now() < deadline) {
      const path = paths[cursor++ % paths.length]!;
      const started = performance.now();
      const status = await get(path).catch(() => 0);
      if (status === 200) latencies.push(performance.now() - started);
      else failed += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: sorted.length + failed,
    requestsPerSecond: sorted.length / elapsed,
    p50Ms: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted[sorted.length - 1] ?? 0,
    failed,
  };
}

export function describeLatency(figures: LatencyFigures): string {
  return `${figures.requestsPerSecond.toFixed(0)} req/s, p50 ${figures.p50Ms.toFixed(1)} ms, p95 ${figures.p95Ms.toFixed(1)} ms, p99 ${figures.p99Ms.toFixed(1)} ms${figures.failed ? `, ${figures.failed} failed` : ""}`;
}

export async function runSearchBenchmark(target: SearchTarget, settings: SearchBenchmarkSettings, log: Log): Promise<SearchFigures> {
  const identity = createIdentityClients(target.identityGrpcAddress, { defaultTimeoutMs: 15_000 });
  const editing = createPromiseClient(EditingServiceService, target.contentGrpcAddress, { defaultTimeoutMs: 300_000 });
  const db = new pg.Client({ connectionString: target.contentDatabaseUrl });
  await db.connect();
  try {
    const organization = await identity.organizations.createOrganization({
      title: "Search Benchmark",
      ownerEmail: "bench-search@example.com",
      ownerDisplayName: "Bench",
      ownerToken: "",
    });
    const caller = { userId: organization.userId, tokenId: "" };
    const headers = { authorization: `Bearer ${organization.token}`, "content-type": "application/json" };
    const created = await fetch(`${target.gatewayUrl}/v1/orgs/${organization.organizationId}/spaces`, {
      method: "POST",
      headers,
      body: JSON.stringify({ title: "Searchable" }),
    });
    if (created.status !== 201) throw new Error(`createSpace answered ${created.status}: ${await created.text()}`);
    const spaceId = ((await created.json()) as { id: string }).id;

    const operations = pageOperations(settings);
    const sections = operations.reduce((sum, operation) => sum + 1 + (operation.create?.markdown.match(/^## /gm)?.length ?? 0), 0);
    log(`search: writing ${operations.length} pages (${sections} sections) as one revision through the editing API`);
    const writeStart = performance.now();
    const { draft } = await editing.openDraft({ caller, spaceId, parentRevisionId: "", changeRequestId: "" });
    // Batches stay far below gRPC's message limit.
    for (let start = 0; start < operations.length; start += 1_000) {
      await editing.applyPageOperations({ caller, draftId: draft!.id, operations: operations.slice(start, start + 1_000) });
    }
    const committed = await editing.commitDraft({ caller, draftId: draft!.id, message: "import", moveHead: true, expectedHeadRevisionId: "" });
    const committedAt = performance.now();
    const writeSeconds = (committedAt - writeStart) / 1000;
    log(`search: written in ${writeSeconds.toFixed(1)} s; waiting for the index`);
    const deadline = committedAt + 600_000;
    for (;;) {
      const { rows } = await db.query<{ revision_id: string }>("select revision_id from search_spaces where space_id = $1", [spaceId]);
      if (rows[0]?.revision_id === committed.revisionId) break;
      if (performance.now() > deadline) throw new Error("the search index did not catch up within 10 minutes");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const indexSeconds = (performance.now() - committedAt) / 1000;
    const { rows: counted } = await db.query<{ count: string }>("select count(*) as count from search_sections where space_id = $1", [spaceId]);
    const indexedSections = Number(counted[0]?.count ?? 0);
    log(`search: ${indexedSections} sections indexed ${indexSeconds.toFixed(1)} s after the commit`);
    // Other consumers of the same commit (e.g. link extraction) may still be at work: measure on a quiet service.
    await consumersCaughtUp(db, spaceId, committed.revisionId);

    const kinds = queryKinds(operations);
    const spacePath = (query: string) => `/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}`;
    const orgPath = (query: string) => `/v1/orgs/${organization.organizationId}/search?query=${encodeURIComponent(query)}`;
    const pathsByKind: Record<string, string[]> = Object.fromEntries(Object.entries(kinds).map(([kind, queries]) => [kind, queries.map(spacePath)]));
    pathsByKind["organization search"] = kinds["medium word"]!.map(orgPath);

    const matchesByKind: Record<string, number> = {};
    for (const [kind, paths] of Object.entries(pathsByKind)) {
      let total = 0;
      for (const path of paths) {
        const response = await fetch(target.gatewayUrl + path, { headers });
        if (response.status !== 200) throw new Error(`${kind}: ${path} answered ${response.status}: ${await response.text()}`);
        const body = (await response.json()) as { count?: number; items: { pages?: unknown[] }[] };
        if (body.items.length === 0) throw new Error(`${kind}: ${path} found nothing`);
        total += body.count ?? 0;
      }
      matchesByKind[kind] = total / paths.length;
    }

    const mixedPaths = Object.values(pathsByKind).flat();
    if (settings.warmupSeconds > 0) await measure(target.gatewayUrl, organization.token, mixedPaths, settings.connections, settings.warmupSeconds);
    log(`search: mixed queries, ${settings.connections} connections, ${settings.durationSeconds} s`);
    const mixed = await measure(target.gatewayUrl, organization.token, mixedPaths, settings.connections, settings.durationSeconds);
    log(`        ${describeLatency(mixed)}`);
    const oneConnection = await measure(target.gatewayUrl, organization.token, mixedPaths, 1, settings.durationSeconds);
    log(`        1 connection: ${describeLatency(oneConnection)}`);
    const byKind: Record<string, LatencyFigures> = {};
    const perKindSeconds = Math.max(2, Math.round(settings.durationSeconds / 4));
    for (const [kind, paths] of Object.entries(pathsByKind)) {
      byKind[kind] = await measure(target.gatewayUrl, organization.token, paths, 1, perKindSeconds);
      log(`        ${kind} (${matchesByKind[kind]!.toFixed(0)} matching pages): ${describeLatency(byKind[kind])}`);
    }
    return { pages: operations.length, sections: indexedSections, writeSeconds, indexSeconds, mixed, oneConnection, byKind, matchesByKind };
  } finally {
    identity.close();
    editing.close();
    await db.end();
  }
}
