/**
 * The content events. Their contracts (type, subject, ordering key, message) are generated from
 * `proto/imprint/content/v1/events.proto` into `@imprint/proto/content/v1/event-contracts`,
 * which the consumers read too; the event catalogue of docs/architecture.md lists them (a test
 * checks it against these).
 */
export * from "@imprint/proto/content/v1/event-contracts";
