import { CacheBudget, CachedLoader, type Logger } from "@imprint/runtime";
import { type EventFollower, type EventWatch, followEvents, type NatsLink } from "@imprint/runtime/watch";
import type { Installation, TargetInstallation } from "../domain/installation.js";
import type { Integration } from "../domain/integration.js";
import {
  installationCreated,
  installationDeleted,
  installationUpdated,
  integrationDevelopmentModeChanged,
  integrationPublished,
  integrationUnpublished,
  targetInstallationCreated,
  targetInstallationDeleted,
  targetInstallationUpdated,
} from "../events.js";

/** An organization's installation of an integration, its installation on one space (null when none) and its space count. */
export interface KeptPlace {
  installation: Installation;
  target: TargetInstallation | null;
  spaceCount: number;
}

/** How the lookups read what they do not hold (the database's rows; null when there is none). */
export interface RenderLookupLoaders {
  integration(name: string): Promise<Integration | null>;
  place(integrationId: string, organizationId: string, spaceId: string | undefined): Promise<KeptPlace | null>;
  siteInstallation(integrationId: string, siteId: string): Promise<TargetInstallation | null>;
}

/** What the kept rows may take together, roughly (least recently used dropped first): thousands of installations. */
const RENDER_LOOKUPS_BYTES = 16 * 1024 * 1024;

/** A row's rough size: its fixed columns, and its JSON ones as UTF-16 text. */
const ROW_BYTES = 512;
const jsonBytes = (value: unknown): number => 2 * (JSON.stringify(value)?.length ?? 0);
const integrationBytes = (integration: Integration | null): number =>
  integration === null
    ? 0
    : ROW_BYTES +
      jsonBytes([integration.blocks, integration.contentSources, integration.configurations, integration.externalLinks, integration.scopes]) +
      2 * (integration.summary?.length ?? 0) +
      (integration.secretsCiphertext?.length ?? 0);
const targetBytes = (target: TargetInstallation | null): number => (target === null ? 0 : ROW_BYTES + jsonBytes(target.configuration));
const placeBytes = (place: KeptPlace | null): number =>
  place === null ? 0 : ROW_BYTES + jsonBytes(place.installation.configuration) + targetBytes(place.target);

/**
 * What a render looks up before it runs the script (the integration by name, the installation its
 * context points at with its space installation and space count, a site installation), kept in
 * memory: a component renders many times in a row, and those rows change seldom. Kept only while
 * integration's events are heard (this process's own subscription, {@link followRenderLookups}); a
 * gap (not yet connected, reconnecting) drops everything and keeps nothing until they are heard
 * again. Misses are not kept (a first install must show at once). Every entry of an integration is
 * keyed under its name, which every event of it carries, so one drop covers them all.
 *
 * Every change of an integration, of its installations and of their space and site installations
 * records one of integration's events; the change's own process drops what it keeps at once, after
 * its commit, and other replicas when the event arrives (milliseconds after the commit: the outbox
 * relay is woken by it). `keptMs` (INTEGRATION_RENDER_CACHE_TTL_MS) is the backstop for an event that
 * comes late (a relay behind, NATS slow): a row is not used longer than that, which costs a warm
 * render one query per key every few seconds. A version check instead would cost the query per
 * render that the lookups save.
 */
export class RenderLookups implements EventFollower {
  private readonly integrations: CachedLoader<Integration | null>;
  private readonly places: CachedLoader<KeptPlace | null>;
  private readonly siteInstallations: CachedLoader<TargetInstallation | null>;
  private following = false;

  constructor(
    private readonly loaders: RenderLookupLoaders,
    keptMs: number,
    options: { now?: () => number } = {},
  ) {
    const ttlMs = () => (this.following ? keptMs : 0);
    const now = options.now ?? (() => performance.now());
    const budget = new CacheBudget(RENDER_LOOKUPS_BYTES);
    this.integrations = new CachedLoader({ name: "render integrations", budget, bytes: integrationBytes, ttlMs, now });
    this.places = new CachedLoader({ name: "render places", budget, bytes: placeBytes, ttlMs, now });
    this.siteInstallations = new CachedLoader({ name: "render site installations", budget, bytes: targetBytes, ttlMs, now });
  }

  /** The integration named `name`; null when there is none. Shared by renders: read it, never change it. */
  integration(name: string): Promise<Integration | null> {
    return this.integrations.load(`${name}/`, () => this.loaders.integration(name), { keep: kept });
  }

  /** The organization's installation of `integration`, with its installation on `spaceId` (if any) and its space count; null when not installed. */
  place(integration: Pick<Integration, "id" | "name">, organizationId: string, spaceId: string | undefined): Promise<KeptPlace | null> {
    return this.places.load(
      `${integration.name}/${integration.id}/${organizationId}/${spaceId ?? ""}`,
      () => this.loaders.place(integration.id, organizationId, spaceId),
      { keep: kept },
    );
  }

  /** The installation of `integration` on the site; null when it is not installed there. */
  siteInstallation(integration: Pick<Integration, "id" | "name">, siteId: string): Promise<TargetInstallation | null> {
    return this.siteInstallations.load(`${integration.name}/${integration.id}/${siteId}`, () => this.loaders.siteInstallation(integration.id, siteId), {
      keep: kept,
    });
  }

  /**
   * Drops everything kept of the integration named `name` (it, its installations, their space and
   * site installations); loads of them under way are not kept. Called after a change commits, and
   * for each of integration's events.
   */
  forget(name: string): void {
    const prefix = `${name}/`;
    this.integrations.invalidatePrefix(prefix);
    this.places.invalidatePrefix(prefix);
    this.siteInstallations.invalidatePrefix(prefix);
  }

  /** Events are heard from now on: what was kept before may have missed one. */
  followingEvents(): void {
    this.clear();
    this.following = true;
  }

  /** Events are no longer heard: nothing is kept until they are again. */
  lostEvents(): void {
    this.following = false;
    this.clear();
  }

  private clear(): void {
    this.integrations.clear();
    this.places.clear();
    this.siteInstallations.clear();
  }
}

const kept = (value: unknown): boolean => value !== null;

/** Integration's events: each names the integration whose kept rows it drops. */
const integrationChanges = [
  integrationPublished,
  integrationUnpublished,
  integrationDevelopmentModeChanged,
  installationCreated,
  installationUpdated,
  installationDeleted,
  targetInstallationCreated,
  targetInstallationUpdated,
  targetInstallationDeleted,
] as const;

/**
 * This process's own subscription to integration's events (every replica hears each one, unlike a
 * durable consumer): each drops what `lookups` keep of its integration.
 */
export function followRenderLookups(lookups: RenderLookups, nats: NatsLink, logger: Logger): EventWatch {
  return followEvents(nats, {
    events: integrationChanges,
    onEvent: (event) => {
      const payload = event.payload;
      lookups.forget("name" in payload ? payload.name : payload.integrationName);
    },
    follower: lookups,
    logger,
  });
}
