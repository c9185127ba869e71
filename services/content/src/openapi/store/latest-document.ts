import type { EntityManager } from "@mikro-orm/postgresql";
import { findByKey, isId } from "@imprint/runtime";
import { OpenApiSpec, OpenApiSpecVersion } from "../domain/entities.js";
import { isOpenApiSlug } from "../domain/validation.js";

/** A specification's latest kept version: its parsed document. */
export interface LatestOpenApiDocument {
  slug: string;
  versionId: string;
  document: Record<string, unknown>;
}

/**
 * The latest kept version of the organization's specification named by `spec`: its slug, else its
 * source URL (the oldest specification with that source when several share it). Null when none
 * has it or none of its versions was kept yet. Reads no caller: the published read decides.
 */
export async function findLatestOpenApiDocument(em: EntityManager, organizationId: string, spec: string): Promise<LatestOpenApiDocument | null> {
  const found =
    (isOpenApiSlug(spec) ? await findByKey(em, OpenApiSpec, { organizationId, slug: spec }) : null) ??
    (await em.findOne(OpenApiSpec, { organizationId, sourceUrl: spec }, { orderBy: { createdAt: "asc" } }));
  if (!found?.lastVersionId || !isId(found.lastVersionId)) return null;
  const version = await em.findOne(OpenApiSpecVersion, { id: found.lastVersionId, specId: found.id }, { fields: ["id", "document"] });
  return version ? { slug: found.slug, versionId: version.id, document: version.document } : null;
}
