import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, loadConfig } from "../src/config.js";
import { CoHostedServices } from "../src/grpc/co-hosted.js";
import { dialAddress, hostTargets, parseTargetList, targetEnv, type HostableTarget, type TargetEnv, type TargetHost } from "../src/hosting.js";
import { testLogger } from "../src/testing/logger.js";

const KNOWN = ["identity", "content", "collaboration", "gateway"];

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("parseTargetList", () => {
  it("reads all, one, or several targets, in dependency order and each once", () => {
    expect(parseTargetList("all", KNOWN)).toEqual(KNOWN);
    expect(parseTargetList("gateway", KNOWN)).toEqual(["gateway"]);
    expect(parseTargetList(" gateway, identity ,content,identity", KNOWN)).toEqual(["identity", "content", "gateway"]);
  });

  it("names the setting, the unknown targets and the known ones", () => {
    expect(problemsOf(() => parseTargetList("identity,search,x", KNOWN))).toEqual([
      'IMPRINT_TARGETS: unknown targets "search", "x" (known: identity, content, collaboration, gateway, or all)',
    ]);
    expect(problemsOf(() => parseTargetList(" , ", KNOWN))[0]).toMatch(/^IMPRINT_TARGETS: must name the targets to run/);
    expect(problemsOf(() => parseTargetList("all,gateway", KNOWN, "targets"))[0]).toMatch(/^targets: "all" already names every target/);
  });
});

describe("targetEnv", () => {
  it("lets <TARGET>_<SETTING> win over <SETTING> for that target only; empty values count as unset", () => {
    const env = {
      DATABASE_URL: "postgres://shared",
      CONTENT_DATABASE_URL: "postgres://content",
      IDENTITY_DATABASE_URL: "",
      LOG_LEVEL: "info",
      CONTENT_LOG_LEVEL: "debug",
    };
    expect(targetEnv("content", env)).toMatchObject({ DATABASE_URL: "postgres://content", LOG_LEVEL: "debug", CONTENT_DATABASE_URL: "postgres://content" });
    expect(targetEnv("identity", env)).toMatchObject({ DATABASE_URL: "postgres://shared", LOG_LEVEL: "info" });
  });

  it("dials wildcard listen addresses on loopback", () => {
    expect(dialAddress("0.0.0.0:7001")).toBe("127.0.0.1:7001");
    expect(dialAddress("[::]:7001")).toBe("127.0.0.1:7001");
    expect(dialAddress("10.0.0.5:7001")).toBe("10.0.0.5:7001");
  });
});

// Targets standing in for the real ones: each records the settings it started with and the order
// of starts and stops; a service "listens" on its GRPC_PORT or a made-up free one.
function fakeTargets(events: string[], options: { failing?: string } = {}) {
  const seen = new Map<string, TargetEnv>();
  const hosts = new Map<string, TargetHost>();
  let nextPort = 41_000;
  const target = (name: string, service: boolean, upstreams: string[]): HostableTarget<TargetEnv> => {
    const shape: Record<string, z.ZodType> = Object.fromEntries(
      upstreams.map((upstream) => [`${upstream.toUpperCase()}_GRPC_ADDRESS`, z.string().regex(/^[\w.-]+:\d+$/)]),
    );
    if (service) shape.DATABASE_URL = z.string().startsWith("postgres://");
    return {
      name,
      service,
      upstreams,
      load: (env) => {
        loadConfig(shape, env);
        return env;
      },
      start: (env, _logger, host) => {
        if (name === options.failing) return Promise.reject(new Error(`${name} cannot start`));
        seen.set(name, env);
        hosts.set(name, host);
        events.push(`start ${name}`);
        const port = env.GRPC_PORT && env.GRPC_PORT !== "0" ? env.GRPC_PORT : String(nextPort++);
        return Promise.resolve({
          ...(service ? { address: `${env.GRPC_HOST ?? "127.0.0.1"}:${port}` } : {}),
          // Drains until told to end (as a second signal does).
          drain: (signal: AbortSignal) => {
            events.push(`drain ${name}`);
            return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
          },
          stop: () => {
            events.push(`stop ${name}`);
            return Promise.resolve();
          },
        });
      },
    };
  };
  const targets = [
    target("identity", true, []),
    target("content", true, ["identity"]),
    target("collaboration", true, ["identity", "content"]),
    target("gateway", false, ["identity", "content", "collaboration"]),
  ];
  return { targets, seen, hosts };
}

const quiet = () => testLogger();
const databases = {
  IDENTITY_DATABASE_URL: "postgres://db/identity",
  CONTENT_DATABASE_URL: "postgres://db/content",
  COLLABORATION_DATABASE_URL: "postgres://db/collaboration",
};

describe("hostTargets", () => {
  it("drains every target at once, until the drain is ended, and stops none meanwhile", async () => {
    const events: string[] = [];
    const { targets } = fakeTargets(events);
    const hosted = await hostTargets(targets, databases, { logger: quiet });
    events.length = 0;
    const endDrain = new AbortController();
    let drained = false;
    const draining = hosted.drain(endDrain.signal).then(() => (drained = true));
    expect(events.toSorted()).toEqual(["drain collaboration", "drain content", "drain gateway", "drain identity"]);
    await Promise.resolve();
    expect(drained).toBe(false);
    endDrain.abort();
    await draining;
    await hosted.stop();
    expect(events.slice(4)).toEqual(["stop gateway", "stop collaboration", "stop content", "stop identity"]);
  });

  it("starts in dependency order, hands each the addresses of the services before it, stops in reverse", async () => {
    const events: string[] = [];
    const { targets, seen } = fakeTargets(events);
    const hosted = await hostTargets(targets, { ...databases, GRPC_HOST: "0.0.0.0", COLLABORATION_GRPC_PORT: "7003" }, { logger: quiet });
    expect(hosted.names).toEqual(["identity", "content", "collaboration", "gateway"]);
    expect(hosted.addresses).toEqual({ identity: "127.0.0.1:41000", content: "127.0.0.1:41001", collaboration: "127.0.0.1:7003" });
    expect(seen.get("content")).toMatchObject({ DATABASE_URL: "postgres://db/content", IDENTITY_GRPC_ADDRESS: "127.0.0.1:41000" });
    expect(seen.get("gateway")).toMatchObject({
      IDENTITY_GRPC_ADDRESS: "127.0.0.1:41000",
      CONTENT_GRPC_ADDRESS: "127.0.0.1:41001",
      COLLABORATION_GRPC_ADDRESS: "127.0.0.1:7003",
    });
    await hosted.stop();
    await hosted.stop();
    expect(events).toEqual([
      "start identity",
      "start content",
      "start collaboration",
      "start gateway",
      "stop gateway",
      "stop collaboration",
      "stop content",
      "stop identity",
    ]);
  });

  it("takes the address of an upstream hosted elsewhere from the environment, and the in-process one over it", async () => {
    const events: string[] = [];
    const { targets, seen } = fakeTargets(events);
    const env = { ...databases, IDENTITY_GRPC_ADDRESS: "identity.internal:7001", CONTENT_GRPC_ADDRESS: "content.internal:7002" };
    const hosted = await hostTargets(targets.slice(1, 3), env, { logger: quiet });
    expect(seen.get("content")).toMatchObject({ IDENTITY_GRPC_ADDRESS: "identity.internal:7001" });
    expect(seen.get("collaboration")).toMatchObject({ IDENTITY_GRPC_ADDRESS: "identity.internal:7001", CONTENT_GRPC_ADDRESS: "127.0.0.1:41000" });
    await hosted.stop();
  });

  it("checks every target's settings before starting any, and refuses what one process cannot share", async () => {
    const events: string[] = [];
    const { targets } = fakeTargets(events);
    const attempt = hostTargets(
      targets,
      { DATABASE_URL: "postgres://db/one", COLLABORATION_DATABASE_URL: "postgres://db/collaboration", GRPC_PORT: "7000" },
      { logger: quiet },
    );
    const error = await attempt.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      "DATABASE_URL: identity, content would share one database (each service owns its own): set IDENTITY_DATABASE_URL, CONTENT_DATABASE_URL (one per service)",
      "GRPC_PORT: identity, content, collaboration would listen on the same gRPC port (unset, each gets a free one): set IDENTITY_GRPC_PORT, CONTENT_GRPC_PORT, COLLABORATION_GRPC_PORT (one per service)",
    ]);
    expect(events).toEqual([]);

    const missing = await hostTargets(targets.slice(1), {}, { logger: quiet }).catch((caught: unknown) => caught);
    expect((missing as ConfigError).problems).toEqual([
      "content: IDENTITY_GRPC_ADDRESS: Invalid input: expected string, received undefined (not set)",
      "content: DATABASE_URL: Invalid input: expected string, received undefined (not set)",
      "collaboration: IDENTITY_GRPC_ADDRESS: Invalid input: expected string, received undefined (not set)",
      "collaboration: DATABASE_URL: Invalid input: expected string, received undefined (not set)",
      "gateway: IDENTITY_GRPC_ADDRESS: Invalid input: expected string, received undefined (not set)",
    ]);
  });

  it("hands every target the host's one CoHostedServices, none with IMPRINT_DIRECT_CALLS=false, and refuses another value", async () => {
    const { targets, hosts } = fakeTargets([]);
    const hosted = await hostTargets(targets, databases, { logger: quiet });
    expect(hosted.coHosted).toBeInstanceOf(CoHostedServices);
    expect([...hosts.values()].map((host) => host.coHosted)).toEqual(targets.map(() => hosted.coHosted));
    await hosted.stop();

    const off = fakeTargets([]);
    const split = await hostTargets(off.targets, { ...databases, IMPRINT_DIRECT_CALLS: "false" }, { logger: quiet });
    expect(split.coHosted).toBeUndefined();
    expect([...off.hosts.values()].every((host) => host.coHosted === undefined)).toBe(true);
    await split.stop();

    const wrong = await hostTargets(fakeTargets([]).targets, { ...databases, IMPRINT_DIRECT_CALLS: "sometimes" }, { logger: quiet }).catch(
      (caught: unknown) => caught,
    );
    expect((wrong as ConfigError).problems).toEqual(['IMPRINT_DIRECT_CALLS: must be true or false (got "sometimes")']);
  });

  it("stops what already started when a target fails to start", async () => {
    const events: string[] = [];
    const { targets } = fakeTargets(events, { failing: "collaboration" });
    await expect(hostTargets(targets, databases, { logger: quiet })).rejects.toThrow("collaboration cannot start");
    expect(events).toEqual(["start identity", "start content", "stop content", "stop identity"]);
  });
});
