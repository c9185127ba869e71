#!/usr/bin/env node
// Checks the Helm chart offline. Run by `npm test`.
// - Every value set in deploy/ci/*.yaml: `helm lint --strict`, then `helm template --kube-version
//   1.31.0`, every manifest validated against the kubernetes-models schemas, plus the chart's own
//   promises (read-only root with /tmp mounted, non-root pods, migrations run once: in the Jobs or at
//   start, never neither; every referenced Secret and Service exists).
// - Every value set in deploy/ci/invalid/*.yaml must be rejected, with the text of its `# expect:` line.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments, parse } from "yaml";

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
    const modulePath = group ? `kubernetes-models/${group}/${version}/${manifest.kind}` : `kubernetes-models/${version}/${manifest.kind}`;
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

/** What the chart promises beyond valid manifests; returns the broken promises. */
function chartPromises(manifests, values) {
  const broken = [];
  const named = (kind) => new Set(manifests.filter((m) => m.kind === kind).map((m) => m.metadata.name));
  const secrets = named("Secret");
  if (values.secrets?.existingSecret) secrets.add(values.secrets.existingSecret);
  const services = named("Service");
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
      for (const variable of container.env ?? []) {
        const ref = variable.valueFrom?.secretKeyRef;
        if (ref && !ref.optional && !secrets.has(ref.name)) broken.push(`${where}: ${variable.name} refers to a Secret "${ref.name}" that is not there`);
        if (variable.name.endsWith("_GRPC_ADDRESS") && !services.has(variable.value.split(":")[0])) {
          broken.push(`${where}: ${variable.name} points at a Service "${variable.value}" that is not there`);
        }
      }
      // Only services own databases; the gateway and the reader have no migrations.
      if (workload.kind === "Deployment" && !["gateway", "reader"].includes(container.args?.[0])) {
        const skip = container.env?.find((variable) => variable.name === "SKIP_MIGRATIONS")?.value;
        const hasJob = jobs.some((job) => job.spec.template.spec.containers[0].args.join(" ") === `migrate ${container.args[0]}`);
        if (skip !== String(hasJob)) broken.push(`${where}: SKIP_MIGRATIONS=${skip} but a migration Job is ${hasJob ? "" : "not "}rendered`);
      }
    }
  }
  for (const hook of manifests.filter((m) => m.metadata.annotations?.["helm.sh/hook"])) {
    // Referenced by a hook: must exist at pre-install, so it must be a hook itself (or external).
    if (hook.kind !== "Job") continue;
    for (const variable of hook.spec.template.spec.containers[0].env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      const secret = ref && manifests.find((m) => m.kind === "Secret" && m.metadata.name === ref.name);
      if (secret && !secret.metadata.annotations?.["helm.sh/hook"]) broken.push(`Job/${hook.metadata.name}: reads Secret "${ref.name}", which does not exist yet at pre-install`);
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
