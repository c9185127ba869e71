import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import Provider from "oidc-provider";

/** Someone the test IdP signs in at its next login. */
export interface IdpPerson {
  email: string;
  verified: boolean;
  /** Their display name in the ID token (`name`); "Person <id>" when absent. */
  name?: string;
}

/** The client Imprint is registered as at the test IdP. */
export const IDP_CLIENT_ID = "imprint";
export const IDP_CLIENT_SECRET = "a client secret the IdP and Imprint share";

export interface TestIdp {
  issuer: string;
  /** Who the IdP signs in at its next login (its login is answered programmatically, with no form). */
  nextLogin: IdpPerson;
  /** Rewrites the claims of the next ID tokens the IdP answers (re-signed with its own key); undefined: as issued. */
  rewriteIdToken: ((claims: Record<string, unknown>) => Record<string, unknown>) | undefined;
  stop(): Promise<void>;
}

/**
 * A real OpenID provider (`oidc-provider`) on loopback, with Imprint registered as the client
 * sending browsers back to `redirectUri` (authorization code, client_secret_basic). Logins and
 * consents are answered without a form, for whoever `nextLogin` names at that moment.
 */
export async function startTestIdp(redirectUri: string, options: { idTokenTtlSeconds?: number } = {}): Promise<TestIdp> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: "idp-key", alg: "RS256", use: "sig" };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, IdpPerson>();
  const idp: TestIdp = {
    issuer,
    nextLogin: { email: "nobody@example.test", verified: true },
    rewriteIdToken: undefined,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: IDP_CLIENT_ID,
        client_secret: IDP_CLIENT_SECRET,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [jwk] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    // The e-mail in the ID token itself, not only at the userinfo endpoint.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: { IdToken: options.idTokenTtlSeconds ?? 60 },
    cookies: { keys: ["idp-cookie-key"] },
    findAccount: (_ctx, id) => {
      const person = accounts.get(id);
      return person
        ? {
            accountId: id,
            claims: () => ({ sub: id, email: person.email, email_verified: person.verified, name: person.name ?? `Person ${id.slice(0, 8)}` }),
          }
        : undefined;
    },
  });
  // A misbehaving IdP, for refusals: its token endpoint's ID token rewritten and signed again with its key.
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === "/token" && idp.rewriteIdToken && body?.id_token) {
      const claims = idp.rewriteIdToken(decodeJwt(body.id_token));
      body.id_token = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "idp-key" }).sign(privateKey);
    }
  });
  const handle = provider.callback();
  server.on("request", (req, res) => {
    if (!req.url?.startsWith("/interaction/")) {
      void handle(req, res);
      return;
    }
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === "login") {
        const accountId = crypto.randomUUID();
        accounts.set(accountId, idp.nextLogin);
        await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope("openid email profile");
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  return idp;
}
