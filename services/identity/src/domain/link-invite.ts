import { defineEntity, p } from "@mikro-orm/postgresql";
import { OrganizationSchema } from "./organization.js";
import { ROLES } from "./roles.js";

/** An invite link: users joining through it get `role` (null = guest). */
export const LinkInviteSchema = defineEntity({
  name: "LinkInvite",
  tableName: "link_invites",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    organization: p.manyToOne(OrganizationSchema).deleteRule("cascade").index(),
    role: p.enum(ROLES).nullable(),
    createdAt: p.datetime(),
  },
});
export class LinkInvite extends LinkInviteSchema.class {}
LinkInviteSchema.setClass(LinkInvite);
