import type { EntityManager } from "@mikro-orm/postgresql";
import { isId, queryRows, sql, toDateOrNull } from "@imprint/runtime";
import type { Space } from "../domain/space.js";

/** The fields of a space that reading its content needs: access, the current revision, the title an export is named by. */
export type SpaceSummary = Readonly<
  Pick<Space, "id" | "organizationId" | "parentId" | "title" | "emoji" | "language" | "editMode" | "defaultLevel" | "revisionId" | "deletedAt">
>;

interface SpaceSummaryRow {
  id: string;
  organization_id: string;
  parent_id: string | null;
  title: string;
  emoji: string;
  language: string | null;
  edit_mode: Space["editMode"];
  default_level: Space["defaultLevel"];
  revision_id: string | null;
  deleted_at: Date | string | null;
}

/**
 * The space's summary, else null (an id that is no uuid included). Every content read starts
 * here, so it is one indexed statement mapped by hand: the ORM's query building, hydration and
 * identity map cost more than the lookup itself, and nothing here is written back.
 */
export async function findSpaceSummary(em: EntityManager, spaceId: string): Promise<SpaceSummary | null> {
  if (!isId(spaceId)) return null;
  const [row] = await queryRows<SpaceSummaryRow>(
    em,
    sql`select id, organization_id, parent_id, title, emoji, language, edit_mode, default_level, revision_id, deleted_at
          from spaces where id = ${spaceId}`,
  );
  if (!row) return null;
  return {
    id: row.id,
    organizationId: row.organization_id,
    parentId: row.parent_id,
    title: row.title,
    emoji: row.emoji,
    language: row.language,
    editMode: row.edit_mode,
    defaultLevel: row.default_level,
    revisionId: row.revision_id,
    deletedAt: toDateOrNull(row.deleted_at),
  };
}
