import { z } from "zod";
import type { AuditEvent } from "@imprint/proto/identity/v1/audit";
import { toPageRequest, toPagedList } from "../pagination.js";
import { defineRoute, ok, type Route } from "../route.js";
import { pathId, queryParam } from "../validation.js";
import type { RouteDeps } from "./deps.js";

const organizationParams = z.object({ organizationId: pathId() });
const auditEventParams = z.object({ organizationId: pathId(), auditEventId: pathId() });

/** GitBook's page of audit events: 1 to 100, 20 when not given. */
const AUDIT_PAGE_SIZE = { max: 100, default: 20 };

export const listAuditEventsQuery = z.object({
  page: z.string().min(1).max(2048).optional(),
  limit: queryParam.integer(1, AUDIT_PAGE_SIZE.max).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  action: queryParam.string(128).optional(),
  actor: queryParam.string(128).optional(),
  target: queryParam.string(128).optional(),
});

/** GitBook's AuditEvent: labels only when known. */
function toRestAuditEvent(event: AuditEvent, location: string) {
  const labelled = (part: { type: string; id: string; label: string } | undefined) => ({
    type: part?.type ?? "",
    id: part?.id ?? "",
    ...(part?.label ? { label: part.label } : {}),
  });
  return {
    object: "audit-event" as const,
    id: event.id,
    occurredAt: (event.occurredAt ?? new Date(0)).toISOString(),
    action: event.action,
    actor: labelled(event.actor),
    source: event.source,
    target: labelled(event.target),
    urls: { location },
  };
}

/** The organization's audit log (identity's AuditService): GitBook's operations, admins only. */
export function auditRoutes({ upstreams, urls }: RouteDeps): Route[] {
  const audit = upstreams.identity.audit;
  const location = (organizationId: string, auditEventId: string) =>
    `${urls.api}/v1/orgs/${encodeURIComponent(organizationId)}/audit-events/${encodeURIComponent(auditEventId)}`;
  return [
    // listOrganizationAuditEvents
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/audit-events",
      params: organizationParams,
      query: listAuditEventsQuery,
      handler: async ({ params, query, principal, cursors }) => {
        const page = toPageRequest({ page: query.page, limit: query.limit ?? AUDIT_PAGE_SIZE.default }, cursors);
        const response = await audit.listAuditEvents({
          caller: principal.caller,
          organizationId: params.organizationId,
          page,
          from: query.from === undefined ? undefined : new Date(query.from),
          to: query.to === undefined ? undefined : new Date(query.to),
          action: query.action ?? "",
          actor: query.actor ?? "",
          target: query.target ?? "",
        });
        const items = response.events.map((event) => toRestAuditEvent(event, location(params.organizationId, event.id)));
        return ok(toPagedList(items, response.page, cursors));
      },
    }),

    // getOrganizationAuditEvent: the entry with the domain event's type and payload.
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/audit-events/:auditEventId",
      params: auditEventParams,
      handler: async ({ params, principal }) => {
        const { event } = await audit.getAuditEvent({ caller: principal.caller, ...params });
        return ok({
          ...toRestAuditEvent(event!, location(params.organizationId, params.auditEventId)),
          schemaVersion: 1,
          payload: { eventType: event!.eventType, ...event!.payload },
        });
      },
    }),

    // listOrganizationAuditEventActions
    defineRoute({
      method: "GET",
      path: "/v1/orgs/:organizationId/audit-event-actions",
      params: organizationParams,
      handler: async ({ params, principal }) => {
        const { actions } = await audit.listAuditEventActions({ caller: principal.caller, organizationId: params.organizationId });
        return ok({ items: actions.map((action) => ({ object: "audit-event-action" as const, id: action.id, label: action.label })) });
      },
    }),
  ];
}
