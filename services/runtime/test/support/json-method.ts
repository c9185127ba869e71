/**
 * One unary method of a hand-written gRPC service definition with JSON on the wire, so the
 * runtime's tests need no context's generated code.
 */
export function jsonMethod<Req, Res>(path: string) {
  const serialize = (value: unknown) => Buffer.from(JSON.stringify(value));
  const deserialize = (buffer: Buffer) => JSON.parse(buffer.toString()) as unknown;
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Req) => serialize(value),
    requestDeserialize: (buffer: Buffer) => deserialize(buffer) as Req,
    responseSerialize: (value: Res) => serialize(value),
    responseDeserialize: (buffer: Buffer) => deserialize(buffer) as Res,
  } as const;
}
