import { performance } from "node:perf_hooks";
import { MemberRole, type IdentityServiceService } from "@imprint/proto/identity/v1";
import { AppError, type PromiseClient } from "@imprint/runtime";
import type { Level } from "./domain/levels.js";

export type IdentityClient = PromiseClient<typeof IdentityServiceService>;

/** A caller's standing in an organization: an enabled member with a role, or a guest (role null). */
export interface Membership {
  role: Level | null;
}

const LEVEL_BY_ROLE: Partial<Record<MemberRole, Level>> = {
  [MemberRole.MEMBER_ROLE_ADMIN]: "admin",
  [MemberRole.MEMBER_ROLE_CREATE]: "create",
  [MemberRole.MEMBER_ROLE_REVIEW]: "review",
  [MemberRole.MEMBER_ROLE_EDIT]: "edit",
  [MemberRole.MEMBER_ROLE_COMMENT]: "comment",
  [MemberRole.MEMBER_ROLE_READ]: "read",
};

interface Entry {
  membership: Membership | null;
  expiresAt: number;
}

/** Entries kept at most; the oldest go first (a Map iterates in insertion order). */
const MAX_ENTRIES = 10_000;

/**
 * Organization roles from identity's GetMembership, cached per (organization, user) for `ttlMs`.
 * Identity's member events drop the entry at once (see {@link membershipEventsConsumer}), so a
 * removed member loses access as soon as the event arrives, and within the TTL at worst.
 * Concurrent lookups of one key share a single call.
 */
export class MembershipCache {
  private readonly entries = new Map<string, Entry>();
  /** Lookups under way; an invalidation removes the key, so an answer in flight meanwhile is not kept. */
  private readonly inflight = new Map<string, Promise<Membership | null>>();

  constructor(
    private readonly identity: IdentityClient,
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  private static key(organizationId: string, userId: string): string {
    return `${organizationId}/${userId}`;
  }

  /** The user's membership of the organization; null when not a member or disabled. */
  async get(organizationId: string, userId: string): Promise<Membership | null> {
    const key = MembershipCache.key(organizationId, userId);
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > this.now()) return cached.membership;
    const pending = this.inflight.get(key);
    if (pending) return pending;

    const lookup: Promise<Membership | null> = this.fetch(organizationId, userId).then(
      (membership) => {
        if (this.inflight.get(key) === lookup) {
          this.inflight.delete(key);
          if (this.ttlMs > 0) this.store(key, membership);
        }
        return membership;
      },
      (error: unknown) => {
        if (this.inflight.get(key) === lookup) this.inflight.delete(key);
        throw error;
      },
    );
    this.inflight.set(key, lookup);
    return lookup;
  }

  private store(key: string, membership: Membership | null): void {
    this.entries.delete(key);
    this.entries.set(key, { membership, expiresAt: this.now() + this.ttlMs });
    while (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  private async fetch(organizationId: string, userId: string): Promise<Membership | null> {
    try {
      const answer = await this.identity.getMembership({ organizationId, userId });
      if (answer.disabled) return null;
      if (answer.role === MemberRole.MEMBER_ROLE_GUEST) return { role: null };
      const role = LEVEL_BY_ROLE[answer.role];
      if (!role) throw new AppError("internal", `identity answered an unknown role ${String(answer.role)}`);
      return { role };
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") return null;
      throw error;
    }
  }

  /** Forgets what is known about the user in the organization (the next check asks identity). */
  invalidate(organizationId: string, userId: string): void {
    const key = MembershipCache.key(organizationId, userId);
    this.entries.delete(key);
    this.inflight.delete(key);
  }
}
