import { jwtVerify, SignJWT } from "jose";

/**
 * A member's visitor token: a short-lived JWT (HS256, the organization's visitor key) of who the
 * member is in the organization, which the reader accepts on the organization's `visitor-auth`
 * sites, so members read their own protected docs without a second sign-in.
 */
export const MEMBER_TOKEN_TTL_SECONDS = 60 * 60;
export const MEMBER_TOKEN_ISSUER = "imprint";

/** The audience naming the organization: a token of one organization is refused by another's sites. */
export function memberTokenAudience(organizationId: string): string {
  return `imprint:organization:${organizationId}`;
}

/** The claims of a member's visitor token. */
export interface MemberClaims {
  /** The user's id (`sub`). */
  userId: string;
  email: string;
  /** The member's role by its REST name (admin, create, review, edit, comment, read). */
  role: string;
  /** The teams the member is in (none until teams exist). */
  teams: string[];
}

const secret = (key: string) => Buffer.from(key, "base64url");

export async function signMemberToken(key: string, organizationId: string, claims: MemberClaims, now: Date): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ email: claims.email, role: claims.role, teams: claims.teams })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.userId)
    .setIssuer(MEMBER_TOKEN_ISSUER)
    .setAudience(memberTokenAudience(organizationId))
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + MEMBER_TOKEN_TTL_SECONDS)
    .sign(secret(key));
}

/** The claims of a token the key signed for the organization, still valid at `now`; null for anything else. */
export async function verifyMemberToken(key: string, organizationId: string, token: string, now: Date): Promise<(MemberClaims & { expiresAt: Date }) | null> {
  try {
    const { payload } = await jwtVerify(token, secret(key), {
      algorithms: ["HS256"],
      issuer: MEMBER_TOKEN_ISSUER,
      audience: memberTokenAudience(organizationId),
      currentDate: now,
      requiredClaims: ["sub", "exp"],
    });
    const teams = Array.isArray(payload.teams) ? payload.teams.filter((team): team is string => typeof team === "string") : [];
    if (typeof payload.email !== "string" || typeof payload.role !== "string" || !payload.sub || !payload.exp) return null;
    return { userId: payload.sub, email: payload.email, role: payload.role, teams, expiresAt: new Date(payload.exp * 1000) };
  } catch {
    return null;
  }
}
