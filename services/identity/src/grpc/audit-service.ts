import { AuditServiceService, type AuditEvent as AuditEventMessage } from "@imprint/proto/identity/v1/audit";
import type { EntityManager } from "@mikro-orm/postgresql";
import { pageInfo, pageRequest, type AsyncImplementation } from "@imprint/runtime";
import type { AuditEvent } from "../domain/audit-event.js";
import { getAuditEvent, listAuditEventActions, listAuditEvents } from "../use-cases/audit/read-audit-log.js";
import type { UseCaseDeps } from "../deps.js";

export const AUDIT_SERVICE_NAME = "imprint.identity.v1.AuditService";

function auditEventToProto(event: AuditEvent): AuditEventMessage {
  return {
    id: event.id,
    organizationId: event.organizationId,
    occurredAt: event.occurredAt,
    action: event.action,
    actor: { type: event.actorType, id: event.actorId, label: event.actorLabel ?? "" },
    source: event.source,
    target: { type: event.targetType, id: event.targetId, label: event.targetLabel ?? "" },
    eventType: event.eventType,
    payload: event.payload,
  };
}

/** Thin transport over the audit log's reads: one use case per handler, on a fresh EntityManager. */
export function auditServiceImplementation(em: () => EntityManager, useCaseDeps: UseCaseDeps): AsyncImplementation<typeof AuditServiceService> {
  return {
    listAuditEvents: async (request) => {
      const page = await listAuditEvents(
        em(),
        {
          caller: request.caller,
          organizationId: request.organizationId,
          page: pageRequest(request.page),
          from: request.from,
          to: request.to,
          action: request.action,
          actor: request.actor,
          target: request.target,
        },
        useCaseDeps,
      );
      return { events: page.items.map(auditEventToProto), page: pageInfo(page) };
    },

    getAuditEvent: async (request) => ({
      event: auditEventToProto(
        await getAuditEvent(em(), { caller: request.caller, organizationId: request.organizationId, auditEventId: request.auditEventId }, useCaseDeps),
      ),
    }),

    listAuditEventActions: async (request) => ({
      actions: await listAuditEventActions(em(), { caller: request.caller, organizationId: request.organizationId }, useCaseDeps),
    }),
  };
}
