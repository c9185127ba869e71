import type { EntityManager, FilterQuery } from "@mikro-orm/postgresql";
import { AppError, findPage, type Page, type PageRequestLike } from "@imprint/runtime";
import { AUDIT_ACTIONS, AuditEvent } from "../../domain/audit-event.js";
import { requireMembership } from "../shared/access.js";
import { isId, requireCaller } from "../shared/validation.js";
import type { CallerInput, UseCaseDeps } from "../../deps.js";

/** The audit log is its organization's admins' alone: anyone else who is a member is refused, others do not see the organization. */
async function requireAuditReader(em: EntityManager, organizationId: string, callerInput: CallerInput | undefined, deps: Pick<UseCaseDeps, "clock">) {
  const caller = requireCaller(callerInput);
  const member = await requireMembership(em, organizationId, caller.userId, { tokenId: caller.tokenId, now: deps.clock() });
  member.requireAdmin("read the audit log");
}

/** What a list may be narrowed to: GitBook's filters, each exact. */
export interface AuditEventFilters {
  from?: Date | undefined;
  to?: Date | undefined;
  action: string;
  actor: string;
  target: string;
}

/** The organization's audit events, newest first by when they occurred (then by id), narrowed by the filters (admins). */
export async function listAuditEvents(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; page: PageRequestLike | undefined } & AuditEventFilters,
  deps: Pick<UseCaseDeps, "clock">,
): Promise<Page<AuditEvent>> {
  await requireAuditReader(em, input.organizationId, input.caller, deps);
  if (input.from && input.to && input.from > input.to) throw AppError.invalidArgument("from: must not be after to");
  const conditions: FilterQuery<AuditEvent>[] = [{ organizationId: input.organizationId }];
  if (input.from) conditions.push({ occurredAt: { $gte: input.from } });
  if (input.to) conditions.push({ occurredAt: { $lte: input.to } });
  if (input.action) conditions.push({ action: input.action });
  if (input.actor) conditions.push({ actorId: input.actor });
  if (input.target) conditions.push({ targetId: input.target });
  return findPage(em, AuditEvent, { $and: conditions }, { fields: ["occurredAt", "id"], direction: "desc", dateFields: ["occurredAt"] }, input.page);
}

/** One audit event of the organization (admins); an id of another organization's is not found. */
export async function getAuditEvent(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string; auditEventId: string },
  deps: Pick<UseCaseDeps, "clock">,
): Promise<AuditEvent> {
  await requireAuditReader(em, input.organizationId, input.caller, deps);
  const event = isId(input.auditEventId) ? await em.findOne(AuditEvent, { id: input.auditEventId, organizationId: input.organizationId }) : null;
  if (!event) throw AppError.notFound("Audit event");
  return event;
}

/** Every action the audit log records, by id, with its label (admins). */
export async function listAuditEventActions(
  em: EntityManager,
  input: { caller: CallerInput | undefined; organizationId: string },
  deps: Pick<UseCaseDeps, "clock">,
): Promise<{ id: string; label: string }[]> {
  await requireAuditReader(em, input.organizationId, input.caller, deps);
  return Object.entries(AUDIT_ACTIONS)
    .map(([id, label]) => ({ id, label }))
    .sort((a, b) => a.id.localeCompare(b.id));
}
