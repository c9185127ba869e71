import { z } from "zod";
import { loadConfig, serviceConfigShape } from "@imprint/runtime";

const grpcAddress = () =>
  z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, "must be a host:port gRPC address");

/** The shared service settings plus the upstreams publishing asks about organizations and spaces. */
export const publishingConfigShape = {
  ...serviceConfigShape,
  /** Identity's gRPC address: the caller's role in a site's organization. */
  IDENTITY_GRPC_ADDRESS: grpcAddress(),
  /** Content's gRPC address: the spaces sites publish (existence, organization, the caller's rights). */
  CONTENT_GRPC_ADDRESS: grpcAddress(),
};

export type PublishingConfig = z.infer<z.ZodObject<typeof publishingConfigShape>>;

export function loadPublishingConfig(environment: Record<string, string | undefined> = process.env): PublishingConfig {
  // An empty variable is treated as unset, as shells and compose files often write them.
  const present = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ""));
  return loadConfig(publishingConfigShape, present);
}
