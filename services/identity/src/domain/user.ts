import { defineEntity, p } from "@mikro-orm/postgresql";

/** A person who signs in and holds API tokens. */
export const UserSchema = defineEntity({
  name: "User",
  tableName: "users",
  properties: {
    id: p.uuid().primary().onCreate(() => crypto.randomUUID()),
    /** Stored lower-cased, which makes the unique index case-insensitive. */
    email: p.string().length(320).unique(),
    displayName: p.string().length(255),
    photoUrl: p.string().length(2048).nullable(),
    createdAt: p.datetime(),
  },
});
export class User extends UserSchema.class {}
UserSchema.setClass(User);
