import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, executeStatement, queryRows, sql } from "@imprint/runtime";
import { isId } from "../../access/index.js";
import { Collection } from "../domain/collection.js";
import { positionBetween } from "../domain/ordering.js";
import { Space } from "../domain/space.js";

/** A sibling named by a move's `position` (GitBook's `{type: "space", space}` or `{type: "collection", collection}`). */
export type SiblingPointer = { kind: "space"; id: string } | { kind: "collection"; id: string };

export interface PositionInput {
  before?: SiblingPointer | undefined;
  after?: SiblingPointer | undefined;
}

// Stands for "exclude nothing" in `id <> ?`.
const NO_ID = "00000000-0000-0000-0000-000000000000";

/**
 * Serializes placements under one parent for the rest of the transaction, so two concurrent moves
 * never compute the same key between the same neighbours.
 */
export async function lockSiblings(em: EntityManager, organizationId: string, parentId: string | null): Promise<void> {
  await executeStatement(em, sql`select pg_advisory_xact_lock(hashtextextended(${`content-siblings:${organizationId}:${parentId ?? "top"}`}, 0))`);
}

/** Spaces and collections under one parent share one order; `op` picks the neighbouring key. */
async function neighbourKey(
  em: EntityManager,
  where: { organizationId: string; parentId: string | null; excludeId: string | null },
  bound: { op: "<" | ">"; key: string } | null,
): Promise<string | null> {
  const aggregate = bound?.op === ">" ? "min" : "max";
  const condition = bound ? sql`and position ${sql.raw(bound.op)} ${bound.key}` : sql``;
  const neighbour = (table: string) =>
    sql`select ${sql.raw(aggregate)}(position) from ${sql.table(table)} where organization_id = ${where.organizationId} and parent_id is not distinct from ${where.parentId}::uuid and id <> ${where.excludeId ?? NO_ID} ${condition}`;
  const [row] = await queryRows(
    em,
    sql<{ key: string | null }>`select ${sql.raw(aggregate === "min" ? "least" : "greatest")}((${neighbour("spaces")}), (${neighbour("collections")})) as key`,
  );
  return row?.key ?? null;
}

/** A key after every current child of `parentId` (call under {@link lockSiblings}). */
export async function positionAtEnd(em: EntityManager, organizationId: string, parentId: string | null, excludeId: string | null = null): Promise<string> {
  return positionBetween(await neighbourKey(em, { organizationId, parentId, excludeId }, null), null);
}

/** Takes the siblings' lock and answers a key after every current child: where a new or arriving item goes. */
export async function placeAtEnd(em: EntityManager, organizationId: string, parentId: string | null, excludeId: string | null = null): Promise<string> {
  await lockSiblings(em, organizationId, parentId);
  return positionAtEnd(em, organizationId, parentId, excludeId);
}

async function loadSibling(em: EntityManager, pointer: SiblingPointer): Promise<{ organizationId: string; parentId: string | null; position: string } | null> {
  if (!isId(pointer.id)) return null;
  const fields = ["organizationId", "parentId", "position"] as const;
  const row =
    pointer.kind === "space"
      ? await em.findOne(Space, { id: pointer.id, deletedAt: null }, { fields: [...fields] })
      : await em.findOne(Collection, { id: pointer.id }, { fields: [...fields] });
  return row ? { organizationId: row.organizationId, parentId: row.parentId ?? null, position: row.position } : null;
}

/**
 * The key for an item placed among the children of `parentId` as `position` asks (at the end
 * when it names no sibling). Call under {@link lockSiblings} of that parent.
 */
export async function resolvePosition(
  em: EntityManager,
  input: { organizationId: string; parentId: string | null; position: PositionInput | undefined; movingId: string | null },
): Promise<string> {
  const { before, after } = input.position ?? {};
  if (before && after) throw AppError.invalidArgument("position: give either before or after, not both");
  const pointer = before ?? after;
  if (!pointer) return positionAtEnd(em, input.organizationId, input.parentId, input.movingId);
  const field = `position.${before ? "before" : "after"}`;
  if (pointer.id === input.movingId) throw AppError.invalidArgument(`${field}: cannot place an item relative to itself`);
  const sibling = await loadSibling(em, pointer);
  if (!sibling || sibling.organizationId !== input.organizationId || sibling.parentId !== input.parentId) {
    throw AppError.invalidArgument(`${field}: no such ${pointer.kind} among the items of the target ${input.parentId ? "collection" : "top level"}`);
  }
  const scope = { organizationId: input.organizationId, parentId: input.parentId, excludeId: input.movingId };
  if (before) return positionBetween(await neighbourKey(em, scope, { op: "<", key: sibling.position }), sibling.position);
  return positionBetween(sibling.position, await neighbourKey(em, scope, { op: ">", key: sibling.position }));
}

/** Where a move without an explicit parent goes: the parent of the sibling it is placed next to. */
export async function parentOfPointer(em: EntityManager, position: PositionInput | undefined): Promise<string | null | undefined> {
  const pointer = position?.before ?? position?.after;
  if (!pointer) return undefined;
  const sibling = await loadSibling(em, pointer);
  return sibling ? sibling.parentId : undefined;
}
