import { createIdentityClients } from "@imprint/runtime";
import { gatewayPost } from "./editing.js";
import { runLoad, type LoadResult } from "./load.js";

/**
 * The publishing figures of `npm run bench`: a site of 50 sections with 4 site-spaces each (200
 * spaces), built through the REST API as a client would, then `GET …/sites/{siteId}/published`
 * (the site, its whole structure and its customizations) driven at 32 connections, and, in the same
 * run and at the same concurrency, the reference `GET /v1/orgs/{id}` (one identity lookup).
 */

export interface PublishingTarget {
  gatewayUrl: string;
  identityGrpcAddress: string;
}

export interface PublishingBenchmarkSettings {
  sections: number;
  siteSpacesPerSection: number;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface PublishingFigures {
  sections: number;
  siteSpaces: number;
  connections: number;
  published: LoadResult;
  /** GET /v1/orgs/{id}, measured just before at the same concurrency. */
  reference: LoadResult;
}

type Log = (message: string) => void;

const describe = (result: LoadResult) =>
  `${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}`;

export async function runPublishingBenchmark(target: PublishingTarget, settings: PublishingBenchmarkSettings, log: Log): Promise<PublishingFigures> {
  const identity = createIdentityClients(target.identityGrpcAddress, { defaultTimeoutMs: 15_000 });
  try {
    const organization = await identity.organizations.createOrganization({
      title: "Publishing Benchmark",
      ownerEmail: "bench-publishing@example.com",
      ownerDisplayName: "Bench",
      ownerToken: "",
    });
    const orgId = organization.organizationId;
    const post = gatewayPost(target.gatewayUrl, organization.token);
    const total = settings.sections * settings.siteSpacesPerSection;
    log(`publishing: a site of ${settings.sections} sections × ${settings.siteSpacesPerSection} site-spaces (${total} spaces)`);
    const spaces: string[] = [];
    for (let index = 0; index < total; index++) spaces.push((await post(`/v1/orgs/${orgId}/spaces`, { title: `Space ${index}` })).id as string);
    const site = await post(`/v1/orgs/${orgId}/sites`, { title: "Benchmark site" });
    const siteId = site.id as string;
    for (let section = 0; section < settings.sections; section++) {
      const first = spaces[section * settings.siteSpacesPerSection]!;
      const created = await post(`/v1/orgs/${orgId}/sites/${siteId}/sections`, { spaceId: first, title: `Section ${section}` });
      for (let variant = 1; variant < settings.siteSpacesPerSection; variant++) {
        await post(`/v1/orgs/${orgId}/sites/${siteId}/site-spaces`, {
          spaceId: spaces[section * settings.siteSpacesPerSection + variant]!,
          sectionId: created.id,
        });
      }
    }
    await post(`/v1/orgs/${orgId}/sites/${siteId}/publish`);

    const load = (path: string) =>
      runLoad({
        url: `${target.gatewayUrl}${path}`,
        token: organization.token,
        connections: settings.connections,
        durationSeconds: settings.durationSeconds,
        warmupSeconds: settings.warmupSeconds,
      });
    const reference = await load(`/v1/orgs/${orgId}`);
    log(`publishing: GET /v1/orgs/{id} at ${settings.connections} connections: ${describe(reference)}`);
    const published = await load(`/v1/orgs/${orgId}/sites/${siteId}/published`);
    log(`publishing: GET …/published at ${settings.connections} connections: ${describe(published)}`);
    return { sections: settings.sections, siteSpaces: total, connections: settings.connections, published, reference };
  } finally {
    identity.close();
  }
}
