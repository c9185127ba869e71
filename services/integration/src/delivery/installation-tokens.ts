import { MemberRole } from "@imprint/proto/identity/v1";
import { AppError, type Clock, type IdentityClients, CachedLoader } from "@imprint/runtime";
import type { Integration } from "../domain/integration.js";

/**
 * The role an installation token acts with: editing when the integration asks for a write scope,
 * reading otherwise. Identity's roles are the one permission model every service checks, so
 * scopes map onto them rather than being checked a second way.
 */
export function roleForScopes(scopes: readonly string[]): MemberRole {
  return scopes.some((scope) => scope.endsWith(":write")) ? MemberRole.MEMBER_ROLE_EDIT : MemberRole.MEMBER_ROLE_READ;
}

/** An installation token, when it expires, and the principal it acts as (identity's user of the installation or integration). */
export interface IssuedToken {
  token: string;
  expiresAt: Date;
  userId: string;
}

/** Principals whose token is kept at most; the least recently used go first. */
const MAX_TOKENS = 10_000;

/**
 * Installation tokens reused across script calls until half their lifetime is gone, so a render
 * or an event does not cost identity a token each time. Keyed by the principal (an installation,
 * or the integration itself in its owner organization) and the role the token acts with.
 */
export class InstallationTokens {
  private readonly tokens: CachedLoader<IssuedToken>;

  constructor(
    private readonly identity: IdentityClients,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
  ) {
    this.tokens = new CachedLoader<IssuedToken>({
      name: "installation tokens",
      maxEntries: MAX_TOKENS,
      freshUntil: (issued) => issued.expiresAt.getTime() - (ttlSeconds * 1000) / 2,
      now: () => clock().getTime(),
    });
  }

  async tokenFor(principal: { id: string; organizationId: string; integration: Pick<Integration, "name" | "title" | "scopes"> }): Promise<IssuedToken> {
    const role = roleForScopes(principal.integration.scopes);
    // Calls for one principal at once share one issue (the loader's single flight): identity
    // creates a principal once, and a second concurrent first issue would be refused as a conflict.
    return this.tokens.load(InstallationTokens.key(principal.id, role), () => this.request(principal, role));
  }

  /** A new token (kept for later calls too), for callers that want their own (GitBook's installation token endpoint). */
  async issue(principal: { id: string; organizationId: string; integration: Pick<Integration, "name" | "title"> }, role: MemberRole): Promise<IssuedToken> {
    const issued = await this.request(principal, role);
    this.tokens.set(InstallationTokens.key(principal.id, role), issued);
    return issued;
  }

  /** Forgets an installation's tokens (it was uninstalled; identity revoked them). */
  forget(principalId: string): void {
    this.tokens.invalidatePrefix(`${principalId}/`);
  }

  private static key(principalId: string, role: MemberRole): string {
    return `${principalId}/${role}`;
  }

  private async request(
    principal: { id: string; organizationId: string; integration: Pick<Integration, "name" | "title"> },
    role: MemberRole,
  ): Promise<IssuedToken> {
    const request = {
      organizationId: principal.organizationId,
      installationId: principal.id,
      integrationName: principal.integration.name,
      integrationTitle: principal.integration.title,
      role,
      ttlSeconds: this.ttlSeconds,
    };
    let issued;
    try {
      issued = await this.identity.tokens.issueInstallationToken(request);
    } catch (error) {
      // Another replica created the principal at the same moment: it exists now.
      if (!(error instanceof AppError && error.code === "conflict")) throw error;
      issued = await this.identity.tokens.issueInstallationToken(request);
    }
    return { token: issued.token, expiresAt: issued.expiresAt ?? new Date(this.clock().getTime() + this.ttlSeconds * 1000), userId: issued.userId };
  }
}
