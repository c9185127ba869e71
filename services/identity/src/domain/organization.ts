import { defineEntity, p } from "@mikro-orm/postgresql";
import type { Clock } from "@imprint/runtime";
import type { MergeRule } from "./merge-rules.js";
import { ROLES } from "./roles.js";

/**
 * An organization owns content and members. Fields mirror what the REST API's organization object
 * carries; billing and trial fields keep their defaults until a billing context exists.
 */
export const OrganizationSchema = defineEntity({
  name: "Organization",
  tableName: "organizations",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
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
    /** "none" or "rules" (then `mergeRules` all must pass for a change request to merge). */
    mergeRulesType: p.string().length(32).default("none"),
    mergeRules: p.json<MergeRule[]>().nullable(),
    /** How members may sign in to act in it (Imprint's): some of SIGN_IN_METHODS, all by default. */
    signInMethods: p.array().default(["password", "oidc", "saml"]),
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
  Pick<
    Organization,
    | "title"
    | "emailDomains"
    | "hostname"
    | "defaultRole"
    | "defaultContentSiteId"
    | "logoUrl"
    | "sso"
    | "ai"
    | "inviteLinks"
    | "mergeRulesType"
    | "mergeRules"
    | "signInMethods"
  >
>;

/** Arrays and JSON values (merge rules) compare by content. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
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
