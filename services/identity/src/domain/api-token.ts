import { defineEntity, p } from "@mikro-orm/postgresql";
import type { Clock } from "@imprint/runtime";
import { UserSchema } from "./user.js";

/** An API token. Only the SHA-256 of the secret is kept; the secret is shown once, at issue. */
export const ApiTokenSchema = defineEntity({
  name: "ApiToken",
  tableName: "api_tokens",
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => crypto.randomUUID()),
    user: p.manyToOne(UserSchema).deleteRule("cascade").index(),
    label: p.string().length(255).nullable(),
    /** Hex SHA-256 of the secret: AuthenticateToken is one lookup on this unique index. */
    tokenHash: p.string().length(64).unique(),
    /** Last 4 characters of the secret, to tell tokens apart in listings. */
    lastFour: p.string().length(4),
    createdAt: p.datetime(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    /** When the token stops working (tokens issued through SSO are short-lived); null: never. */
    expiresAt: p.datetime().nullable(),
    /** The SAML provider a token was issued through (a sign-in); null for other tokens. */
    samlProviderId: p.uuid().nullable(),
  },
});
export class ApiToken extends ApiTokenSchema.class {
  /** Revokes the token at the clock's time; false when it already was (the first revocation time stays). */
  revoke(clock: Clock): boolean {
    if (this.revokedAt) return false;
    this.revokedAt = clock();
    return true;
  }
}
ApiTokenSchema.setClass(ApiToken);
