import type { SpacePublicationServiceService } from "@imprint/proto/publishing/v1/space_publications";
import type { EntityManager } from "@mikro-orm/postgresql";
import type { AsyncImplementation } from "@imprint/runtime";
import type { UseCaseDeps } from "../deps.js";
import { announceSpacePublications } from "../use-cases/spaces/announce-space-publications.js";

export const SPACE_PUBLICATION_SERVICE_NAME = "imprint.publishing.v1.SpacePublicationService";

/** Thin transport: one use case per call on a fresh EntityManager, its result mapped to the response. */
export function spacePublicationServiceImplementation(em: () => EntityManager, deps: UseCaseDeps): AsyncImplementation<typeof SpacePublicationServiceService> {
  return {
    announceSpacePublications: async (request) => ({ spaces: await announceSpacePublications(em(), { spaceId: request.spaceId }, deps) }),
  };
}
