import { randomBytes } from "node:crypto";
import { defineEntity, p } from "@mikro-orm/postgresql";
import { AppError } from "@imprint/runtime";
import { characterCount } from "./text.js";

export const NAME_MAX = 50;

/**
 * A secret link to a site: its key (random, unguessable) is the path segment after the site's
 * base path. Only an active link resolves; a deleted one is gone.
 */
export const ShareLinkSchema = defineEntity({
  name: "ShareLink",
  tableName: "share_links",
  properties: {
    id: p.uuid().primary(),
    siteId: p.uuid(),
    organizationId: p.uuid(),
    name: p.string().length(NAME_MAX),
    key: p.string().length(64).unique(),
    active: p.boolean().default(true),
    createdAt: p.datetime(),
  },
  indexes: [{ properties: ["siteId", "createdAt", "id"], name: "share_links_site_created_at_index" }],
});
export class ShareLink extends ShareLinkSchema.class {}
ShareLinkSchema.setClass(ShareLink);

export function validateName(name: string): string {
  if (characterCount(name) > NAME_MAX) throw AppError.invalidArgument(`name: must be at most ${NAME_MAX} characters`);
  return name;
}

/** A new secret key: 24 random bytes, URL-safe (32 characters). */
export function newShareKey(): string {
  return randomBytes(24).toString("base64url");
}
