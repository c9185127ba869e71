import { randomBytes } from "node:crypto";
import { defineEntity, p } from "@mikro-orm/postgresql";

/**
 * An organization's key signing its members' visitor tokens (the organization ping's
 * `serviceVisitorClaims`): random, created when first needed, never shown. The reader verifies
 * those tokens through publishing, so members read their organization's `visitor-auth` sites.
 */
export const OrganizationVisitorKeySchema = defineEntity({
  name: "OrganizationVisitorKey",
  tableName: "organization_visitor_keys",
  properties: {
    organizationId: p.uuid().primary(),
    /** 32 random bytes, base64url. */
    key: p.string().length(64),
    createdAt: p.datetime(),
  },
});
export class OrganizationVisitorKey extends OrganizationVisitorKeySchema.class {}
OrganizationVisitorKeySchema.setClass(OrganizationVisitorKey);

export function newOrganizationVisitorKey(): string {
  return randomBytes(32).toString("base64url");
}
