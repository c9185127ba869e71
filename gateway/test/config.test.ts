import { ConfigError } from "@imprint/runtime";
import { describe, expect, it } from "vitest";
import { loadGatewayConfig } from "../src/config.js";

describe("gateway configuration", () => {
  it("applies the documented defaults", () => {
    expect(
      loadGatewayConfig({
        IDENTITY_GRPC_ADDRESS: "localhost:50051",
        CONTENT_GRPC_ADDRESS: "localhost:50052",
        COLLABORATION_GRPC_ADDRESS: "localhost:50053",
        PUBLISHING_GRPC_ADDRESS: "localhost:50054",
        INTEGRATION_GRPC_ADDRESS: "localhost:50055",
      }),
    ).toMatchObject({
      host: "127.0.0.1",
      port: 8080,
      reusePort: false,
      publicUrl: undefined,
      appUrl: undefined,
      authCacheTtlMs: 5_000,
      cacheBytes: 32 * 1024 * 1024,
      bodyLimitBytes: 1024 * 1024,
      upstreamTimeoutMs: 10_000,
      logLevel: "info",
      logFormat: undefined,
      corsAllowedOrigins: [],
      upstreams: {
        identity: "localhost:50051",
        content: "localhost:50052",
        collaboration: "localhost:50053",
        publishing: "localhost:50054",
        integration: "localhost:50055",
      },
    });
  });

  it("reads overrides and trims a trailing slash from base URLs", () => {
    const config = loadGatewayConfig({
      IDENTITY_GRPC_ADDRESS: "10.0.0.5:7000",
      CONTENT_GRPC_ADDRESS: "10.0.0.6:7000",
      COLLABORATION_GRPC_ADDRESS: "10.0.0.7:7000",
      PUBLISHING_GRPC_ADDRESS: "10.0.0.8:7000",
      INTEGRATION_GRPC_ADDRESS: "10.0.0.9:7000",
      IMPRINT_PORT: "0",
      HTTP_REUSE_PORT: "true",
      IMPRINT_PUBLIC_URL: "https://api.example.com/",
      IMPRINT_APP_URL: "https://docs.example.com",
      AUTH_CACHE_TTL_MS: "0",
      LOG_FORMAT: "json",
      CORS_ALLOWED_ORIGINS: " https://App.example.com, http://localhost:3000 ,",
    });
    expect(config).toMatchObject({
      port: 0,
      reusePort: true,
      publicUrl: "https://api.example.com",
      appUrl: "https://docs.example.com",
      authCacheTtlMs: 0,
      logFormat: "json",
      corsAllowedOrigins: ["https://app.example.com", "http://localhost:3000"],
    });
  });

  it("reads the rate limits (on by default, per token and per client IP) and the trusted proxies", () => {
    const upstreams = {
      IDENTITY_GRPC_ADDRESS: "localhost:50051",
      CONTENT_GRPC_ADDRESS: "localhost:50052",
      COLLABORATION_GRPC_ADDRESS: "localhost:50053",
      PUBLISHING_GRPC_ADDRESS: "localhost:50054",
      INTEGRATION_GRPC_ADDRESS: "localhost:50055",
    };
    const defaults = loadGatewayConfig(upstreams);
    expect(defaults.rateLimits).toEqual({
      enabled: true,
      windowMs: 60_000,
      limits: { token: { reads: 1800, writes: 600, expensive: 60 }, ip: { reads: 600, writes: 120, expensive: 30 } },
    });
    expect(defaults.trustedProxies.entries).toEqual([]);
    const set = loadGatewayConfig({ ...upstreams, RATE_LIMIT_TOKEN_EXPENSIVE: "5", TRUSTED_PROXIES: "10.0.0.0/8, ::1" });
    expect(set.rateLimits).toMatchObject({ limits: { token: { expensive: 5 } } });
    expect(set.trustedProxies.trusts("10.1.2.3")).toBe(true);
    expect(loadGatewayConfig({ ...upstreams, RATE_LIMIT_ENABLED: "false" }).rateLimits).toEqual({ enabled: false });
    expect(() => loadGatewayConfig({ ...upstreams, TRUSTED_PROXIES: "10.0.0.0/8, ingress.local", RATE_LIMIT_WINDOW_MS: "0" })).toThrow(
      /TRUSTED_PROXIES: "ingress\.local" is not an IP address or a CIDR range[\s\S]*RATE_LIMIT_WINDOW_MS|RATE_LIMIT_WINDOW_MS[\s\S]*TRUSTED_PROXIES: "ingress\.local"/,
    );
  });

  it("lists every problem at once", () => {
    let error: unknown;
    try {
      loadGatewayConfig({
        IMPRINT_PORT: "99999",
        IMPRINT_PUBLIC_URL: "ftp://x",
        BODY_LIMIT_BYTES: "-1",
        LOG_FORMAT: "fancy",
        CORS_ALLOWED_ORIGINS: "https://app.example.com/docs",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join("\n");
    for (const variable of [
      "IMPRINT_PORT",
      "IMPRINT_PUBLIC_URL",
      "BODY_LIMIT_BYTES",
      "LOG_FORMAT",
      "CORS_ALLOWED_ORIGINS",
      "IDENTITY_GRPC_ADDRESS",
      "CONTENT_GRPC_ADDRESS",
      "COLLABORATION_GRPC_ADDRESS",
      "PUBLISHING_GRPC_ADDRESS",
      "INTEGRATION_GRPC_ADDRESS",
    ]) {
      expect(problems).toContain(variable);
    }
    expect(problems).toContain('LOG_FORMAT: must be pretty or json (unset: pretty on a terminal, json otherwise) (got "fancy")');
    expect(problems).toContain('"https://app.example.com/docs" is not an origin');
  });
});
