import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";

/** The file stores content runs on; behaviour tests run against each. */
export const FILE_STORES = ["directory", "s3"] as const;
export type FileStoreKind = (typeof FILE_STORES)[number];

/** A file store for one test file: the content settings that select it and what it holds. */
export interface TestFileStore {
  kind: FileStoreKind;
  /** Content settings selecting this store (empty for the directory, the default). */
  env: Record<string, string>;
  /** The blob keys stored, given the content instance's data directory. */
  blobKeys(dataDir: string): Promise<string[]>;
  stop(): Promise<void>;
}

export const S3_TEST_PREFIX = "tenant-a/blobs/";

/**
 * An S3-compatible server (s3rver) on loopback with one bucket, created here (Imprint never creates
 * its bucket), or the directory store.
 */
export async function startTestFileStore(kind: FileStoreKind): Promise<TestFileStore> {
  if (kind === "directory") {
    return {
      kind,
      env: {},
      blobKeys: async (dataDir) => {
        const root = join(dataDir, "content-blobs");
        const fanout = await readdir(root).catch(() => []);
        const keys: string[] = [];
        for (const directory of fanout) keys.push(...(await readdir(join(root, directory))).filter((name) => /^[0-9a-f]{64}$/.test(name)));
        return keys;
      },
      stop: async () => {},
    };
  }
  const server = await startS3Server();
  return {
    kind,
    env: server.env,
    blobKeys: () => server.keys(),
    stop: () => server.stop(),
  };
}

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  /** FILE_STORE=s3 and the S3_* settings that reach this server's bucket, under S3_TEST_PREFIX. */
  env: Record<string, string>;
  /** The blob keys under the prefix (the object names without prefix and fan-out directory). */
  keys(): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startS3Server(): Promise<TestS3Server> {
  const directory = await mkdtemp(join(tmpdir(), "imprint-s3-"));
  const bucket = "imprint-files";
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  // s3rver's fixed credentials.
  const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
  const client = new S3Client({ endpoint, region: "us-east-1", forcePathStyle: true, credentials });
  return {
    endpoint,
    bucket,
    env: {
      FILE_STORE: "s3",
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_PREFIX: S3_TEST_PREFIX,
    },
    keys: async () => {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: S3_TEST_PREFIX, ContinuationToken: token }));
        for (const object of page.Contents ?? []) keys.push(object.Key!.slice(S3_TEST_PREFIX.length));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      // Object names are <prefix><first two hex digits>/<key>.
      return keys.map((name) => {
        const [fanout, key, ...rest] = name.split("/");
        if (rest.length > 0 || !key || !key.startsWith(fanout!)) throw new Error(`unexpected object name ${name}`);
        return key;
      });
    },
    stop: async () => {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
