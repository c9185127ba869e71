import type { PlainObject } from "./types.js";

/**
 * The IntegrationEnvironment a script receives with every dispatch (the `environment` field):
 * `@gitbook/runtime` builds its API clients from `apiEndpoint` and `apiTokens` (the installation's
 * token when there is one, else the integration's) and names itself
 * `integration-<integration.name>/<integration.version>`; handlers read the installation's
 * configuration from `installation` / `spaceInstallation` / `siteInstallation`.
 */

/**
 * GitBook's Integration, IntegrationInstallation and IntegrationEnvironment{Space,Site}Installation
 * objects, built by the caller (as the REST API shows them): the runtime reads the integration's
 * `name` and `version` and the installations' `configuration`.
 */
export type GitBookObject = PlainObject;

export type SigningSecrets = {
  integration: string;
  installation?: string;
  spaceInstallation?: string;
  siteInstallation?: string;
};

// Type literals rather than interfaces, so an environment is also a Record<string, unknown>.
export type IntegrationEnvironment = {
  apiEndpoint: string;
  apiTokens: { integration: string; installation?: string };
  integration: GitBookObject;
  installation?: GitBookObject;
  spaceInstallation?: GitBookObject;
  siteInstallation?: GitBookObject;
  /** The integration's secrets (at most 20 strings, GitBook's IntegrationSecrets). */
  secrets: Record<string, string>;
  signingSecrets: SigningSecrets;
  /** Deprecated by GitBook (apiTokens); still sent for scripts built on older runtimes. */
  authToken?: string;
  /** Deprecated by GitBook (signingSecrets.integration); still sent for the same reason. */
  signingSecret?: string;
  network?: { proxy?: boolean };
};

export interface EnvironmentInput {
  apiEndpoint: string;
  integration: GitBookObject;
  installation?: GitBookObject;
  spaceInstallation?: GitBookObject;
  siteInstallation?: GitBookObject;
  secrets: Record<string, string>;
  signingSecrets: SigningSecrets;
  apiTokens: { integration: string; installation?: string };
  /** The token `authToken` carries: the installation's when there is one, as the runtime's own choice. */
  authToken: string;
  network?: { proxy?: boolean };
}

/** The environment of one dispatch, with the deprecated fields older runtimes still read. */
export function integrationEnvironment(input: EnvironmentInput): IntegrationEnvironment {
  const environment: IntegrationEnvironment = {
    apiEndpoint: input.apiEndpoint,
    apiTokens: input.apiTokens.installation === undefined ? { integration: input.apiTokens.integration } : { ...input.apiTokens },
    integration: input.integration,
    secrets: input.secrets,
    signingSecrets: Object.fromEntries(Object.entries(input.signingSecrets).filter(([, value]) => value !== undefined)) as SigningSecrets,
    authToken: input.authToken,
    signingSecret: input.signingSecrets.integration,
  };
  if (input.installation) environment.installation = input.installation;
  if (input.spaceInstallation) environment.spaceInstallation = input.spaceInstallation;
  if (input.siteInstallation) environment.siteInstallation = input.siteInstallation;
  if (input.network) environment.network = input.network;
  return environment;
}
