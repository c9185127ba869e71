import { execFile, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { eventually, patient } from "@imprint/runtime/testing";
import { TARGETS } from "../../scripts/lib/targets.mjs";

// deploy/compose/: the compose files people without Kubernetes start. Their structure is checked
// everywhere; they are started only where podman, podman-compose and the image are there.

const ROOT = join(import.meta.dirname, "..", "..");
const COMPOSE_DIR = join(ROOT, "deploy", "compose");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

interface ComposeService {
  image?: string;
  command?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}
const composeFile = (name: string) => parse(read(`deploy/compose/${name}`), { merge: true }) as ComposeFile;
const one = composeFile("compose.yaml");
const split = composeFile("compose.split.yaml");

/** What `${NAME:-fallback}` gives when NAME is unset. */
const withDefaults = (value: string) => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, "$1");

/** The image `npm run image` produces when given no --tag. */
const BUILT_IMAGE = /tag: \{ type: "string", default: "([^"]+)" \}/.exec(read("scripts/build-image.mjs"))?.[1];

const imprintServices = () => [one.services.imprint!, ...TARGETS.map((target) => split.services[target.name]!)];

describe("deploy/compose", () => {
  it("runs PostgreSQL, NATS and every target in one process from the image `npm run image` builds", () => {
    expect(Object.keys(one.services).sort()).toEqual(["imprint", "nats", "postgres"]);
    const imprint = one.services.imprint!;
    expect(imprint.command).toEqual(["all"]);
    expect(imprint.depends_on).toMatchObject({ postgres: { condition: "service_healthy" }, nats: { condition: "service_started" } });
    expect(BUILT_IMAGE).toBe("localhost/imprint:dev");
    for (const service of imprintServices()) expect(withDefaults(service.image ?? "")).toBe(BUILT_IMAGE);
    expect(one.services.nats!.command).toContain("--jetstream");
    // Every database a URL names is created when PostgreSQL first starts.
    const created = [...read("deploy/compose/init-databases.sql").matchAll(/CREATE DATABASE (\w+);/g)].map((match) => match[1]);
    const named = imprintServices().flatMap((service) =>
      Object.values(service.environment ?? {}).flatMap((value) => /postgres:\/\/[^@]+@postgres:5432\/(\w+)/.exec(value)?.slice(1) ?? []),
    );
    expect(new Set(named)).toEqual(new Set(created));
    expect(created).toHaveLength(TARGETS.filter((target) => target.service).length);
  });

  it("runs each target in a container of its own with the second file, each finding its upstreams on their fixed gRPC ports", () => {
    expect(split.services.imprint!.profiles).toEqual(["one-process"]);
    const grpcPorts = new Map<string, string>();
    for (const target of TARGETS) {
      const service = split.services[target.name];
      expect(service, target.name).toBeDefined();
      expect(service!.command).toEqual([target.name]);
      if (target.service) grpcPorts.set(target.name, service!.environment!.GRPC_PORT!);
    }
    for (const target of TARGETS) {
      const environment = split.services[target.name]!.environment ?? {};
      for (const upstream of target.upstreams)
        expect(environment[`${upstream.toUpperCase()}_GRPC_ADDRESS`], `${target.name} → ${upstream}`).toBe(`${upstream}:${grpcPorts.get(upstream)}`);
    }
  });

  it("sets only settings docs/configuration.md documents", () => {
    const documented = new Set([...read("docs/configuration.md").matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]));
    const names = new Set(imprintServices().flatMap((service) => Object.keys(service.environment ?? {})));
    expect(names.size).toBeGreaterThan(10);
    expect([...names].filter((name) => !documented.has(name))).toEqual([]);
  });

  const missing = whyComposeCannotRun();
  if (missing) console.log(`deploy/compose not started: ${missing}`);
  it.runIf(missing === undefined)(
    "starts with podman-compose and answers the API with the bootstrap token",
    async () => {
      const [apiPort, sitesPort] = [await freePort(), await freePort()];
      const token = `imp_compose${Date.now()}`;
      const env = { ...process.env, IMPRINT_BOOTSTRAP_TOKEN: token, IMPRINT_API_PORT: String(apiPort), IMPRINT_SITES_PORT: String(sitesPort) };
      const compose = (...args: string[]) =>
        promisify(execFile)("podman-compose", ["-p", "imprint-compose-test", "-f", "compose.yaml", ...args], { cwd: COMPOSE_DIR, env });
      await compose("up", "-d");
      try {
        const answer = await eventually(async () => {
          const response = await fetch(`http://127.0.0.1:${apiPort}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
          return response?.ok && ((await response.json()) as { items: unknown[] });
        }, patient(180_000));
        expect(answer.items).toHaveLength(1);
        expect((await fetch(`http://127.0.0.1:${sitesPort}/healthz`)).status).toBe(200);
      } finally {
        await compose("down", "-v");
      }
    },
    patient(300_000),
  );
});

/** Why the compose file cannot be started here; undefined when it can. */
function whyComposeCannotRun(): string | undefined {
  const has = (command: string) => spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
  if (!has("podman") || !has("podman-compose")) return "podman and podman-compose are not both installed";
  const image = withDefaults(one.services.imprint!.image ?? "");
  if (spawnSync("podman", ["image", "exists", image]).status !== 0) return `the image ${image} is not built (npm run image)`;
  return undefined;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
