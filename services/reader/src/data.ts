import { jwtVerify } from "jose";
import type { ConditionValue } from "@imprint/document";
import { IntegrationServiceService, type SiteScript } from "@imprint/proto/integration/v1";
import { PublishedContentServiceService, type GetPublishedSpaceResponse } from "@imprint/proto/content/v1/published";
import { SearchServiceService, type SearchPage } from "@imprint/proto/content/v1/search";
import { MemberVisitorTokenServiceService } from "@imprint/proto/publishing/v1/member_visitor_tokens";
import { ReaderServiceService, type GetReaderSiteRequest } from "@imprint/proto/publishing/v1/reader";
import { AppError, CacheBudget, createPromiseClient, type Logger } from "@imprint/runtime/core";
import { connectNatsInBackground, watchEvents, type EventWatch, type NatsLink } from "@imprint/runtime/watch";
import type { ReaderConfig } from "./config.js";
import type { ReaderSite } from "./site.js";
import { throttledWarning } from "./throttled-warning.js";

/** A page's body at one revision, as content answers it. */
export interface PageBody {
  documentJson: string;
  markdown: string;
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
  key: string;
}

const NO_SCRIPTS: SiteScripts = { urls: [], key: "" };

/** After the integration service failed to list a site's scripts, how long the last known list (or none) is used before asking again. */
const SCRIPTS_RETRY_MS = 5_000;

/**
 * What the reader reads from publishing, content and integration, and what it keeps of it. Sites,
 * spaces' current revisions, share keys and sites' scripts are reused until an event says they
 * changed (with NATS) or for SITE_CACHE_TTL_MS (without); page bodies and rendered pages are keyed by revision (and site
 * version), so they never need invalidating: a new revision or site version is a new key, and the
 * old entries age out of one byte budget.
 */
export interface ReaderData {
  site(lookup: GetReaderSiteRequest): Promise<ReaderSite | null>;
  space(spaceId: string): Promise<GetPublishedSpaceResponse | null>;
  pageBody(space: GetPublishedSpaceResponse, pageId: string): Promise<PageBody>;
  /** A file of the space's current revision; null when it holds none by that id. */
  file(space: GetPublishedSpaceResponse, fileId: string): Promise<PublishedFile | null>;
  shareKeyActive(siteId: string, key: string): Promise<boolean>;
  /** The claims of a member's visitor token (the organization ping's), as publishing verifies it; null when it does not verify. */
  memberClaims(organizationId: string, token: string): Promise<VerifiedToken | null>;
  /** The claims of a visitor token the site's key signed (HS256 over the key's text, as GitBook signs); null when it does not verify. */
  siteTokenClaims(token: string, key: string): Promise<VerifiedToken | null>;
  search(spaceIds: string[], query: string, limit: number): Promise<SearchPage[]>;
  /** The integration scripts the site's pages load; none without the integration service (or while it fails). */
  siteScripts(siteId: string): Promise<SiteScripts>;
  /** Rendered pages, by a key naming everything they were rendered from. */
  rendered: { get(key: string): RenderedAnswer | undefined; set(key: string, value: RenderedAnswer): void };
  close(): Promise<void>;
}

interface Held<V> {
  value: V;
  at: number;
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

/** A Map kept to its newest `max` entries. */
function bounded<V>(map: Map<string, V>, max: number, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value!);
}

export async function openReaderData(config: ReaderConfig, logger: Logger, clock: () => number = Date.now): Promise<ReaderData> {
  const timeout = { defaultTimeoutMs: config.UPSTREAM_TIMEOUT_MS };
  // One channel configuration for publishing's two clients too.
  const ofPublishing = { ...timeout, channelDefinitions: [ReaderServiceService, MemberVisitorTokenServiceService] };
  const sites = createPromiseClient(ReaderServiceService, config.PUBLISHING_GRPC_ADDRESS, ofPublishing);
  const memberTokens = createPromiseClient(MemberVisitorTokenServiceService, config.PUBLISHING_GRPC_ADDRESS, ofPublishing);
  // One channel configuration for content's two clients: one connection per copy of content.
  const ofContent = { ...timeout, channelDefinitions: [PublishedContentServiceService, SearchServiceService] };
  const published = createPromiseClient(PublishedContentServiceService, config.CONTENT_GRPC_ADDRESS, ofContent);
  const searches = createPromiseClient(SearchServiceService, config.CONTENT_GRPC_ADDRESS, ofContent);
  const integrations = config.INTEGRATION_GRPC_ADDRESS ? createPromiseClient(IntegrationServiceService, config.INTEGRATION_GRPC_ADDRESS, timeout) : undefined;

  const siteCache = new Map<string, Held<ReaderSite | null>>();
  const spaceCache = new Map<string, Held<GetPublishedSpaceResponse>>();
  const shareKeys = new Map<string, Held<boolean>>();
  // Sites' scripts, each until `until`. A list read while an event dropped them is not kept (the
  // generation changed): it may predate the change.
  const siteScripts = new Map<string, { value: SiteScripts; until: number }>();
  let scriptsGeneration = 0;
  const dropScripts = (siteId?: string) => {
    scriptsGeneration += 1;
    if (siteId === undefined) siteScripts.clear();
    else siteScripts.delete(siteId);
  };
  const warnScripts = throttledWarning(logger, "site scripts not read: the integration service failed (pages are served with the scripts last read)", "failures");
  const scriptUrl = (siteId: string, script: SiteScript) =>
    `${config.IMPRINT_PUBLIC_URL}/v1/integrations/${encodeURIComponent(script.integrationName)}/installations/${encodeURIComponent(script.installationId)}/sites/${encodeURIComponent(siteId)}/script.js`;
  // A visitor sends the same token with every page; checking its signature each time would cost
  // more than serving a kept page. A regenerated key is another key, so its old tokens miss here.
  const verifiedTokens = new Map<string, VerifiedToken>();
  const budget = new CacheBudget(config.PAGE_CACHE_BYTES);
  const bodies = budget.cache<PageBody>("page bodies");
  const files = budget.cache<PublishedFile>("files");
  const rendered = budget.cache<RenderedAnswer>("rendered pages");
  // Loads in flight, so that a burst of visitors to a cold page costs one upstream read.
  const loading = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, load: () => Promise<T>): Promise<T> => {
    const running = loading.get(key) as Promise<T> | undefined;
    if (running) return running;
    const started = load().finally(() => loading.delete(key));
    loading.set(key, started);
    return started;
  };

  let nats: NatsLink | undefined;
  let watch: EventWatch | undefined;
  if (config.NATS_URL) {
    // The reader serves without NATS; while events do not flow, caches keep their shorter TTL.
    nats = connectNatsInBackground(config.NATS_URL, "imprint-reader", logger);
    watch = watchEvents(nats, {
      contexts: integrations ? ["publishing", "content", "integration"] : ["publishing", "content"],
      onEvent: (envelope, subject) => {
        if (subject.startsWith("imprint.integration.")) {
          // A site installation names its site; anything else (an integration published or deleted, an
          // organization installation changed or removed) may change any site's scripts.
          const { kind, targetId } = envelope.payload;
          if (subject.includes(".target_installation.")) {
            if (kind === "site" && typeof targetId === "string") dropScripts(targetId);
            else if (kind !== "space") dropScripts();
          } else {
            dropScripts();
          }
          return;
        }
        if (subject.startsWith("imprint.publishing.")) {
          // Site events are rare and one may change any lookup of the site (basename, hostname): drop them all.
          siteCache.clear();
          shareKeys.clear();
          return;
        }
        const spaceId = envelope.payload.spaceId;
        if (typeof spaceId === "string") spaceCache.delete(spaceId);
        else if (subject.includes(".space.")) spaceCache.clear();
      },
      onGap: () => {
        dropScripts();
        siteCache.clear();
        spaceCache.clear();
        shareKeys.clear();
      },
      logger,
    });
  }
  const following = (): boolean => watch?.following() ?? false;
  const trustedFor = (): number => (following() ? config.EVENT_CACHE_TTL_MS : config.SITE_CACHE_TTL_MS);
  const fresh = (held: Held<unknown> | undefined): boolean => held !== undefined && clock() - held.at < trustedFor();

  return {
    async site(lookup) {
      const key = `${lookup.hostname}\n${lookup.organizationId}\n${lookup.site}`;
      const held = siteCache.get(key);
      if (held && fresh(held)) return held.value;
      return once(`site:${key}`, async () => {
        const site = await notFoundAsNull(() => sites.getReaderSite(lookup));
        bounded(siteCache, MAX_SITES, key, { value: site, at: clock() });
        return site;
      });
    },

    async space(spaceId) {
      const held = spaceCache.get(spaceId);
      if (held && fresh(held)) return held.value;
      return once(`space:${spaceId}`, async () => {
        const answer = await notFoundAsNull(() => published.getPublishedSpace({ spaceId, knownRevisionId: held?.value.revisionId ?? "" }));
        if (!answer) {
          spaceCache.delete(spaceId);
          return null;
        }
        const current = answer.notModified && held ? held.value : answer;
        bounded(spaceCache, MAX_SPACES, spaceId, { value: current, at: clock() });
        return current;
      });
    },

    async pageBody(space, pageId) {
      const key = `${space.revisionId}/${pageId}`;
      const held = bodies.get(key);
      if (held) return held;
      return once(`body:${key}`, async () => {
        const body = await published.getPublishedPage({ spaceId: space.spaceId, revisionId: space.revisionId, pageId });
        const value = { documentJson: body.documentJson, markdown: body.markdown };
        bodies.set(key, value, 2 * (value.documentJson.length + value.markdown.length) + 64);
        return value;
      });
    },

    async file(space, fileId) {
      const key = `${space.revisionId}/${fileId}`;
      const held = files.get(key);
      if (held) return held;
      return once(`file:${key}`, async () => {
        const file = await notFoundAsNull(() => published.getPublishedFile({ spaceId: space.spaceId, revisionId: space.revisionId, fileId }));
        if (!file) return null;
        const value = { name: file.name, contentType: file.contentType, content: Buffer.from(file.content), digest: file.digest };
        if (value.content.length <= MAX_KEPT_FILE_BYTES) files.set(key, value, value.content.length + 256);
        return value;
      });
    },

    async shareKeyActive(siteId, key) {
      // Without events, a deactivated link must stop at once: ask every time.
      if (!following()) return (await sites.checkShareKey({ siteId, key })).active;
      const cacheKey = `${siteId}/${key}`;
      const held = shareKeys.get(cacheKey);
      if (held && fresh(held)) return held.value;
      const { active } = await sites.checkShareKey({ siteId, key });
      bounded(shareKeys, MAX_SHARE_KEYS, cacheKey, { value: active, at: clock() });
      return active;
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
      const cacheKey = `${key}\n${token}`;
      const held = verifiedTokens.get(cacheKey);
      if (held && held.exp * 1000 > clock()) return held;
      verifiedTokens.delete(cacheKey);
      try {
        const { payload } = await jwtVerify(token, new TextEncoder().encode(key), { algorithms: ["HS256"], requiredClaims: ["exp"], currentDate: new Date(clock()) });
        const verified = { claims: payload as Record<string, ConditionValue>, exp: payload.exp! };
        bounded(verifiedTokens, MAX_VERIFIED_TOKENS, cacheKey, verified);
        return verified;
      } catch {
        return null;
      }
    },

    async search(spaceIds, query, limit) {
      if (spaceIds.length === 0) return [];
      return (await searches.searchPublishedContent({ spaceIds, query, limit })).pages;
    },

    async siteScripts(siteId) {
      if (!integrations) return NO_SCRIPTS;
      const held = siteScripts.get(siteId);
      if (held && clock() < held.until) return held.value;
      return once(`scripts:${siteId}`, async () => {
        const generation = scriptsGeneration;
        let kept: { value: SiteScripts; until: number };
        try {
          const { scripts } = await integrations.listSiteScripts({ siteId });
          const urls = scripts.map((script) => scriptUrl(siteId, script));
          kept = { value: urls.length === 0 ? NO_SCRIPTS : { urls, key: urls.join(" ") }, until: clock() + trustedFor() };
        } catch (error) {
          warnScripts(1, { site_id: siteId, error: error instanceof Error ? error.message : String(error) });
          kept = { value: held?.value ?? NO_SCRIPTS, until: clock() + SCRIPTS_RETRY_MS };
        }
        if (generation === scriptsGeneration) bounded(siteScripts, MAX_SITE_SCRIPTS, siteId, kept);
        return kept.value;
      });
    },

    rendered: {
      get: (key) => rendered.get(key),
      set: (key, value) => rendered.set(key, value, value.body.length + 128),
    },

    async close() {
      await watch?.stop();
      await nats?.close().catch(() => {});
      sites.close();
      memberTokens.close();
      published.close();
      searches.close();
      integrations?.close();
    },
  };
}
