/**
 * The test kit: what every service's tests and the gateway's end-to-end tests share, written once.
 * The runtime knows no service, so a test hands in the start functions it needs.
 *
 * - **Services.** `startServices([...targets])` starts services (and the gateway) in order, each on
 *   a fresh database of the shared PostgreSQL (vitest global setup), this test file's nats-server
 *   (`testNatsUrl`), a fresh data directory, TEST_SERVICE_ENV, durable consumers named for this
 *   instance, and the addresses of the targets started before it (`<NAME>_GRPC_ADDRESS`):
 *
 *   ```ts
 *   const clock = new TestClock();
 *   const services = await startServices([
 *     { name: "identity", config: loadIdentityConfig, start: startIdentityService },
 *     { name: "content", config: loadContentConfig, start: startContentService, clock: clock.now, env: { PURGE_INTERVAL_MS: "200" } },
 *   ]);
 *   const org = await createOrganization(services.clients);
 *   services.service("content").orm; // past the API, when a test must
 *   await services.stop();           // in afterAll: stops them in reverse order, removes their files
 *   ```
 *
 *   Each service's harness (`test/support/harness.ts`) and the gateway's stack are this call with
 *   their targets, plus the clients their tests name.
 * - **Clients.** `services.clients` (`ServiceClients`): identity (one client per service,
 *   `identity.members`; `testIdentityClients` for another identity), spaces, collections, editing,
 *   revisions, branches, changeRequests, comments, publishing (one client per service of
 *   publishing: `publishing.sites`, `publishing.siteSpaces`, …; `publishingClients` for a harness of
 *   its own); opened on first use, closed at stop. `testClient` for any other API.
 * - **Factories** (`create*`, through gRPC): organizations (with the owner's token), members (with
 *   a token on request), tokens, outsiders, spaces, collections, revisions, pages, change requests.
 *   Each takes the clients it needs (a harness has them). `uniqueEmail`, `pngBytes` for test data.
 * - **Time.** `TestClock` (real time plus an offset the test moves; `distinct` for a clock that never
 *   repeats a millisecond), `patient` and `eventually` (waits scaled for a busy machine).
 * - **Logs.** `testLogger`: quiet by default; records lines for assertions (`record`), or shows them.
 * - **Events.** `readEvents(context, query)` and `waitForEvents(...)` read a context's stream with
 *   filters (time, organization, payload fields) over a connection of the test's own.
 * - **Outages.** `startRestartablePostgres()` and `startRestartableNats()`: a PostgreSQL or
 *   nats-server of the test's own, to stop (an outage) and start again on the same port and data.
 *   `startTcpProxy(target)`: a relay in front of PostgreSQL (or a peer) that a test
 *   stops and starts again, as a crash and restart would, without touching what others share; with
 *   `{ lostAnswers }` (a `LostAnswers`) in front of a gRPC server, it cuts the connection where an
 *   answer would begin, as a copy killed right after its commit would.
 * - **DNS.** `startTestDnsServer(answers)`: a DNS server on loopback answering A/AAAA questions
 *   as the test says (differently per question: rebinding), for the fetch guard's resolver
 *   (IMPRINT_FETCH_DNS_SERVERS).
 * - **Delivery orders.** `deliveryPlans(n)` (fast-check) and `deliverInPlan(events, plan)`: an
 *   in-order stream shuffled, duplicated and partly held back, for consumers' property tests.
 * - **Scripts.** `runNodeScript(script, args)` / `runNodeScriptJson`: a compiled CLI run as an
 *   operator runs it, in a process of its own.
 * - **Checks.** `schemaDrift(orm)` (entities vs migrations: each service has a
 *   `test/schema-drift.test.ts`), `describeTables`/`runtimeTablesAsCreated`, the event catalogue
 *   (`eventCatalogueProblems`), a service's README against its protos, events and jobs
 *   (`describeReadme`, over `readmeProblems` with `protoServices`, `definedEventTypes`, `leasedJobNames`:
 *   each service has a `test/readme.test.ts`), `errorCode`/`failure` for failed calls.
 */
export { patient, TEST_TIME_SCALE, testTimeScale } from "./time.js";
export { createTestDatabase, errorCode, eventually, failure, testClient, testIdentityClients } from "./support.js";
export { testNats, testNatsUrl } from "./nats.js";
export { addressVariable, startServices, TEST_SERVICE_ENV, type StartedTarget, type TestEnv, type TestServices, type TestTarget } from "./services.js";
export { publishingClients, serviceClients, type ClosableServiceClients, type PublishingClients, type ServiceClients } from "./clients.js";
export {
  createChangeRequest,
  createCollection,
  createMember,
  createOrganization,
  createOutsider,
  createPage,
  createRevision,
  createSpace,
  createToken,
  memberRole,
  pageMarkdown,
  pageUpdate,
  pngBytes,
  setPageMarkdown,
  uniqueEmail,
  type ContentTarget,
  type RoleName,
  type TestOrganization,
  type TestOwner,
  type TestUser,
} from "./factories.js";
export { TestClock } from "./clock.js";
export { LostAnswers, startTcpProxy, type TcpProxy } from "./tcp-proxy.js";
export { testLogger, type LogLine, type TestLogger } from "./logger.js";
export { readEvents, waitForEvents, type EventQuery } from "./events.js";
export { consumedEventProblems, documentedContext, eventCatalogueProblems, type DocumentedContext, type DocumentedEvent } from "./event-catalogue.js";
export {
  definedEventTypes,
  describeReadme,
  leasedJobNames,
  markdownSection,
  parseProtoServices,
  protoServices,
  readmeProblems,
  type ProtoService,
  type ReadmeFacts,
} from "./readme.js";
export { describeTables, runtimeTablesAsCreated, schemaDrift, type TableDescription } from "./schema.js";
export { deliverInPlan, deliveryPlans, republished, type DeliveryPlan } from "./delivery.js";
export { runNodeScript, runNodeScriptJson, type ScriptOptions, type ScriptResult } from "./scripts.js";
export { startTestDnsServer, type DnsAnswers, type DnsQuery, type TestDnsServer } from "./dns-server.js";
export { startRestartableNats, startRestartablePostgres, type RestartableNats, type RestartablePostgres, type RestartableServer } from "./outages.js";
