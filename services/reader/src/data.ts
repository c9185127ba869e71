import { jwtVerify } from "jose";
import { includeKey, type ConditionValue } from "@imprint/document";
import type { GetPublishedSpaceResponse } from "@imprint/proto/content/v1/published";
import type { SearchPage } from "@imprint/proto/content/v1/search";
import type { GetReaderSiteRequest, ReaderRedirect } from "@imprint/proto/publishing/v1/reader";
import { AppError, CacheBudget, type Logger, CachedLoader } from "@imprint/runtime/core";
import { connectNatsInBackground, watchEvents, type EventWatch, type NatsLink } from "@imprint/runtime/watch";
import { contentEvents } from "@imprint/proto/content/v1/event-contracts";
import { integrationEvents } from "@imprint/proto/integration/v1/event-contracts";
import { publishingEvents } from "@imprint/proto/publishing/v1/event-contracts";
import type { ReaderConfig } from "./config.js";
import type { ReaderSite } from "./site.js";
import { KeptAnswers, type KeptAnswer } from "./kept-answers.js";
import { throttledWarning } from "./throttled-warning.js";
import { OPENAPI_FILE_KEY } from "./views/openapi.js";
import type { ReaderUpstreams } from "./upstreams.js";

/** A page's body at one revision, as content answers it. */
export interface PageBody {
  documentJson: string;
  /** With the reusable contents it includes written in place. */
  markdown: string;
  /** The documents (JSON) of the reusable contents it includes, by `includeKey`. */
  reusableContents: ReadonlyMap<string, string>;
  /**
   * The other spaces' revisions its reusable contents were read at ("" when it includes none of
   * another space): part of rendered pages' keys, as those contents follow their spaces' heads.
   */
  otherSpaces: string;
  /** The revision's and the page's variables: what its conditional blocks read as `space.vars` and `page.vars`. */
  variables: { space: Readonly<Record<string, string>>; page: Readonly<Record<string, string>> };
}

/** A file of a published revision: an image or attachment of its pages. */
export interface PublishedFile {
  name: string;
  contentType: string;
  content: Buffer;
  digest: string;
}

/** Files up to this size are kept with the rendered pages; larger ones are read each time. */
const MAX_KEPT_FILE_BYTES = 1024 * 1024;

/**
 * A rendered answer the reader keeps: its bytes (encoded once: a string would be encoded to UTF-8
 * again at every request) and the entity tag naming them.
 */
export interface RenderedAnswer {
  etag: string;
  type: string;
  body: Buffer;
  /** The page's Content-Security-Policy (HTML pages: views/policy.ts); the reader's default when absent. */
  policy?: string;
}

/** A visitor token's claims and expiry (seconds since the epoch). */
export interface VerifiedToken {
  claims: Record<string, ConditionValue>;
  exp: number;
}

/** Verified visitor tokens kept at most (each until it expires). */
const MAX_VERIFIED_TOKENS = 10_000;

/**
 * The scripts a site's pages load (its integrations' `site:script:inject` installations), served by
 * the public API; `key` names them in the cache keys of rendered pages ("" for none).
 */
export interface SiteScripts {
  urls: readonly string[];
  /** The integrations' Content-Security-Policies (non-empty ones), which the pages' policy takes in. */
  policies: readonly string[];
  key: string;
}

const NO_SCRIPTS: SiteScripts = { urls: [], policies: [], key: "" };

/** After the integration service failed to list a site's scripts, how long the last known list (or none) is used before asking again. */
const SCRIPTS_RETRY_MS = 5_000;

/**
 * What the reader reads from publishing, content and integration, and what it keeps of it. Sites,
 * spaces' current revisions, share keys, sites' redirects and sites' scripts are reused until an event says they
 * changed (with NATS) or for SITE_CACHE_TTL_MS (without); page bodies and rendered pages are keyed by revision (and site
 * version), so they never need invalidating: a new revision or site version is a new key, and the
 * old entries age out of one byte budget. A page body that includes another space's reusable
 * content, which follows that space's head, is read again after any content event (and, like
 * sites, after EVENT_CACHE_TTL_MS or SITE_CACHE_TTL_MS); the revisions it names key the rendered page.
 */
export interface ReaderData {
  site(lookup: GetReaderSiteRequest): Promise<ReaderSite | null>;
  space(spaceId: string): Promise<GetPublishedSpaceResponse | null>;
  pageBody(space: GetPublishedSpaceResponse, pageId: string): Promise<PageBody>;
  /**
   * The parsed document of an OpenAPI specification of the space's organization, by slug or source
   * URL (what an OpenAPI block names); null when there is none (or no version was kept yet).
   */
  openApiSpec(space: GetPublishedSpaceResponse, spec: string): Promise<unknown>;
  /** A file of the space's current revision; null when it holds none by that id. */
  file(space: GetPublishedSpaceResponse, fileId: string): Promise<PublishedFile | null>;
  shareKeyActive(siteId: string, key: string): Promise<boolean>;
  /** The site's live redirects (read once and kept like the site: only a path without a page asks). */
  redirects(siteId: string): Promise<readonly ReaderRedirect[]>;
  /** The claims of a member's visitor token (the organization ping's), as publishing verifies it; null when it does not verify. */
  memberClaims(organizationId: string, token: string): Promise<VerifiedToken | null>;
  /** The claims of a visitor token the site's key signed (HS256 over the key's text, as GitBook signs); null when it does not verify. */
  siteTokenClaims(token: string, key: string): Promise<VerifiedToken | null>;
  search(spaceIds: string[], query: string, limit: number): Promise<SearchPage[]>;
  /** The integration scripts the site's pages load; none without the integration service (or while it fails). */
  siteScripts(siteId: string): Promise<SiteScripts>;
  /** Logs, once per process, a block type a page holds that the document model does not know (rendered as its text only). */
  unknownBlock(type: string): void;
  /** Rendered pages, by a key naming everything they were rendered from. */
  rendered: { get(key: string): RenderedAnswer | undefined; set(key: string, value: RenderedAnswer): void };
  /** Whole answers the same for every visitor, replayed before Koa (dropped at every event). */
  kept: KeptAnswers;
  /** The reader's NATS connection (NATS_URL), which its rate limits are shared through too. */
  nats: NatsLink | undefined;
  close(): Promise<void>;
}

const notFoundAsNull = async <T>(read: () => Promise<T>): Promise<T | null> => {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") return null;
    throw error;
  }
};

/** Bounds of the small caches (entries, not bytes: their values are small). */
const MAX_SITES = 2_000;
const MAX_SPACES = 2_000;
const MAX_SHARE_KEYS = 10_000;
const MAX_SITE_SCRIPTS = 2_000;
const MAX_SITE_REDIRECTS = 2_000;

/** The reader's reads over `upstreams` (opened and closed by its caller), with their caches and the event watch that keeps them. */
export async function openReaderData(config: ReaderConfig, upstreams: ReaderUpstreams, logger: Logger, clock: () => number = Date.now): Promise<ReaderData> {
  const { sites, memberTokens } = upstreams.publishing;
  const { published, searches } = upstreams.content;
  const integrationScripts = upstreams.integration?.scripts;

  // Every cache is a CachedLoader: concurrent loads of one key share one upstream read (a burst
  // of visitors to a cold page costs one), and a value loaded while an event dropped its key is not
  // kept (it may predate the change). Sites, spaces and share keys are fresh for trustedFor(), read
  // at each use: while events do not flow, the shorter SITE_CACHE_TTL_MS.
  let watch: EventWatch | undefined;
  const following = (): boolean => watch?.following() ?? false;
  const trustedFor = (): number => (following() ? config.EVENT_CACHE_TTL_MS : config.SITE_CACHE_TTL_MS);
  const now = clock;
  const siteCache = new CachedLoader<ReaderSite | null>({ name: "sites", maxEntries: MAX_SITES, ttlMs: trustedFor, now });
  const spaceCache = new CachedLoader<GetPublishedSpaceResponse | null>({ name: "spaces", maxEntries: MAX_SPACES, ttlMs: trustedFor, now });
  const shareKeys = new CachedLoader<boolean>({ name: "share keys", maxEntries: MAX_SHARE_KEYS, ttlMs: trustedFor, now });
  // Each site's live redirects, in one list per site (at most 5,000, publishing's bound).
  const siteRedirects = new CachedLoader<readonly ReaderRedirect[]>({ name: "site redirects", maxEntries: MAX_SITE_REDIRECTS, ttlMs: trustedFor, now });
  // Sites' scripts, each until `until` (a failed read keeps the last list a short while).
  const siteScripts = new CachedLoader<{ value: SiteScripts; until: number }>({
    name: "site scripts",
    maxEntries: MAX_SITE_SCRIPTS,
    freshUntil: (held) => held.until,
    now,
  });
  const dropScripts = (siteId?: string) => {
    if (siteId === undefined) siteScripts.clear();
    else siteScripts.invalidate(siteId);
  };
  const warnScripts = throttledWarning(
    logger,
    "site scripts not read: the integration service failed (pages are served with the scripts last read)",
    "failures",
  );
  // A visitor sends the same token with every page; checking its signature each time would cost
  // more than serving a kept page. A regenerated key is another key, so its old tokens miss here.
  const verifiedTokens = new CachedLoader<VerifiedToken | null>({
    name: "visitor tokens",
    maxEntries: MAX_VERIFIED_TOKENS,
    freshUntil: (held) => (held?.exp ?? 0) * 1000,
    now,
  });
  const budget = new CacheBudget(config.PAGE_CACHE_BYTES);
  // Content events seen (and gaps): a body holding another space's reusable content is stale past one.
  let contentChanges = 0;
  const bodies = new CachedLoader<PageBody & { contentChanges: number }>({
    name: "page bodies",
    budget,
    bytes: (body) =>
      2 * (body.documentJson.length + body.markdown.length + [...body.reusableContents.values()].reduce((sum, json) => sum + json.length, 0)) + 64,
    freshUntil: (body, storedAt) =>
      body.otherSpaces === "" ? Number.POSITIVE_INFINITY : body.contentChanges === contentChanges ? storedAt + trustedFor() : Number.NEGATIVE_INFINITY,
    now,
  });
  // Specifications change apart from revisions: kept only as long as sites are trusted.
  const openApiSpecs = new CachedLoader<{ document: unknown; length: number } | null>({
    name: "openapi specs",
    budget,
    bytes: (spec) => 2 * (spec?.length ?? 0) + 64,
    ttlMs: trustedFor,
    now,
  });
  const files = new CachedLoader<PublishedFile | null>({ name: "files", budget, bytes: (file) => (file?.content.length ?? 0) + 256 });
  const rendered = budget.cache<RenderedAnswer>("rendered pages");
  // Only while events flow: each event (or a reconnection) drops them all.
  const kept = new KeptAnswers(budget.cache<KeptAnswer>("kept answers"), {
    trustProxy: config.TRUST_PROXY,
    freshForMs: () => (following() ? config.EVENT_CACHE_TTL_MS : 0),
    now,
  });

  let nats: NatsLink | undefined;
  if (config.NATS_URL) {
    // The reader serves without NATS; while events do not flow, caches keep their shorter TTL.
    nats = connectNatsInBackground(config.NATS_URL, "imprint-reader", logger);
    watch = watchEvents(nats, {
      events: integrationScripts ? [...publishingEvents, ...contentEvents, ...integrationEvents] : [...publishingEvents, ...contentEvents],
      onEvent: (event) => {
        kept.clear();
        if (event.subject.startsWith("imprint.integration.")) {
          // A site installation names its site; anything else (an integration published or deleted, an
          // organization installation changed or removed) may change any site's scripts.
          const target = "targetId" in event.payload ? event.payload : undefined;
          if (target?.kind === "site") dropScripts(target.targetId);
          else if (target?.kind !== "space") dropScripts();
          return;
        }
        if (event.subject.startsWith("imprint.publishing.")) {
          // Site events are rare and one may change any lookup of the site (basename, hostname): drop them all.
          siteCache.clear();
          shareKeys.clear();
          siteRedirects.clear();
          return;
        }
        // A content event about a space (its lifecycle, a revision, a branch) may change what it publishes,
        // and what other spaces' pages include of it.
        contentChanges++;
        if ("spaceId" in event.payload && event.payload.spaceId) spaceCache.invalidate(event.payload.spaceId);
        else if (event.type.startsWith("space.")) spaceCache.clear();
      },
      onGap: () => {
        kept.clear();
        contentChanges++;
        dropScripts();
        siteCache.clear();
        spaceCache.clear();
        shareKeys.clear();
        siteRedirects.clear();
      },
      logger,
    });
  }

  const unknownBlockTypes = new Set<string>();

  return {
    unknownBlock(type) {
      // Bounded: a hostile document cannot grow the set without end.
      if (unknownBlockTypes.has(type) || unknownBlockTypes.size >= 256) return;
      unknownBlockTypes.add(type);
      logger.warn("a page holds a block type the reader renders as its text only", { blockType: type.slice(0, 64) });
    },

    async site(lookup) {
      return siteCache.load(`${lookup.hostname}\n${lookup.organizationId}\n${lookup.site}`, () => notFoundAsNull(() => sites.getReaderSite(lookup)));
    },

    async space(spaceId) {
      const current = await spaceCache.load(
        spaceId,
        async (held) => {
          const answer = await notFoundAsNull(() => published.getPublishedSpace({ spaceId, knownRevisionId: held?.value?.revisionId ?? "" }));
          // Not modified: the pages held are current; the space's settings (its language, its Git source) come from the answer.
          return answer?.notModified && held?.value ? { ...held.value, language: answer.language, gitSource: answer.gitSource } : answer;
        },
        { keep: (answer) => answer !== null },
      );
      // Gone: its last answer is of no use to revalidate either.
      if (!current) spaceCache.invalidate(spaceId);
      return current;
    },

    async pageBody(space, pageId) {
      return bodies.load(`${space.revisionId}/${pageId}`, async () => {
        const seen = contentChanges;
        const body = await published.getPublishedPage({ spaceId: space.spaceId, revisionId: space.revisionId, pageId });
        const others = body.reusableContents.filter((content) => content.spaceId !== "");
        return {
          documentJson: body.documentJson,
          markdown: body.markdown,
          reusableContents: new Map(body.reusableContents.map((content) => [includeKey(content.spaceId, content.id), content.documentJson])),
          otherSpaces: [...new Set(others.map((content) => `${content.spaceId}@${content.revisionId}`))].sort().join(" "),
          variables: { space: body.spaceVariables, page: body.pageVariables },
          contentChanges: seen,
        };
      });
    },

    async openApiSpec(space, spec) {
      // A spec that is a file of the space is the revision's (immutable); others change apart from revisions.
      const fileId = spec.startsWith(OPENAPI_FILE_KEY) ? spec.slice(OPENAPI_FILE_KEY.length) : undefined;
      const key = fileId ? `${space.revisionId}/${spec}` : `${space.spaceId}/${spec}`;
      const loaded = await openApiSpecs.load(key, async () => {
        const found = await notFoundAsNull(() =>
          published.getPublishedOpenApiSpec(
            fileId ? { spaceId: space.spaceId, spec: "", fileId, revisionId: space.revisionId } : { spaceId: space.spaceId, spec },
          ),
        );
        return found && { document: JSON.parse(found.documentJson) as unknown, length: found.documentJson.length };
      });
      return loaded?.document ?? null;
    },

    async file(space, fileId) {
      return files.load(
        `${space.revisionId}/${fileId}`,
        async () => {
          const file = await notFoundAsNull(() => published.getPublishedFile({ spaceId: space.spaceId, revisionId: space.revisionId, fileId }));
          return file && { name: file.name, contentType: file.contentType, content: Buffer.from(file.content), digest: file.digest };
        },
        { keep: (file) => file !== null && file.content.length <= MAX_KEPT_FILE_BYTES },
      );
    },

    async shareKeyActive(siteId, key) {
      // Without events, a deactivated link must stop at once: ask every time.
      if (!following()) return (await sites.checkShareKey({ siteId, key })).active;
      return shareKeys.load(`${siteId}/${key}`, async () => (await sites.checkShareKey({ siteId, key })).active);
    },

    async redirects(siteId) {
      // A site unpublished meanwhile has none to follow.
      return siteRedirects.load(siteId, async () => (await notFoundAsNull(() => sites.listReaderSiteRedirects({ siteId })))?.redirects ?? []);
    },

    async memberClaims(organizationId, token) {
      const member = await memberTokens.verifyMemberVisitorToken({ organizationId, token });
      if (!member.valid) return null;
      return {
        claims: { id: member.userId, email: member.email, role: member.role, teams: member.teams },
        exp: Math.floor((member.expiresAt?.getTime() ?? 0) / 1000),
      };
    },

    async siteTokenClaims(token, key) {
      if (!key) return null;
      return verifiedTokens.load(
        `${key}\n${token}`,
        async () => {
          try {
            const { payload } = await jwtVerify(token, new TextEncoder().encode(key), {
              algorithms: ["HS256"],
              requiredClaims: ["exp"],
              currentDate: new Date(clock()),
            });
            return { claims: payload as Record<string, ConditionValue>, exp: payload.exp! };
          } catch {
            return null;
          }
        },
        { keep: (verified) => verified !== null },
      );
    },

    async search(spaceIds, query, limit) {
      if (spaceIds.length === 0) return [];
      return (await searches.searchPublishedContent({ spaceIds, query, limit })).pages;
    },

    async siteScripts(siteId) {
      if (!integrationScripts) return NO_SCRIPTS;
      const kept = await siteScripts.load(siteId, async (held) => {
        try {
          // The integration service names each script's URL: the published view and the public API list the same.
          const { scripts } = await integrationScripts.listSiteScripts({ siteId, organizationId: "" });
          const urls = scripts.map((script) => script.url);
          const policies = scripts.map((script) => script.contentSecurityPolicy).filter((policy) => policy !== "");
          const value = urls.length === 0 ? NO_SCRIPTS : { urls, policies, key: [urls.join(" "), ...policies].join("\n") };
          return { value, until: clock() + trustedFor() };
        } catch (error) {
          warnScripts(1, { site_id: siteId, error: error instanceof Error ? error.message : String(error) });
          return { value: held?.value.value ?? NO_SCRIPTS, until: clock() + SCRIPTS_RETRY_MS };
        }
      });
      return kept.value;
    },

    rendered: {
      get: (key) => rendered.get(key),
      set: (key, value) => rendered.set(key, value, value.body.length + 128),
    },

    kept,
    nats,

    async close() {
      await watch?.stop();
      await nats?.close().catch(() => {});
    },
  };
}
