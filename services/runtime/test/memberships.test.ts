import { MemberRole } from "@imprint/proto/identity/v1";
import { describe, expect, it } from "vitest";
import { MembershipCache, type MembershipClient } from "../src/access/memberships.js";
import { AppError } from "../src/errors.js";

// GetMembership is the seam to the identity service (the services' end-to-end tests use the real
// one, stopped for the outage); here a function isolates the cache's own rules.
function setup(options: { ttlMs?: number; staleIfErrorMs?: number } = {}) {
  let now = 1_000;
  let failure: AppError | undefined;
  const roles = new Map<string, MemberRole>([["alice", MemberRole.MEMBER_ROLE_EDIT]]);
  const calls: string[] = [];
  let release: (() => void) | undefined;
  let holding = false;
  const identity = {
    getMembership: async ({ userId }: { userId: string }) => {
      calls.push(userId);
      const answer = roles.get(userId);
      const currentFailure = failure;
      if (holding) await new Promise<void>((resolve) => (release = resolve));
      if (currentFailure) throw currentFailure;
      if (answer === undefined) throw AppError.notFound("Membership");
      return { role: answer, disabled: false };
    },
  } as unknown as MembershipClient;
  const cache = new MembershipCache(identity, options.ttlMs ?? 5_000, { staleIfErrorMs: options.staleIfErrorMs, now: () => now });
  // As followMemberEvents does once this process's subscription to identity's events is in place.
  cache.followingEvents();
  return {
    cache,
    calls,
    roles,
    advance: (ms: number) => (now += ms),
    fail: (error: AppError | undefined) => (failure = error),
    hold: () => (holding = true),
    releaseHeld: () => {
      holding = false;
      release?.();
    },
  };
}

const down = new AppError("unavailable", "identity down");

describe("MembershipCache while identity is unreachable (stale if error)", () => {
  it("keeps using a role identity confirmed within the window, and only within it", async () => {
    const { cache, advance, fail } = setup();
    expect(await cache.get("org", "alice")).toEqual({ role: MemberRole.MEMBER_ROLE_EDIT });
    fail(down);
    advance(6_000);
    expect(await cache.get("org", "alice")).toEqual({ role: MemberRole.MEMBER_ROLE_EDIT });
    fail(new AppError("deadline_exceeded", "slow"));
    expect(await cache.get("org", "alice")).toEqual({ role: MemberRole.MEMBER_ROLE_EDIT });
    advance(300_000);
    await expect(cache.get("org", "alice")).rejects.toMatchObject({ code: "deadline_exceeded" });
  });

  it("fails for a member never checked, and passes other failures on", async () => {
    const { cache, advance, fail } = setup();
    fail(down);
    await expect(cache.get("org", "alice")).rejects.toMatchObject({ code: "unavailable" });
    fail(undefined);
    await cache.get("org", "alice");
    advance(6_000);
    fail(new AppError("internal", "bug"));
    await expect(cache.get("org", "alice")).rejects.toMatchObject({ code: "internal" });
  });

  it("drops the role at once on a member event, and a late or repeated event never brings it back", async () => {
    const { cache, advance, fail, roles } = setup();
    await cache.get("org", "alice");
    roles.delete("alice");
    cache.invalidate("org", "alice");
    fail(down);
    advance(6_000);
    await expect(cache.get("org", "alice")).rejects.toMatchObject({ code: "unavailable" });
    cache.invalidate("org", "alice");
    fail(undefined);
    expect(await cache.get("org", "alice")).toBeNull();
    // A late member.added (redelivered after the removal) only drops again: identity is asked.
    cache.invalidate("org", "alice");
    expect(await cache.get("org", "alice")).toBeNull();
  });

  it("does not keep an answer that was under way when the member event arrived", async () => {
    const { cache, advance, fail, roles, hold, releaseHeld } = setup();
    await cache.get("org", "alice");
    advance(6_000);
    hold();
    const lookup = cache.get("org", "alice");
    roles.delete("alice");
    cache.invalidate("org", "alice");
    releaseHeld();
    // The answer read before the removal is handed to its own request only...
    expect(await lookup).toEqual({ role: MemberRole.MEMBER_ROLE_EDIT });
    // ...and not kept: during an outage nothing stale is left to use.
    fail(down);
    await expect(cache.get("org", "alice")).rejects.toMatchObject({ code: "unavailable" });
  });

  it("does not use a stale role when its lookup failed after the member event dropped it", async () => {
    const { cache, advance, fail, hold, releaseHeld } = setup();
    await cache.get("org", "alice");
    advance(6_000);
    fail(down);
    hold();
    const lookup = cache.get("org", "alice");
    cache.invalidate("org", "alice");
    releaseHeld();
    await expect(lookup).rejects.toMatchObject({ code: "unavailable" });
  });

  it("uses no role stale while member events are not heard, nor one verified before they were heard again", async () => {
    const { cache, advance, fail } = setup();
    await cache.get("org", "alice");
    cache.lostEvents();
    fail(down);
    advance(6_000);
    await expect(cache.get("org", "alice")).rejects.toMatchObject({ code: "unavailable" });
    // Resubscribed: a removal may have gone unheard meanwhile.
    cache.followingEvents();
    await expect(cache.get("org", "alice")).rejects.toMatchObject({ code: "unavailable" });
  });

  it("keeps roles for the outage even with a TTL of 0, and not at all with a window of 0", async () => {
    const always = setup({ ttlMs: 0 });
    await always.cache.get("org", "alice");
    await always.cache.get("org", "alice");
    expect(always.calls).toEqual(["alice", "alice"]);
    always.fail(down);
    expect(await always.cache.get("org", "alice")).toEqual({ role: MemberRole.MEMBER_ROLE_EDIT });

    const never = setup({ staleIfErrorMs: 0 });
    await never.cache.get("org", "alice");
    never.advance(6_000);
    never.fail(down);
    await expect(never.cache.get("org", "alice")).rejects.toMatchObject({ code: "unavailable" });
  });
});
