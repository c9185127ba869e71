import { performance } from "node:perf_hooks";
import { CachedLoader } from "../cached-loader.js";
import { MemberRole } from "@imprint/proto/identity/v1";
import type { MemberServiceService } from "@imprint/proto/identity/v1/members";
import { memberAdded, memberRemoved, memberRoleChanged, memberSsoEnabled } from "@imprint/proto/identity/v1/event-contracts";
import { AppError } from "../errors.js";
import { handleEvents } from "../events/handle-events.js";
import type { ConsumerSpec } from "../service.js";
import type { PromiseClient } from "../grpc/client.js";
import { createLogger, type Logger } from "../logger.js";
import type { EventWatch } from "../events/watch.js";
import type { NatsConnection } from "@nats-io/transport-node";
import type { NatsLink } from "../events/nats.js";
import { followEvents } from "./follow-events.js";

/** What the membership cache asks identity: GetMembership. */
export type MembershipClient = Pick<PromiseClient<typeof MemberServiceService>, "getMembership">;

/** The roles of an organization's members by their REST names, highest first (a guest has none). */
export const ROLE_NAMES = ["admin", "create", "review", "edit", "comment", "read"] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

const NAME_BY_ROLE: Partial<Record<MemberRole, RoleName>> = {
  [MemberRole.MEMBER_ROLE_ADMIN]: "admin",
  [MemberRole.MEMBER_ROLE_CREATE]: "create",
  [MemberRole.MEMBER_ROLE_REVIEW]: "review",
  [MemberRole.MEMBER_ROLE_EDIT]: "edit",
  [MemberRole.MEMBER_ROLE_COMMENT]: "comment",
  [MemberRole.MEMBER_ROLE_READ]: "read",
};

const ROLE_BY_NAME = Object.fromEntries(Object.entries(NAME_BY_ROLE).map(([role, name]) => [name, Number(role) as MemberRole])) as Record<RoleName, MemberRole>;

/** The proto role of a REST name. */
export function roleOfName(name: RoleName): MemberRole {
  return ROLE_BY_NAME[name];
}

/** A role's REST name; undefined for a guest (and for a value identity does not define). */
export function roleName(role: MemberRole): RoleName | undefined {
  return NAME_BY_ROLE[role];
}

/** A caller's standing in an organization as identity answers it: an enabled member's role (guests included). */
export interface OrganizationRole {
  role: MemberRole;
}

/** Roles kept at most; the least recently used go first. */
const MAX_ENTRIES = 10_000;

/**
 * How long a role identity confirmed keeps being used while identity cannot be reached (stale if
 * error): requests of members seen in the last five minutes keep working through an identity
 * outage; a member event still drops the role at once.
 */
export const DEFAULT_STALE_IF_ERROR_MS = 5 * 60_000;

/** Failures that say identity cannot answer now, nothing about the member. */
function identityUnreachable(error: unknown): boolean {
  return error instanceof AppError && (error.code === "unavailable" || error.code === "deadline_exceeded");
}

export interface MembershipCacheOptions {
  /** How long a role is used while identity is unreachable, from when identity confirmed it; 0 disables. */
  staleIfErrorMs?: number;
  now?: () => number;
}

/**
 * Organization roles from identity's GetMembership, cached per (organization, user) for `ttlMs`,
 * for every service that authorizes by role. Identity's member events drop the entry at once
 * (see {@link membershipEventsConsumer}), so a removed member loses access as soon as the event
 * arrives, and within the TTL at worst (in a service running several replicas, the one that did
 * not get the event). Concurrent lookups of one key share a single call.
 *
 * While identity is unreachable (unavailable, deadline exceeded), a role it confirmed less than
 * `staleIfErrorMs` ago is still used, so members keep working through an identity outage, but only
 * while this process hears identity's member events itself ({@link followMemberEvents}: every
 * replica, not the one a durable consumer hands the event to) and for roles verified since it last
 * (re)subscribed. Events only ever drop entries (commutative: a late or repeated event drops again,
 * never restores), and a lookup under way when its key is dropped is not kept (the CachedLoader's
 * invalidation), so no answer older than an event can come back after it.
 */
export class MembershipCache {
  private readonly roles: CachedLoader<OrganizationRole | null>;
  private readonly keeps: boolean;
  private readonly now: () => number;
  /** Roles verified before this are not used stale: member events since may have been missed. */
  private trustedSince = Number.POSITIVE_INFINITY;

  constructor(
    private readonly identity: MembershipClient,
    ttlMs: number,
    options: MembershipCacheOptions | (() => number) = {},
  ) {
    const resolved = typeof options === "function" ? { now: options } : options;
    const staleIfErrorMs = resolved.staleIfErrorMs ?? DEFAULT_STALE_IF_ERROR_MS;
    const now = resolved.now ?? (() => performance.now());
    this.now = now;
    this.keeps = ttlMs > 0 || staleIfErrorMs > 0;
    this.roles = new CachedLoader<OrganizationRole | null>({
      name: "organization roles",
      maxEntries: MAX_ENTRIES,
      ttlMs,
      now,
      staleIfError: (error, stale) => identityUnreachable(error) && stale.storedAt >= this.trustedSince && now() - stale.storedAt < staleIfErrorMs,
    });
  }

  private static key(organizationId: string, userId: string, tokenId: string): string {
    return `${organizationId}/${userId}/${tokenId}`;
  }

  /**
   * The user's role in the organization; null when not a member or disabled, or when the
   * organization requires SSO and `tokenId` (the request's token) was not issued through it.
   * `tokenId` "" for checks that act for no request.
   */
  async get(organizationId: string, userId: string, tokenId = ""): Promise<OrganizationRole | null> {
    return this.roles.load(MembershipCache.key(organizationId, userId, tokenId), () => this.fetch(organizationId, userId, tokenId), { keep: () => this.keeps });
  }

  private async fetch(organizationId: string, userId: string, tokenId: string): Promise<OrganizationRole | null> {
    try {
      const answer = await this.identity.getMembership({ organizationId, userId, tokenId });
      if (answer.disabled) return null;
      if (answer.role === MemberRole.MEMBER_ROLE_UNSPECIFIED || answer.role === MemberRole.UNRECOGNIZED) {
        throw new AppError("internal", `identity answered an unknown role ${String(answer.role)}`);
      }
      return { role: answer.role };
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return null;
      throw error;
    }
  }

  /** Forgets what is known about the user in the organization (the next check asks identity). */
  invalidate(organizationId: string, userId: string): void {
    // Every token's entry of the user.
    this.roles.invalidatePrefix(`${organizationId}/${userId}/`);
  }

  /** Member events are heard from now on ({@link followMemberEvents}): roles verified since may be used stale. */
  followingEvents(): void {
    this.trustedSince = this.now();
  }

  /** Member events are no longer heard: no role is used stale until they are again. */
  lostEvents(): void {
    this.trustedSince = Number.POSITIVE_INFINITY;
  }
}

/** Identity's events about a member of an organization, as membership caches read them. */
export const consumedMemberEvents = [memberAdded, memberRoleChanged, memberRemoved, memberSsoEnabled] as const;

/**
 * Identity's member events (added, role_changed, removed, sso_enabled) drop the cached role, so a
 * removed member loses access within seconds. The handler changes nothing in the database; the
 * runtime still records the event as processed there, which keeps redeliveries idempotent.
 */
export function membershipEventsConsumer(memberships: MembershipCache, consumer: string): ConsumerSpec {
  return {
    context: "identity",
    consumer,
    filterSubject: "imprint.identity.v1.member.>",
    handler: handleEvents(consumedMemberEvents, async (event) => {
      if (event.organizationId && event.payload.userId) memberships.invalidate(event.organizationId, event.payload.userId);
    }),
  };
}

/**
 * Every replica's own subscription to identity's member events, which lets the cache use a role
 * while identity is unreachable (stale if error): each event drops the member's roles in this
 * process at once, and a disconnection stops stale use until the subscription is back. The durable
 * {@link membershipEventsConsumer} reaches one replica only; this one reaches them all.
 */
export function followMemberEvents(memberships: MembershipCache, nc: NatsConnection | NatsLink, logger: Logger = createLogger("memberships")): EventWatch {
  return followEvents(nc, {
    events: consumedMemberEvents,
    onEvent: (event) => {
      if (event.organizationId && event.payload.userId) memberships.invalidate(event.organizationId, event.payload.userId);
    },
    follower: memberships,
    logger,
  });
}

/**
 * A service's memberships: the cache over identity's `members` client, kept current on every
 * replica by identity's member events (`follower`, stopped with the service's deps).
 */
export function followedMemberships(
  members: MembershipClient,
  ttlMs: number,
  runtime: { nats: NatsLink; logger: Logger },
): { cache: MembershipCache; follower: EventWatch } {
  const cache = new MembershipCache(members, ttlMs);
  // Every replica hears the events itself: roles may then be used while identity is unreachable.
  return { cache, follower: followMemberEvents(cache, runtime.nats, runtime.logger) };
}
