import type { EntityManager } from "@mikro-orm/postgresql";
import { AppError, findPage, type IdentityClients, isId, type PageRequestLike, queryRows, sql } from "@imprint/runtime";
import { changeGrant, type CallerInput, type Level, TeamGrant, type GrantTarget } from "../../access/index.js";
import { requireTarget } from "./shared/grant-targets.js";
import type { UseCaseDeps } from "../../deps.js";

/** What managing teams' grants needs: access checks, and identity to check that a team is the organization's. */
export interface TeamPermissionDeps extends UseCaseDeps {
  identity: { teams: Pick<IdentityClients["teams"], "batchGetTeams"> };
}

/** The teams granted a level on a space or a collection, oldest grant first. */
export async function listTeamPermissions(
  em: EntityManager,
  input: { caller: CallerInput | undefined; target: GrantTarget; targetId: string; page: PageRequestLike | undefined },
  deps: UseCaseDeps,
): Promise<{ organizationId: string; items: TeamGrant[]; nextPageToken: string; totalCount: number }> {
  const item = await requireTarget(em, deps, input.caller, input.target, input.targetId, "view");
  const page = await findPage(
    em,
    TeamGrant,
    { targetType: input.target, targetId: item.id },
    { fields: ["createdAt", "id"], direction: "asc", dateFields: ["createdAt"] },
    input.page,
  );
  return { organizationId: item.organizationId, ...page };
}

/** Grants a team of the item's organization a level on it, or changes it (admins of the item); null takes the grant away. */
export async function setTeamPermission(
  em: EntityManager,
  input: { caller: CallerInput | undefined; target: GrantTarget; targetId: string; teamId: string; level: Level | null },
  deps: TeamPermissionDeps,
): Promise<void> {
  await deps.unitOfWork.run(em, async (tx) => {
    const item = await requireTarget(tx, deps, input.caller, input.target, input.targetId, "admin");
    const { teams } = await deps.identity.teams.batchGetTeams({ organizationId: item.organizationId, teamIds: isId(input.teamId) ? [input.teamId] : [] });
    if (teams.length === 0) throw AppError.notFound("Team");
    await changeGrant(
      tx,
      { organizationId: item.organizationId, target: input.target, targetId: item.id, grantee: { kind: "team", teamId: input.teamId }, level: input.level },
      { clock: deps.clock, actor: input.caller ?? null },
    );
  });
}

/** Takes a team's grant on the item away (admins of the item); `removed` is false when it had none. */
export async function removeTeamPermission(
  em: EntityManager,
  input: { caller: CallerInput | undefined; target: GrantTarget; targetId: string; teamId: string },
  deps: UseCaseDeps,
): Promise<{ removed: boolean }> {
  return deps.unitOfWork.run(em, async (tx) => {
    const item = await requireTarget(tx, deps, input.caller, input.target, input.targetId, "admin");
    if (!isId(input.teamId)) return { removed: false };
    const removed = await changeGrant(
      tx,
      { organizationId: item.organizationId, target: input.target, targetId: item.id, grantee: { kind: "team", teamId: input.teamId }, level: null },
      { clock: deps.clock, actor: input.caller ?? null },
    );
    return { removed };
  });
}

/** How many spaces each team was granted directly (internal: the teams' `spaces` counts). */
export async function countTeamSpaces(em: EntityManager, input: { organizationId: string; teamIds: readonly string[] }): Promise<Map<string, number>> {
  if (input.teamIds.length > 1000) throw AppError.invalidArgument("team_ids: at most 1000");
  const ids = input.teamIds.filter((id) => isId(id));
  if (!isId(input.organizationId) || ids.length === 0) return new Map();
  const rows = await queryRows(
    em,
    sql<{
      team_id: string;
      spaces: string;
    }>`select g.team_id, count(*) as spaces from team_grants g join spaces s on s.id = g.target_id and s.deleted_at is null
      where g.organization_id = ${input.organizationId} and g.target_type = 'space' and g.team_id in (${sql.join(ids)}) group by g.team_id`,
  );
  return new Map(rows.map((row) => [row.team_id, Number(row.spaces)]));
}
