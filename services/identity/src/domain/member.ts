import { defineEntity, p } from "@mikro-orm/postgresql";
import { OrganizationSchema } from "./organization.js";
import { ROLES } from "./roles.js";
import { UserSchema } from "./user.js";

/**
 * A user's membership of an organization. The indexes serve the membership check that starts
 * every organization-scoped call (organization + user) and each ListMembers sort.
 */
export const MemberSchema = defineEntity({
  name: "Member",
  tableName: "members",
  properties: {
    id: p.uuid().primary().onCreate(() => crypto.randomUUID()),
    organization: p.manyToOne(OrganizationSchema).deleteRule("cascade"),
    user: p.manyToOne(UserSchema).deleteRule("cascade").index(),
    /** null = guest. */
    role: p.enum(ROLES).nullable(),
    disabled: p.boolean().default(false),
    sso: p.boolean().default(false),
    joinedAt: p.datetime(),
    lastSeenAt: p.datetime().nullable(),
    /**
     * Lower-cased copy of the user's display name, so members sort and page by name with one
     * index instead of a join. Users have no rename operation yet; one must refresh this column.
     */
    sortName: p.string().length(255),
  },
  uniques: [{ properties: ["organization", "user"], name: "members_organization_user_unique" }],
  indexes: [
    { properties: ["organization", "joinedAt", "id"], name: "members_organization_joined_at_index" },
    { properties: ["organization", "lastSeenAt", "id"], name: "members_organization_last_seen_at_index" },
    { properties: ["organization", "sortName", "id"], name: "members_organization_sort_name_index" },
    { properties: ["organization", "role"], name: "members_organization_role_index" },
  ],
});
export class Member extends MemberSchema.class {}
MemberSchema.setClass(Member);
