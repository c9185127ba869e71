/** Every publishing event goes to the `IMPRINT_PUBLISHING` stream, subjects `imprint.publishing.v1.<aggregate>.<event>`. */
export const PUBLISHING_EVENT_CONTEXT = "publishing";

/**
 * The publishing events. Their contracts (type, subject, ordering key, message) are generated from
 * `proto/imprint/publishing/v1/events.proto` into `@imprint/proto/publishing/v1/event-contracts`,
 * which the consumers read too; the event catalogue of docs/architecture.md lists them (a test
 * checks it against these).
 */
export * from "@imprint/proto/publishing/v1/event-contracts";
