import { defineEntity, p } from "@mikro-orm/postgresql";
import { LEVELS } from "./levels.js";
import { GRANT_TARGETS } from "./team-grants.js";

/**
 * A person's level on a space or a collection (GitBook's user permissions, or an invite link's
 * grant made when its guest joined). Like a team's grant it adds to what the member has by their
 * own role, the item's default level and their teams' grants, never takes away; on a collection it
 * reaches every collection and space inside it. A member's grants go when they leave the
 * organization; a grant of another organization's user (an item transferred since) counts for nobody.
 */
export const UserGrantSchema = defineEntity({
  name: "UserGrant",
  tableName: "user_grants",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organizationId: p.uuid(),
    userId: p.uuid(),
    targetType: p.enum(GRANT_TARGETS),
    targetId: p.uuid(),
    level: p.enum(LEVELS),
    /**
     * identity's `membershipVersion` of the join whose invite link made it (0 for a grant made
     * through the API): the member's removal from the organization with a version not older takes it away.
     */
    version: p.integer().default(0),
    createdAt: p.datetime(),
  },
  uniques: [{ properties: ["targetType", "targetId", "userId"], name: "user_grants_target_user_unique" }],
  indexes: [{ properties: ["organizationId", "userId"], name: "user_grants_organization_user_index" }],
});
export class UserGrant extends UserGrantSchema.class {}
UserGrantSchema.setClass(UserGrant);
