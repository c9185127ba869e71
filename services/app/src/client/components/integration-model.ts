// What the integrations pages read from the API (GitBook's Integration and IntegrationInstallation).

export interface Integration {
  name: string;
  title: string;
  description: string;
  summary?: string;
  target: string;
  scopes: string[];
  visibility: string;
  permissions: { admin: boolean; install: boolean };
  urls: { app: string };
}

export interface Installation {
  id: string;
  status: string;
  space_selection: string;
  site_selection: string;
  spaces: number;
  createdAt: string;
}

/** `GET /v1/orgs/{org}/installations`: each installation with its integration. */
export interface OrganizationInstallation {
  installation: Installation;
  integration: Integration;
}

/** An installation's status in words. */
export function statusLabel(status: string): string {
  if (status === "active") return "Active";
  if (status === "pending") return "Waiting for its configuration";
  if (status === "paused") return "Paused";
  return status;
}

/** Where an installation hears events, in words. */
export function selectionLabel(selection: string, what: "spaces" | "sites"): string {
  return selection === "all" ? `every ${what === "spaces" ? "space" : "site"}` : `the ${what} it is installed on`;
}
