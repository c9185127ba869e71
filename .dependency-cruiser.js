// The dependency rules of CODE_STYLE.md, checked in `npm test` (step "dependency rules"). A broken
// rule fails with its name; the rule's comment says what to do instead.
const SERVICES = "(identity|content|collaboration|publishing|integration|reader)";
/** Where a service keeps a layer, at its root or inside one of its modules (vertical slices). */
const layer = (service, name) => `^services/${service}/src/(${name}|.*/${name})/`;
/** What pure domain code may not reach: the service's I/O layers and the query builders (see domain-is-pure). */
const PERSISTENCE = ["^node_modules/kysely/", "^node_modules/@mikro-orm/(knex|sql)/"];
/** The services whose domain/ is pure; content's modules join with a rule of their own. */
const PURE_DOMAIN_SERVICES = "(identity|collaboration|publishing|integration)";
const TRANSPORT = ["^node_modules/@grpc/", "^node_modules/@nats-io/", "^node_modules/koa", "^node_modules/@koa/", "^proto/", "/grpc/"];

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-cycles",
      severity: "error",
      comment: "Modules must not depend on themselves through others, type-only imports included: move the shared piece (often a type) to a leaf module such as deps.ts or domain/.",
      from: { path: "^(services|gateway)/" },
      to: { circular: true },
    },
    {
      name: "use-cases-and-domain-stay-inside",
      severity: "error",
      comment: "Use cases and domain code never reach for the service's assembly (service.ts, main.ts) or its transport (grpc/): they receive what they need through deps.ts.",
      from: { path: [layer(SERVICES, "use-cases"), layer(SERVICES, "domain")] },
      to: { path: [`^services/${SERVICES}/src/(service|main|.*/service|.*/main)\\.ts$`, layer(SERVICES, "grpc")] },
    },
    {
      name: "domain-imports-no-transport",
      severity: "error",
      comment: "Domain code (entities, rules, state transitions) knows nothing of gRPC, NATS, HTTP or the wire types: map at the edge (grpc/ mappers, consumers/).",
      from: { path: layer(SERVICES, "domain") },
      to: { path: TRANSPORT },
    },
    {
      name: "domain-is-pure",
      severity: "error",
      comment:
        "Domain code (entities defined with defineEntity, rules, state transitions) does no I/O: a function that takes an EntityManager and queries lives in store/, next to domain/, and use cases call it. Domain imports neither store/ nor use-cases/ nor a query builder; ESLint (eslint.config.js) keeps EntityManager and the runtime's query helpers (sql, queryRows, executeStatement, findOwned, WorkQueue) out of it too.",
      from: { path: layer(PURE_DOMAIN_SERVICES, "domain") },
      to: { path: [layer(PURE_DOMAIN_SERVICES, "store"), layer(PURE_DOMAIN_SERVICES, "use-cases"), ...PERSISTENCE] },
    },
    {
      name: "no-service-imports-another-service",
      severity: "error",
      comment: "Services talk over gRPC and events only: import the other context's contract from @imprint/proto, never its source. Only the runtime and the document model are shared libraries.",
      from: { path: `^services/${SERVICES}/src/` },
      to: { path: `^services/${SERVICES}/`, pathNot: ["^services/$1/"] },
    },
    {
      name: "gateway-imports-no-service",
      severity: "error",
      comment: "The gateway maps REST to gRPC: it uses @imprint/proto and the runtime, never a service's source.",
      from: { path: "^gateway/src/" },
      to: { path: ["^services/"], pathNot: ["^services/runtime/"] },
    },
    {
      name: "libraries-import-no-service",
      severity: "error",
      comment: "The runtime and the document model are shared by every service: they cannot depend on one.",
      from: { path: "^services/(runtime|document)/src/" },
      to: { path: [`^services/${SERVICES}/`, "^gateway/"] },
    },
  ],
  options: {
    // Workspaces resolve to their built dist/: record the edge, do not walk into built or generated code.
    doNotFollow: { path: ["node_modules", "/dist/", "/src/gen/"] },
    exclude: { path: ["\\.d\\.ts$"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "default"], mainFields: ["module", "main"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
