import { defineEntity, p, type EntityManager } from "@mikro-orm/postgresql";
import { AppError, type Clock, findOwned, queryRows, sql } from "@imprint/runtime";
import { ROLES } from "./roles.js";

/**
 * An organization owns content and members. Fields mirror what the REST API's organization object
 * carries; billing and trial fields keep their defaults until a billing context exists.
 */
export const OrganizationSchema = defineEntity({
  name: "Organization",
  tableName: "organizations",
  properties: {
    id: p.uuid().primary().onCreate(() => crypto.randomUUID()),
    title: p.string().length(255),
    /** Lower-cased, without duplicates. */
    emailDomains: p.array().default([]),
    /** Default hostname for public content; unique among organizations when set. */
    hostname: p.string().length(32).nullable().unique(),
    type: p.string().length(32).default("business"),
    useCase: p.string().length(64).nullable(),
    communityType: p.string().length(64).nullable(),
    /** Role given to new members; null makes them guests. */
    defaultRole: p.enum(ROLES).nullable(),
    defaultContentSiteId: p.string().length(64).nullable(),
    sso: p.boolean().default(false),
    ai: p.boolean().default(false),
    inviteLinks: p.boolean().default(true),
    plan: p.string().length(32).default("free"),
    logoUrl: p.string().length(2048).nullable(),
    customHostname: p.string().length(255).nullable(),
    trialStatus: p.string().length(32).default("notapplicable"),
    mergeRulesType: p.string().length(32).default("none"),
    /**
     * The version of the organization's team memberships: +1 per transaction that changes them
     * (see {@link nextMembershipVersion}), carried by the team events as `membershipVersion`.
     */
    membershipVersion: p.integer().default(0),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class Organization extends OrganizationSchema.class {}
OrganizationSchema.setClass(Organization);

/** The settings an admin may change. */
export type OrganizationChanges = Partial<
  Pick<Organization, "title" | "emailDomains" | "hostname" | "defaultRole" | "defaultContentSiteId" | "logoUrl" | "sso" | "ai" | "inviteLinks">
>;

function sameValue(a: unknown, b: unknown): boolean {
  return Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((value, i) => value === b[i]) : a === b;
}

/**
 * Applies validated settings to the organization; `updatedAt` moves (to the clock's time) only
 * when a value really changed. Answers each changed field with its old and new value (what
 * `organization.updated` carries). A function, not a method: relations load the organization
 * typed by its schema (e.g. `member.organization`).
 */
export function updateOrganizationSettings(
  organization: OrganizationChanges & { updatedAt: Date },
  changes: OrganizationChanges,
  clock: Clock,
): Record<string, { from: unknown; to: unknown }> {
  const changed: Record<string, { from: unknown; to: unknown }> = {};
  for (const [key, value] of Object.entries(changes) as [keyof OrganizationChanges, unknown][]) {
    if (!sameValue(organization[key], value)) changed[key] = { from: organization[key], to: value };
  }
  if (Object.keys(changed).length > 0) Object.assign(organization, changes, { updatedAt: clock() });
  return changed;
}

/**
 * Locks the organization row for the rest of the transaction. Every change that may drop the
 * number of admins takes this lock first, so two concurrent demotions cannot both see "another
 * admin remains" and leave the organization without one.
 */
export async function lockOrganization(em: EntityManager, organizationId: string): Promise<void> {
  await findOwned(em, Organization, {}, organizationId, { lock: true });
}

const versionsOf = new WeakMap<EntityManager, Map<string, number>>();

/**
 * The organization's next team-membership version, for the events of a transaction that changes
 * its team memberships (added, removed, team deleted, member removed). The first call in a
 * transaction increments it, which takes the organization's row lock until commit: a concurrent
 * change waits, so versions follow commit order. Call it before reading the memberships the
 * change depends on (what is read after the lock includes every earlier commit). Later calls in
 * the same transaction answer the same version: each (team, user) changes at most once in one.
 */
export async function nextMembershipVersion(tx: EntityManager, organizationId: string): Promise<number> {
  let versions = versionsOf.get(tx);
  if (!versions) versionsOf.set(tx, (versions = new Map<string, number>()));
  const known = versions.get(organizationId);
  if (known !== undefined) return known;
  const [row] = await queryRows(tx, sql<{ membership_version: number }>`update organizations set membership_version = membership_version + 1 where id = ${organizationId} returning membership_version`);
  if (!row) throw AppError.notFound("Organization");
  const version = Number(row.membership_version);
  versions.set(organizationId, version);
  return version;
}
