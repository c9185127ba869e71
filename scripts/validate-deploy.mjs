#!/usr/bin/env node
// Lints the Helm chart and validates every rendered manifest against the Kubernetes 1.27 schemas
// (kubernetes-models), offline. Run by `npm test`.
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

const chart = "deploy/helm/imprint";
const values = "deploy/ci/test-values.yaml";
const helmHome = mkdtempSync(join(tmpdir(), "imprint-helm-"));
const env = { ...process.env, HELM_CACHE_HOME: helmHome, HELM_CONFIG_HOME: helmHome, HELM_DATA_HOME: helmHome };
const helm = (args) => spawnSync("node_modules/.bin/helm", args, { encoding: "utf8", env });

const lint = helm(["lint", "--strict", chart, "-f", values]);
if (lint.status !== 0) {
  console.error(lint.stdout, lint.stderr);
  process.exit(1);
}
const rendered = helm(["template", "imprint", chart, "-f", values, "--kube-version", "1.31.0"]);
if (rendered.status !== 0) {
  console.error(rendered.stderr);
  process.exit(1);
}

let failures = 0;
let count = 0;
for (const doc of parseAllDocuments(rendered.stdout)) {
  const manifest = doc.toJS();
  if (!manifest) continue;
  count++;
  const [group, version] = manifest.apiVersion.includes("/") ? manifest.apiVersion.split("/") : ["", manifest.apiVersion];
  const modulePath = group ? `kubernetes-models/${group}/${version}/${manifest.kind}` : `kubernetes-models/${version}/${manifest.kind}`;
  try {
    const module = await import(modulePath);
    new module[manifest.kind](manifest).validate();
  } catch (error) {
    failures++;
    console.error(`${manifest.kind}/${manifest.metadata?.name}: ${error.message}`);
  }
}
if (failures > 0 || count === 0) {
  console.error(`deploy: ${failures} invalid manifest(s) of ${count}`);
  process.exit(1);
}
console.log(`deploy: helm lint clean, ${count} manifests valid`);
