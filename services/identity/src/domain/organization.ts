import { defineEntity, p } from "@mikro-orm/postgresql";
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
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export class Organization extends OrganizationSchema.class {}
OrganizationSchema.setClass(Organization);
