import { forkEm, type AsyncImplementation } from "@imprint/runtime";
import type { PublishedContentServiceService } from "@imprint/proto/content/v1/published";
import type { MikroORM } from "@mikro-orm/postgresql";
import { getPublishedFile, getPublishedOpenApiSpec, getPublishedPage, getPublishedSpace, type ExternalOpenApiFetch } from "../use-cases/read-published.js";
import { pageTreeToProto } from "./mappers.js";
import type { PublishedGitSourceOf, RevisionDeps } from "../../deps.js";

/** Distinct pairs of spaces warned about (a page including another organization's reusable content), at most. */
const MAX_FOREIGN_INCLUDE_WARNINGS = 1_000;

export const PUBLISHED_CONTENT_SERVICE_NAME = "imprint.content.v1.PublishedContentService";

/**
 * Thin transport of the published read (the reader's): one use case per call on a fresh
 * EntityManager; a space's Git source (for edit links) from Git sync's port.
 */
export function publishedContentServiceImplementation(
  orm: MikroORM,
  deps: RevisionDeps,
  fetchExternal: ExternalOpenApiFetch,
  gitSourceOf: PublishedGitSourceOf,
): AsyncImplementation<typeof PublishedContentServiceService> {
  const em = () => forkEm(orm);
  // Once per process for each pair of spaces (bounded: pages cannot grow it without end); every read of the page shows nothing there.
  const warnedForeignIncludes = new Set<string>();
  const warnForeignInclude = (spaceId: string, includedSpaceId: string) => {
    const key = `${spaceId}/${includedSpaceId}`;
    if (warnedForeignIncludes.has(key) || warnedForeignIncludes.size >= MAX_FOREIGN_INCLUDE_WARNINGS) return;
    warnedForeignIncludes.add(key);
    deps.logger.warn("a published page includes reusable content of another organization's space: it shows nothing", {
      space_id: spaceId,
      included_space_id: includedSpaceId,
    });
  };
  return {
    getPublishedSpace: async (request) => {
      const published = await getPublishedSpace(
        em(),
        { spaceId: request.spaceId, knownRevisionId: request.knownRevisionId, revisionId: request.revisionId },
        deps,
      );
      // Also when not modified: like the language, it can change without a revision.
      const gitSource = await gitSourceOf(em(), published.space.id);
      return {
        ...(gitSource ? { gitSource } : {}),
        spaceId: published.space.id,
        organizationId: published.space.organizationId,
        title: published.space.title,
        emoji: published.space.emoji,
        revisionId: published.revision.id,
        revisionCreatedAt: published.revision.committedAt ?? published.revision.createdAt,
        pages: published.pages.map((tree) => pageTreeToProto(tree, { metadata: false })),
        notModified: published.notModified,
        language: published.space.language ?? "",
      };
    },

    getPublishedPage: async (request) =>
      getPublishedPage(em(), { spaceId: request.spaceId, revisionId: request.revisionId, pageId: request.pageId }, deps, warnForeignInclude),

    getPublishedFile: async (request) => getPublishedFile(em(), { spaceId: request.spaceId, revisionId: request.revisionId, fileId: request.fileId }, deps),

    getPublishedOpenApiSpec: async (request) => {
      const latest = await getPublishedOpenApiSpec(
        em(),
        { spaceId: request.spaceId, spec: request.spec, fileId: request.fileId, revisionId: request.revisionId },
        deps,
        fetchExternal,
      );
      return { slug: latest.slug, versionId: latest.versionId, documentJson: JSON.stringify(latest.document) };
    },
  };
}
