import { env, loadConfig } from "@imprint/runtime/core";
import { z } from "zod";

const grpcAddress = () => z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, "must be a host:port gRPC address");
const baseUrl = () =>
  z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .transform((url) => url.replace(/\/+$/, ""))
    .optional();

/** The reader's settings: where it listens, its public URL, the two services it reads. */
export const readerConfigShape = {
  READER_HOST: z.string().min(1).default("127.0.0.1"),
  /** 0 picks a free port (tests). */
  READER_PORT: env.port(8090),
  /** The reader's base URL as visitors reach it (published URLs are built on it); defaults to http://host:port. */
  IMPRINT_READER_URL: baseUrl(),
  PUBLISHING_GRPC_ADDRESS: grpcAddress(),
  CONTENT_GRPC_ADDRESS: grpcAddress(),
  UPSTREAM_TIMEOUT_MS: env.positiveInt(10_000),
  /** How long a site's structure is reused before asking publishing again (its version answers changes). */
  SITE_CACHE_TTL_MS: z.coerce.number().int().min(0).default(1_000),
  LOG_LEVEL: env.logLevel(),
  LOG_FORMAT: env.logFormat(),
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
};

export type ReaderConfig = z.infer<z.ZodObject<typeof readerConfigShape>>;

export function loadReaderConfig(environment: Record<string, string | undefined> = process.env): ReaderConfig {
  // An empty variable is treated as unset, as shells and compose files often write them.
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ""));
  return loadConfig(readerConfigShape, present);
}
