/** The context of identity's events: stream `IMPRINT_IDENTITY`, subjects `imprint.identity.v1.>`. */
export const IDENTITY_CONTEXT = "identity";

/**
 * The identity events. Their contracts (type, subject, ordering key, message) are generated from
 * `proto/imprint/identity/v1/events.proto` into `@imprint/proto/identity/v1/event-contracts`,
 * which the consumers read too; the event catalogue of docs/architecture.md lists them (a test
 * checks it against these).
 */
export * from "@imprint/proto/identity/v1/event-contracts";
