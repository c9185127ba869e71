/** Every integration event goes to the `IMPRINT_INTEGRATION` stream, subjects `imprint.integration.v1.<aggregate>.<event>`. */
export const INTEGRATION_EVENT_CONTEXT = "integration";

/**
 * The integration events. Their contracts (type, subject, ordering key, message) are generated from
 * `proto/imprint/integration/v1/events.proto` into `@imprint/proto/integration/v1/event-contracts`,
 * which the consumers read too; the event catalogue of docs/architecture.md lists them (a test
 * checks it against these).
 */
export * from "@imprint/proto/integration/v1/event-contracts";
