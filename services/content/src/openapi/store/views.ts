import type { EntityManager } from "@mikro-orm/postgresql";
import { OpenApiSpecVersion, type OpenApiSpec } from "../domain/entities.js";
import type { OpenApiSpecPermissions } from "../domain/permissions.js";

/** A version without its (possibly large) text and document: what responses carry. */
export type OpenApiVersionSummary = Pick<
  OpenApiSpecVersion,
  "id" | "sourceUrl" | "contentHash" | "title" | "apiVersion" | "specification" | "format" | "sizeBytes" | "createdAt"
>;

/** A specification with its latest kept version and what the caller may do on it. */
export interface OpenApiSpecView {
  spec: OpenApiSpec;
  lastVersion: OpenApiVersionSummary | null;
  permissions: OpenApiSpecPermissions;
}

/** The columns of a version summary. */
export const VERSION_SUMMARY_FIELDS = ["id", "sourceUrl", "contentHash", "title", "apiVersion", "specification", "format", "sizeBytes", "createdAt"] as const;

/** Summaries of the given versions, by id, in one query. */
export async function loadVersionSummaries(em: EntityManager, ids: readonly string[]): Promise<Map<string, OpenApiVersionSummary>> {
  if (ids.length === 0) return new Map();
  const rows = await em.find(OpenApiSpecVersion, { id: { $in: [...new Set(ids)] } }, { fields: [...VERSION_SUMMARY_FIELDS] });
  return new Map(rows.map((row) => [row.id, row]));
}

export async function openApiSpecViews(em: EntityManager, specs: readonly OpenApiSpec[], permissions: OpenApiSpecPermissions): Promise<OpenApiSpecView[]> {
  const versions = await loadVersionSummaries(
    em,
    specs.flatMap((spec) => (spec.lastVersionId ? [spec.lastVersionId] : [])),
  );
  return specs.map((spec) => ({ spec, lastVersion: (spec.lastVersionId && versions.get(spec.lastVersionId)) || null, permissions }));
}

export async function openApiSpecView(em: EntityManager, spec: OpenApiSpec, permissions: OpenApiSpecPermissions): Promise<OpenApiSpecView> {
  const [view] = await openApiSpecViews(em, [spec], permissions);
  return view!;
}
